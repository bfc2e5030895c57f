package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// The core's random runs (core_test.go), watching the answers to the
// person's commands and the device watch, which the core's effects carry
// and the runner only performs:
//
//   - every command is answered exactly once: at once, or, when the core
//     defers it, by the effect that ends its wait; a Pause once the action
//     it waits for is done (the run Paused, or Manual when a Take over
//     came too), a Take over once it is Manual, anything by the run's end
//     (a deferred reply never answered leaves its caller stuck);
//   - the watch for a lost device lives only while the run is Paused (it
//     polls the device).
//
// Each run is stopped at its end, so every wait ends.

// replies are the commands' answers the core owes.
type replies struct {
	pending map[chan error]Trigger
}

// answer takes the core's answer on to.
func (r *replies) answer(to chan error) error {
	if _, ok := r.pending[to]; !ok {
		return fmt.Errorf("answered a command twice, or one nobody waits on")
	}
	delete(r.pending, to)
	return nil
}

// deliverTracked hands m to the core as the loop does (Run.deliver),
// following the answers.
func (c *coreRig) deliverTracked(m message, r *replies) error {
	l := c.l
	if !m.on.IsCommand() && m.on != OnManualDone && m.on != OnDropped && m.gen != l.gen {
		return nil
	}
	if m.on.IsCommand() {
		m.reply = make(chan error, 1)
		r.pending[m.reply] = m.on
	}
	c.noteResult(m)
	l.on = m.on
	err := l.turn(m)
	fx := l.take()
	c.logf("%s -> %s (err %v) fx %s", m.on, l.state, err, describeFx(fx))
	for _, f := range fx {
		if f, ok := f.(fxReply); ok {
			if err := r.answer(f.to); err != nil {
				return err
			}
		}
	}
	if m.reply != nil && !l.deferred(m.reply) {
		if err := r.answer(m.reply); err != nil {
			return fmt.Errorf("%s: %w", m.on, err)
		}
	}
	if m.on == OnManualInput && err == nil {
		c.made = append(c.made, madeInput{m.act, m.done})
	}
	if err := c.apply(m, fx); err != nil {
		return err
	}
	if m.on == OnConfirm && err == nil {
		c.asked = nil
	}
	if m.on == OnStop && err == nil {
		c.stopped = true
	}
	if err := c.checkWork(); err != nil {
		return err
	}
	return c.checkOwed(r)
}

// checkOwed: no answer is owed past the moment it was due, and the device
// watch lives only while Paused.
func (c *coreRig) checkOwed(r *replies) error {
	l := c.l
	ended := l.state.Terminal() && l.ending == nil
	for _, on := range r.pending {
		switch {
		case ended:
			return fmt.Errorf("the run ended with a %s unanswered", on)
		case on == OnPause && l.state != Executing && l.ending == nil:
			return fmt.Errorf("the action is done, the run %s, the Pause unanswered", l.state)
		case on == OnTakeOver && l.state == Manual:
			return fmt.Errorf("the person drives, the Take over unanswered")
		}
	}
	if c.watch != nil && l.state != Paused && !c.ended {
		return fmt.Errorf("the lost device's watch lives on in %s", l.state)
	}
	return nil
}

// runCoreReplies plays a random run, then stops it and lets what is on its
// way come back.
func runCoreReplies(seed uint64) (*coreRig, error) {
	const goal = "buy the cheapest one"
	c := &coreRig{l: newCore(coreEnvForTest(), goal), rng: rand.New(rand.NewPCG(seed, 51))}
	c.records = []Entry{{Kind: recStart, Goal: goal}}
	r := &replies{pending: map[chan error]Trigger{}}
	send := func(m message) error { return c.deliverTracked(m, r) }
	if err := drive(c, send); err != nil || c.ended {
		return c, err
	}
	if err := send(message{on: OnStop}); err != nil {
		return c, err
	}
	for range 20 {
		if c.ended {
			return c, nil
		}
		m, ok := c.other()
		if !ok && c.live != nil {
			m, ok = c.result(), true
		}
		if !ok {
			break
		}
		if err := send(m); err != nil {
			return c, err
		}
	}
	if !c.ended {
		return c, fmt.Errorf("the run did not end once stopped (%s)", c.l.state)
	}
	return c, nil
}

func TestCoreAnswersEveryCommand(t *testing.T) {
	runs := *coreRuns
	if testing.Short() {
		runs /= 10
	}
	for seed := range uint64(runs) {
		c, err := runCoreReplies(seed)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, strings.Join(c.trace, "\n"))
		}
	}
}
