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
		func(img image.Image) {
			mu.Lock()
			offered = append(offered, img)
			mu.Unlock()
			got <- struct{}{}
		})
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
