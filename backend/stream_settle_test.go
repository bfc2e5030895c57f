package backend

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"tandem/engine"
)

// Issue 31, item 1, end to end: a task on a phone whose captures take a
// real phone's time, its mirror watched through scrcpy-server (which
// repeats its last picture once), with the stream judging each settled
// screen: every request shows the last tap's effect (two requests in a
// row on the same picture would mean a capture taken before the screen
// changed), and the stream never costs a capture. Without the mirror, the
// same task takes a capture more a step when the stream's pictures come
// in time (BenchmarkStepWithMirror).
func TestStreamJudgesTheSettledScreen(t *testing.T) {
	const taps = 4
	captures := map[bool]int64{}
	for _, watched := range []bool{false, true} {
		c := newCounterTask(t, taps)
		b, phone, env := c.b, c.phone, c.env
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if watched {
			jar := filepath.Join(t.TempDir(), "scrcpy-server")
			if err := os.WriteFile(jar, []byte("PK\x03\x04 stand-in jar"), 0o644); err != nil {
				t.Fatal(err)
			}
			b.desks.scrcpyJar = jar
			if _, err := b.Watch(ctx, "test", env.Serial); err != nil {
				t.Fatal(err)
			}
			for b.MirrorPath(env.Serial).Path != "scrcpy" || b.hub.PathOf(env.Serial).Ended {
				if ctx.Err() != nil {
					t.Fatalf("the mirror took %+v", b.MirrorPath(env.Serial))
				}
				time.Sleep(10 * time.Millisecond) // polling the path the feed names
			}
		}
		phone.SetLatency(150 * time.Millisecond) // a capture slower than the interval, as a real phone's
		before := phone.Screencaps()
		// No video: its stream would judge the unwatched run's screen too.
		snap, err := b.StartRun(ctx, env.Serial, "tap +1 four times", RunChoice{NoVideo: true})
		if err != nil {
			t.Fatal(err)
		}
		run, _ := b.Run(snap.ID, ByWindow())
		res, err := run.Wait(ctx)
		if err != nil || res.State != engine.Done || res.Steps != taps || phone.State().Counter != taps {
			t.Fatalf("watched %v: %+v %v, counter %d", watched, res, err, phone.State().Counter)
		}
		captures[watched] = phone.Screencaps() - before
		if n := c.sameAsBefore(); n != 0 {
			t.Fatalf("watched %v: request %d shows the same screen as the one before it: the tap's change was not captured", watched, n)
		}
	}
	// Never more with the stream judging. What it saves (one a tap when its
	// pictures come in time: 6, 8 and 9 against 9 under load) is measured
	// by BenchmarkStepWithMirror's captures/step.
	if captures[true] > captures[false] {
		t.Fatalf("%d captures with the stream judging, %d without, for %d taps: want no more", captures[true], captures[false], taps)
	}
}
