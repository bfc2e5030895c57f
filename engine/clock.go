package engine

import (
	"context"
	"time"
)

// Clock is the time a run reads and waits on. Real runs use the wall
// clock; the simulation (engine/sim) hands in a virtual one so a run's
// stability waits and device polls take no real time and thousands of runs
// fit in seconds.
type Clock interface {
	Now() time.Time
	// Sleep waits d, or until ctx ends (then it returns ctx's error).
	Sleep(ctx context.Context, d time.Duration) error
}

// wallClock is the real clock.
type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (r *Run) now() time.Time { return r.clock.Now() }

func (r *Run) since(t time.Time) time.Duration { return r.clock.Now().Sub(t) }
