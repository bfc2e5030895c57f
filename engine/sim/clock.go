package sim

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"
)

// clock is virtual time: Sleep moves it forward by the asked duration and
// returns at once, so a run's stability waits and device polls take no
// real time. The scheduler is still given a turn, so other goroutines of
// the run (a person's command, a result) can interleave with the wait.
type clock struct {
	base time.Time
	ns   atomic.Int64
}

func newClock() *clock {
	return &clock{base: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *clock) Now() time.Time { return c.base.Add(time.Duration(c.ns.Load())) }

func (c *clock) Sleep(ctx context.Context, d time.Duration) error {
	if d > 0 {
		c.ns.Add(int64(d))
	}
	runtime.Gosched()
	return ctx.Err()
}
