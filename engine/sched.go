package engine

import (
	"context"
	"errors"
	"fmt"
)

// A Scheduler runs runs without goroutines of their own, for a simulation
// that replays exactly (engine/sim): one seed, one interleaving. Real runs
// leave Config.Scheduler nil and run as the package doc says.
//
// On a scheduler a run's loop is no goroutine and its work (a model call,
// an action, a stability wait, the person's input, the device watch) is no
// goroutine either: each is an item waiting its turn. Step picks one ready
// item with the scheduler's pick function and runs it in the caller's
// goroutine, to its end: a piece of work runs whole (its waits are on the
// run's Clock, a virtual one in the simulation, so they take no time), and
// what it posts queues behind it; a queued message is handed to its run's
// core as the loop would (Run.receive). The person's commands queue the
// same way and step the world until they are answered. So which result, which
// command and which fault comes first is the pick function's choice alone,
// as FoundationDB's and TigerBeetle's simulators do it: given the same
// choices (a seed), the same world happens again.
//
// The device and planner of a scheduled run must not block: they answer at
// once (the simulation's do), or the whole world waits. Its Clock must not
// block either (a virtual one). Wait for such a run with Run.Wait, which
// steps the world; Done alone would wait for ever.
type Scheduler struct {
	pick  func(n int) int
	trace func(string)
	items []*item
	cur   *item // the work running now: what it posts queues behind it
	ready []int // scratch
}

// item is one thing waiting its turn: a piece of work not yet run, then
// the messages it posted, in order (a channel keeps one sender's order).
type item struct {
	run  *Run
	name string
	task func() // nil once run (or for a command)
	idle bool   // run only once no other work of its run waits (the cleanup)
	msgs []msg  // posted, not yet delivered
}

// ErrStalled is a command (or a wait) on a scheduler that nothing can
// answer: no work and no message is left, or it kept the world busy past
// maxSteps. On a real run it would hang.
var ErrStalled = errors.New("engine: no answer: the scheduled world has nothing left to do, or goes round for ever")

// maxSteps bounds how long a command or a wait steps the world: beyond it
// the run is taken to be going round for ever.
const maxSteps = 200000

// NewScheduler returns a scheduler that, of n items ready to run, runs the
// one pick(n) returns (0 <= pick(n) < n; 0 is the oldest). trace, when not
// nil, is told each item as it runs.
func NewScheduler(pick func(n int) int, trace func(string)) *Scheduler {
	return &Scheduler{pick: pick, trace: trace}
}

// Step runs one ready item; false when none is ready.
func (s *Scheduler) Step() bool {
	s.ready = s.ready[:0]
	for i, it := range s.items {
		if s.isReady(it) {
			s.ready = append(s.ready, i)
		}
	}
	if len(s.ready) == 0 {
		return false
	}
	it := s.items[s.ready[s.pick(len(s.ready))]]
	if it.task != nil {
		f := it.task
		it.task = nil
		s.say("run: " + it.name)
		s.cur = it
		f()
		s.cur = nil
	} else {
		m := it.msgs[0]
		it.msgs = it.msgs[1:]
		if !it.run.ended() {
			s.say("deliver: " + describeMessage(m))
			it.run.receive(m)
		}
	}
	s.sweep()
	return true
}

func (s *Scheduler) say(line string) {
	if s.trace != nil {
		s.trace(line)
	}
}

// isReady reports whether it can go next: work not yet run (the cleanup
// only once the rest of its run's work has run), or messages it posted.
func (s *Scheduler) isReady(it *item) bool {
	if it.task != nil {
		return !it.idle || s.onlyWork(it)
	}
	return len(it.msgs) > 0
}

// onlyWork reports whether it is the only work of its run still waiting.
func (s *Scheduler) onlyWork(it *item) bool {
	for _, o := range s.items {
		if o != it && o.run == it.run && o.task != nil {
			return false
		}
	}
	return true
}

// sweep forgets the items with nothing left.
func (s *Scheduler) sweep() {
	keep := s.items[:0]
	for _, it := range s.items {
		if it.task != nil || len(it.msgs) > 0 {
			keep = append(keep, it)
		}
	}
	clear(s.items[len(keep):])
	s.items = keep
}

func (s *Scheduler) spawn(r *Run, name string, f func(), idle bool) {
	s.items = append(s.items, &item{run: r, name: name, task: f, idle: idle})
}

// post queues m behind the work that posts it.
func (s *Scheduler) post(r *Run, m msg) {
	if r.ended() {
		return
	}
	if s.cur != nil && s.cur.run == r {
		s.cur.msgs = append(s.cur.msgs, m)
		return
	}
	s.items = append(s.items, &item{run: r, msgs: []msg{m}})
}

// until steps the world until done reports true.
func (s *Scheduler) until(ctx context.Context, done func() bool) error {
	for range maxSteps {
		if done() {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if !s.Step() {
			if done() {
				return nil
			}
			return ErrStalled
		}
	}
	return ErrStalled
}

// command queues a command for r and steps the world until it is answered.
func (s *Scheduler) command(ctx context.Context, r *Run, m msg, reply chan error) error {
	if r.ended() {
		return ErrFinished
	}
	s.items = append(s.items, &item{run: r, name: "the person", msgs: []msg{m}})
	var err error
	answered := func() bool {
		select {
		case err = <-reply:
			return true
		default:
		}
		if r.ended() {
			err = ErrFinished // the loop answers every command it took before it ends
			select {
			case err = <-reply:
			default:
			}
			return true
		}
		return false
	}
	if werr := s.until(ctx, answered); werr != nil {
		return werr
	}
	return err
}

// describeMessage says what a message to the loop is, for the trace.
func describeMessage(m msg) string {
	name := m.trigger().String()
	switch m := m.(type) {
	case msgActionDone:
		switch {
		case m.res == nil:
		case m.res.skipped:
			return name + " (it never started)"
		case m.res.err != nil:
			return fmt.Sprintf("%s (%v)", name, m.res.err)
		}
	case msgPlanned:
		switch {
		case m.res == nil:
		case m.res.only:
			return name + " (a look)"
		case m.res.err != nil:
			return fmt.Sprintf("%s (%v)", name, m.res.err)
		default:
			return fmt.Sprintf("%s (%d action(s))", name, len(m.res.plan.Actions))
		}
	case msgManualDone:
		if m.res != nil && !m.res.look {
			return fmt.Sprintf("%s (%s)", name, m.res.a)
		}
	case msgManualInput:
		return fmt.Sprintf("%s (%s)", name, m.act)
	case msgDeviceLost:
		if m.err != nil {
			return fmt.Sprintf("%s (%v)", name, m.err)
		}
	case msgDeviceAway:
		if m.cause != nil {
			return fmt.Sprintf("%s (%v)", name, m.cause)
		}
	}
	return name
}

// describeWork says what a piece of work is, for the trace.
func describeWork(w work) string {
	switch w := w.(type) {
	case actWork:
		return "act " + w.a.String()
	case planWork:
		if w.call == 0 {
			return "look at the screen"
		}
		return fmt.Sprintf("look and ask the model (call %d)", w.call)
	case stableWork:
		return "wait for the screen to settle"
	default:
		return fmt.Sprintf("%T", w)
	}
}
