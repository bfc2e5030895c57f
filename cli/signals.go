package cli

import (
	"context"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
)

// What Ctrl+C does. The goroutine that receives the signal runs the
// command's stops itself, before it cancels the command's context:
// `tandem run` registers its run's Stop, whose first act shuts the run's
// action gate, so a tap the model replied a moment before Ctrl+C does not
// start. Through the context and the command's own loop (two more
// goroutines to wake) the reply's tap won that race (issue 31).

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

// notifySignals fires s on the first Ctrl+C or SIGTERM, until release.
func notifySignals(s *stops) (release func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			s.fire()
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// stops are what an interrupt does, in the goroutine that received it: the
// registered functions in their order, then the end of the command's
// context.
type stops struct {
	cancel context.CancelFunc
	mu     sync.Mutex
	fired  bool
	fns    []*func()
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
