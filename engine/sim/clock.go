package sim

import (
	"context"
	"time"
)

// clock is virtual time: Sleep moves it forward by the asked duration and
// returns at once, so a run's stability waits and device polls take no
// real time. Nothing else moves it: the world runs one item at a time on
// the scheduler, so a wait is never a race.
type clock struct {
	now time.Time
}

func newClock() *clock {
	return &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *clock) Now() time.Time { return c.now }

func (c *clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d > 0 {
		c.now = c.now.Add(d)
	}
	return nil
}
