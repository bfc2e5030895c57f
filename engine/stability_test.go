package engine

import (
	"context"
	"image"
	"sync"
	"testing"
	"time"
)

// TestWaitStableOffersFramesAndKeepsTheFirstSettled: every frame that
// starts a new run of similar frames is offered (for the planner to
// prepare), and the settled frame returned is the first of the final run,
// the one offered, not the frame that merely confirmed it.
func TestWaitStableOffersFramesAndKeepsTheFirstSettled(t *testing.T) {
	p := newFakePhone()
	p.mu.Lock()
	p.animShots = 2 // by captures, not time: a busy machine cannot skip them
	p.mu.Unlock()
	var mu sync.Mutex
	var offered []image.Image
	got := make(chan struct{}, 64)
	s, err := waitStable(context.Background(), wallClock{}, p.Screenshot, StabilityConfig{Interval: 10 * time.Millisecond, StableFrames: 3, Max: time.Minute},
		waitHooks{run: func(img image.Image) {
			mu.Lock()
			offered = append(offered, img)
			mu.Unlock()
			got <- struct{}{}
		}})
	if err != nil || !s.Stable || s.Frames < 4 {
		t.Fatalf("%+v %v", s, err)
	}
	deadline := time.After(5 * time.Second)
	for {
		mu.Lock()
		found := false
		for _, o := range offered {
			found = found || o == s.Frame
		}
		n := len(offered)
		mu.Unlock()
		if found {
			if n >= s.Frames {
				t.Fatalf("%d of %d frames offered: the confirming frames should not be", n, s.Frames)
			}
			break
		}
		select {
		case <-got:
		case <-deadline:
			t.Fatal("the settled frame was never offered")
		}
	}
	if FingerprintOf(s.Frame).Diff(s.Print) != 0 {
		t.Fatal("Print is not the settled frame's")
	}
}

// stepClock is a virtual clock: Sleep moves it on at once.
type stepClock struct{ t time.Time }

func (c *stepClock) Now() time.Time { return c.t }

func (c *stepClock) Sleep(ctx context.Context, d time.Duration) error {
	if d > 0 {
		c.t = c.t.Add(d)
	}
	return ctx.Err()
}

// greyScreen is a capture of a screen of one grey, level(time since the
// clock's start, up to settle), that takes took of the clock's time.
func greyScreen(clock *stepClock, settle, took time.Duration, level func(time.Duration) uint8) func(context.Context) (image.Image, error) {
	t0 := clock.t
	return func(ctx context.Context) (image.Image, error) {
		img := image.NewRGBA(image.Rect(0, 0, 64, 128))
		g := level(min(clock.t.Sub(t0), settle))
		for i := range img.Pix {
			img.Pix[i] = g
		}
		clock.t = clock.t.Add(took)
		return img, nil
	}
}

// TestAMovingScreenIsFollowedClosely: on a virtual clock, screens that
// move until 640 ms and then hold. The wait tells a candidate soon after
// the screen stops (the model call may start on it) and settles on it
// only once a capture an interval later confirms it, and never on a frame
// of the motion: not on a fast animation's, nor on a 25 fps one's that
// holds each picture 40 ms, nor on a slow fade's, whose captures a
// quickGap apart differ by less than the comparison notices.
func TestAMovingScreenIsFollowedClosely(t *testing.T) {
	const settle = 640 * time.Millisecond // a multiple of each motion's period: its last change
	for _, c := range []struct {
		name  string
		level func(since time.Duration) uint8 // the screen's grey at a time
		soon  time.Duration                   // the candidate comes this soon after the settle
		// near is when the screen came within the comparison's tolerance
		// (cellDelta) of its final picture.
		near time.Duration
	}{
		{"60 Hz", func(d time.Duration) uint8 { return uint8(int(d/(16*time.Millisecond)) * 37) }, 50 * time.Millisecond, settle},
		{"25 fps", func(d time.Duration) uint8 { return uint8(int(d/(40*time.Millisecond)) * 37) }, 0, settle},
		{"slow fade", func(d time.Duration) uint8 { return uint8(40 + int(d/(20*time.Millisecond))*3) }, 0, 600 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			clock := &stepClock{t: time.Unix(1e9, 0)}
			t0 := clock.t
			shoot := greyScreen(clock, settle, 5*time.Millisecond, c.level)
			var cand image.Image
			var candAt time.Time
			s, err := waitStable(context.Background(), clock, shoot, DefaultStability, waitHooks{candidate: func(img image.Image) {
				if cand != nil {
					t.Fatal("a second candidate")
				}
				cand, candAt = img, clock.t
			}})
			if err != nil || !s.Stable {
				t.Fatalf("%+v %v", s, err)
			}
			still := image.NewRGBA(image.Rect(0, 0, 64, 128))
			for i := range still.Pix {
				still.Pix[i] = c.level(settle)
			}
			if FingerprintOf(s.Frame).Diff(FingerprintOf(still)) > DefaultStability.Threshold {
				t.Fatalf("settled on a frame of the motion (%d, still %d)", s.Frame.(*image.RGBA).Pix[0], c.level(settle))
			}
			if s.Waited < c.near+DefaultStability.Interval {
				t.Fatalf("settled %v after the start: no capture an interval after the screen stopped confirmed it", s.Waited)
			}
			if s.Frames > 60 {
				t.Fatalf("%d captures", s.Frames)
			}
			if c.soon == 0 {
				return
			}
			if cand != s.Frame || candAt.Sub(t0) > settle+c.soon {
				t.Fatalf("candidate %v after the start (the settle at %v), the settled frame: %v", candAt.Sub(t0), settle, cand == s.Frame)
			}
		})
	}
}

// TestASlowPhoneOffersEachRunAtOnce: where a capture takes longer than
// the interval (a real phone's 0.2–0.7 s), a frame of a new run goes to
// the reads and the encode as it is captured, not a capture later, and no
// candidate is told: the second capture settles the screen by itself.
func TestASlowPhoneOffersEachRunAtOnce(t *testing.T) {
	const settle, took = 640 * time.Millisecond, 300 * time.Millisecond
	clock := &stepClock{t: time.Unix(1e9, 0)}
	t0 := clock.t
	shoot := greyScreen(clock, settle, took, func(d time.Duration) uint8 { return uint8(int(d/(16*time.Millisecond)) * 37) })
	offeredAt := map[image.Image]time.Duration{}
	s, err := waitStable(context.Background(), clock, shoot, DefaultStability, waitHooks{
		run:       func(img image.Image) { offeredAt[img] = clock.t.Sub(t0) },
		candidate: func(image.Image) { t.Fatal("a candidate from captures slower than the interval") },
	})
	if err != nil || !s.Stable {
		t.Fatalf("%+v %v", s, err)
	}
	at, ok := offeredAt[s.Frame]
	if !ok || at > s.Waited-took {
		t.Fatalf("the settled frame offered at %v (ok %v), the wait ended at %v: offered only with the capture that confirmed it", at, ok, s.Waited)
	}
}

// TestAStillScreenIsConfirmedWithoutACapture: with a device that can tell
// a still screen for less than a capture (device.Confirmer), the wait
// confirms the settled frame that way and captures once fewer, and settles
// on the same frame at the same time as with captures alone. While it
// follows a moving screen closely it asks only for that confirmation (a
// moving screen's answer would be "changed" and cost a capture more): one
// question more than the confirmation at most, the one after the first
// capture, before the screen is seen moving.
func TestAStillScreenIsConfirmedWithoutACapture(t *testing.T) {
	const settle = 640 * time.Millisecond
	moving := func(d time.Duration) uint8 { return uint8(int(d/(16*time.Millisecond)) * 37) }
	still := func(time.Duration) uint8 { return 90 }
	for _, c := range []struct {
		name  string
		level func(time.Duration) uint8
	}{{"still", still}, {"moving, then still", moving}} {
		t.Run(c.name, func(t *testing.T) {
			type result struct {
				s            Settled
				shots, asked int
			}
			wait := func(confirm bool) result {
				clock := &stepClock{t: time.Unix(1e9, 0)}
				t0 := clock.t
				capture := greyScreen(clock, settle, 5*time.Millisecond, c.level)
				var r result
				shoot := func(ctx context.Context) (image.Image, error) { r.shots++; return capture(ctx) }
				h := waitHooks{}
				if confirm {
					h.unchanged = func(_ context.Context, newest image.Image) bool {
						r.asked++
						now := c.level(min(clock.t.Sub(t0), settle))
						clock.t = clock.t.Add(2 * time.Millisecond)
						return newest.(*image.RGBA).Pix[0] == now
					}
				}
				s, err := waitStable(context.Background(), clock, shoot, DefaultStability, h)
				if err != nil || !s.Stable {
					t.Fatalf("%+v %v", s, err)
				}
				r.s = s
				return r
			}
			plain, confirmed := wait(false), wait(true)
			t.Logf("captures alone: %d captures, settled after %v; confirmed: %d captures and %d checksums, after %v",
				plain.shots, plain.s.Waited, confirmed.shots, confirmed.asked, confirmed.s.Waited)
			if confirmed.s.Frame.(*image.RGBA).Pix[0] != plain.s.Frame.(*image.RGBA).Pix[0] || confirmed.s.Frames != plain.s.Frames {
				t.Fatalf("settled on grey %d after %d frames, with captures alone on %d after %d",
					confirmed.s.Frame.(*image.RGBA).Pix[0], confirmed.s.Frames, plain.s.Frame.(*image.RGBA).Pix[0], plain.s.Frames)
			}
			if d := confirmed.s.Waited - plain.s.Waited; d < -10*time.Millisecond || d > 10*time.Millisecond {
				t.Errorf("settled after %v, with captures alone after %v", confirmed.s.Waited, plain.s.Waited)
			}
			if confirmed.shots != plain.shots-1 || confirmed.asked < 1 || confirmed.asked > 2 {
				t.Errorf("%d captures and %d checksums, want %d and 1 or 2", confirmed.shots, confirmed.asked, plain.shots-1)
			}
		})
	}
}
