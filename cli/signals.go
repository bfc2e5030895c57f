package cli

import (
	"context"
	"slices"
	"sync"

	"tandem/internal/sigcatch"
)

// What Ctrl+C does. Two things, so that a tap the model replied as Ctrl+C
// was pressed does not start (issue 31):
//   - The process's handler (sigcatch) marks the process interrupted in
//     the signal handler itself, and every run's action gate asks it
//     before an action starts (backend.Config.Interrupted): Go's delivery
//     of the signal to a goroutine takes milliseconds on a busy machine,
//     the reply's way to its tap about one (the tap won 36 times in 100).
//   - The goroutine that hears of the signal runs the command's stops
//     itself, before it cancels the command's context: `tandem run`
//     registers its run's Stop, which ends the run and records it.

// runWithSignals runs env's command with Ctrl+C and SIGTERM wired to it.
func runWithSignals(env Env) int {
	ctx, env := interruptible(context.Background(), env)
	defer env.stops.cancel()
	defer notifySignals(env.stops)()
	return Run(ctx, env)
}

// interruptible gives env stops and returns the context they end last.
func interruptible(parent context.Context, env Env) (context.Context, Env) {
	ctx, cancel := context.WithCancel(parent)
	env.stops = &stops{cancel: cancel}
	return ctx, env
}

// notifySignals fires s on the first Ctrl+C or SIGTERM, until release,
// and makes s.interrupted report the signal from the moment it is sent.
func notifySignals(s *stops) (release func()) {
	c := sigcatch.Catch()
	s.setInterrupted(c.Caught)
	done := make(chan struct{})
	go func() {
		select {
		case <-c.C():
			s.fire()
		case <-done:
		}
	}()
	return func() {
		close(done)
		c.Release()
	}
}

// stops are what an interrupt does, in the goroutine that received it: the
// registered functions in their order, then the end of the command's
// context.
type stops struct {
	cancel      context.CancelFunc
	mu          sync.Mutex
	fired       bool
	fns         []*func()
	interrupted func() bool // the signal handler's own report, when it has one
}

// setInterrupted makes f what Interrupted asks too.
func (s *stops) setInterrupted(f func() bool) {
	s.mu.Lock()
	s.interrupted = f
	s.mu.Unlock()
}

// Interrupted reports whether the interrupt has come: fired, or sent and
// seen by the process's handler though not yet delivered to Go. On a nil
// *stops it reports false. It does not block on the stops' own work.
func (s *stops) Interrupted() bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	fired, f := s.fired, s.interrupted
	s.mu.Unlock()
	return fired || (f != nil && f())
}

// add registers f to run on the interrupt (at once if it came already);
// the returned function removes it. On a nil *stops it does nothing.
func (s *stops) add(f func()) (remove func()) {
	if s == nil {
		return func() {}
	}
	s.mu.Lock()
	if s.fired {
		s.mu.Unlock()
		f()
		return func() {}
	}
	p := &f
	s.fns = append(s.fns, p)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.fns = slices.DeleteFunc(s.fns, func(q *func()) bool { return q == p })
		s.mu.Unlock()
	}
}

// fire runs the registered functions, once, then ends the context.
func (s *stops) fire() {
	s.mu.Lock()
	if s.fired {
		s.mu.Unlock()
		return
	}
	s.fired = true
	fns := s.fns
	s.fns = nil
	s.mu.Unlock()
	for _, f := range fns {
		(*f)()
	}
	if s.cancel != nil {
		s.cancel()
	}
}
