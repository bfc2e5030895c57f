package backend

import (
	"testing"
	"time"
)

// BenchmarkStepWithMirror is issue 31's one capture per step, in the
// backend as the window runs it: a virtual phone (1080x2400) behind the
// real adb server, runs of 20 taps with a model that answers at once, the
// phone's mirror not watched (two captures an interval apart judge the
// settled screen) and watched (its video stream judges it, one capture);
// and the same with every adb command of the phone taking 250 ms more, as
// a real phone's screencap takes its 0.2–0.7 s. Reports framework time per
// step (the model's own time left out) and, of it, the stability wait, as
// BenchmarkFourPhones does:
//
//	go test -run x -bench BenchmarkStepWithMirror -benchtime 3x -count 3 ./backend/
func BenchmarkStepWithMirror(b *testing.B) {
	r := newPhonesRig(b)
	type key struct {
		slow, watched bool
	}
	step, wait := map[key][]float64{}, map[key][]float64{}
	round := 0
	for _, watched := range []bool{false, true} {
		if watched {
			r.watch(b, 1)
		}
		for _, slow := range []bool{false, true} {
			lat := time.Duration(0)
			if slow {
				lat = 250 * time.Millisecond
			}
			r.phones[0].SetLatency(lat)
			for range b.N {
				round++
				per, w := r.round(b, 1, round, nil)
				k := key{slow, watched}
				step[k], wait[k] = append(step[k], per...), append(wait[k], w...)
			}
		}
	}
	r.phones[0].SetLatency(0)
	for _, t := range r.tiles {
		t.close(b)
	}
	for k, name := range map[key]string{{false, false}: "", {false, true}: "-mirror", {true, false}: "-slow", {true, true}: "-slow-mirror"} {
		b.ReportMetric(median(step[k]), "ms/step"+name)
		b.ReportMetric(median(wait[k]), "wait-ms/step"+name)
	}
	b.ReportMetric(0, "ns/op")
}
