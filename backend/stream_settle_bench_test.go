package backend

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"tandem/internal/cputime"
)

// BenchmarkStepWithMirror is issue 31's one capture per step, in the
// backend as the window runs it: a virtual phone (1080x2400) behind the
// real adb server, runs of 20 taps with a model that answers at once, the
// phone's mirror not watched (two captures an interval apart judge the
// settled screen) and watched through screenrecord or scrcpy-server (the
// video stream judges it, one capture; scrcpy's encoder also repeats its
// last picture once, 100 ms after); and the same with every adb command of
// the phone 250 ms slower, as a real phone's screencap takes its 0.2–0.7 s.
// Reports framework time per step (the model's own time left out) and, of
// it, the stability wait, as BenchmarkFourPhones does, and the CPU a step
// of this process: the backend's, and also the virtual phones' and the
// model server's, which live in it (its stream's encoder too while the
// mirror is watched), so a figure to compare versions by; and the
// captures a step (issue 31: one with a stream judging, two without):
//
//	go test -run x -bench BenchmarkStepWithMirror -benchtime 3x ./backend/
func BenchmarkStepWithMirror(b *testing.B) {
	r := newPhonesRig(b)
	jar := filepath.Join(b.TempDir(), "scrcpy-server")
	if err := os.WriteFile(jar, []byte("PK\x03\x04 stand-in jar"), 0o644); err != nil {
		b.Fatal(err)
	}
	round := 0
	for _, mirror := range []string{"none", "screenrecord", "scrcpy"} {
		for _, t := range r.tiles {
			t.close(b)
		}
		r.tiles = nil
		r.b.Unwatch("tile-0")
		if mirror != "none" {
			r.b.desks.scrcpyJar = map[string]string{"scrcpy": jar}[mirror]
			r.watch(b, 1)
			for deadline := time.Now().Add(20 * time.Second); r.b.MirrorPath(r.serial[0]).Path != mirror; {
				if time.Now().After(deadline) {
					b.Fatalf("the mirror took %q, want %s", r.b.MirrorPath(r.serial[0]).Path, mirror)
				}
				time.Sleep(10 * time.Millisecond) // polling the path the feed names
			}
		}
		for _, slow := range []bool{false, true} {
			name := "-" + mirror
			if slow {
				name += "-slow"
				r.phones[0].SetLatency(250 * time.Millisecond)
			}
			var step, wait []float64
			c0, caps0 := cputime.Self(), r.phones[0].Screencaps()
			for range b.N {
				round++
				per, w := r.round(b, 1, round, nil)
				step, wait = append(step, per...), append(wait, w...)
			}
			cpu, caps := cputime.Self()-c0, r.phones[0].Screencaps()-caps0
			r.phones[0].SetLatency(0)
			b.ReportMetric(median(step), "ms/step"+name)
			b.ReportMetric(median(wait), "wait-ms/step"+name)
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N*benchSteps), "cpu-ms/step"+name)
			b.ReportMetric(float64(caps)/float64(b.N*benchSteps), "captures/step"+name)
		}
	}
	for _, t := range r.tiles {
		t.close(b)
	}
	b.ReportMetric(0, "ns/op")
}
