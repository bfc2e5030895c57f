package backend

import (
	"context"
	"errors"
	"sync/atomic"

	"tandem/devices/desktop/host"
	"tandem/engine"
	"tandem/engine/action"
)

// A run on this computer shares the mouse and keyboard with the person.
// Their hand on them is a take-over, as a click on the mirror is: the
// driver stops the agent at once (it never fights a human for the
// pointer) and signals, and the run goes to Manual (Run.TakeOver), so
// the window and the terminal offer Hand back. While they drive, every
// click, drag, scroll and key they make with their own hands is theirs on
// the record: the driver reports it (PersonActs) and it goes through the
// input manager as an input already made (Input.Made), recorded with the
// screens around it. Handing back first records what the driver still
// holds (FlushActs: the text being typed), so the model is told all of it.
// The stop hotkey stops the run.

// desktopGuard is the guard of one run on one display.
type desktopGuard struct {
	drv    host.Driver
	device string
	hand   func(ctx context.Context, id string, in Input) (Outcome, error)

	flushes chan chan struct{}
	pending []action.Action // acts made before the run reached Manual
}

func newDesktopGuard(drv host.Driver, device string, hand func(context.Context, string, Input) (Outcome, error)) *desktopGuard {
	return &desktopGuard{drv: drv, device: device, hand: hand, flushes: make(chan chan struct{})}
}

// flush records the acts the driver still holds; the run's BeforeHandBack.
func (g *desktopGuard) flush(ctx context.Context) {
	done := make(chan struct{})
	select {
	case g.flushes <- done:
	case <-ctx.Done():
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// start watches the driver's signals for run until it ends.
func (g *desktopGuard) start(ctx context.Context, run *engine.Run) {
	// states wakes the guard on a state change; afterPerson says the run
	// went back to planning after the person (hand back, resume, an
	// answer): the driver may drive again.
	states := make(chan struct{}, 1)
	var afterPerson atomic.Bool
	cancel := run.Subscribe(engine.EmitterFunc(func(e engine.Event) {
		if e.State == nil {
			return
		}
		if e.State.State == engine.Planning && (e.State.From == engine.Paused || e.State.From == engine.Manual || e.State.From == engine.WaitingForUser) {
			afterPerson.Store(true)
		}
		select {
		case states <- struct{}{}:
		default:
		}
	}))
	go func() {
		defer cancel()
		for {
			select {
			case <-run.Done():
				return
			case <-g.drv.Takeover():
				g.takeOver(ctx, run)
			case a := <-g.drv.PersonActs():
				g.pending = append(g.pending, a)
				g.record(ctx, run)
			case done := <-g.flushes:
				if acts, err := g.drv.FlushActs(ctx); err == nil {
					g.pending = append(g.pending, acts...)
				}
				g.record(ctx, run)
				close(done)
			case <-g.drv.StopHotkey():
				_ = run.Stop(ctx)
			case <-states:
				g.onState(ctx, run, afterPerson.Swap(false))
			}
		}
	}()
}

// takeOver makes the person's hand a take-over. One the run refuses (it is
// not acting: planning, already the person's) must not leave the driver
// halted, or every later action would fail.
func (g *desktopGuard) takeOver(ctx context.Context, run *engine.Run) {
	err := run.TakeOver(engine.Via(ctx, ByHand().String()))
	var ill *engine.IllegalError
	if errors.As(err, &ill) && run.State() != engine.Manual {
		g.drv.Resume()
	}
}

// onState records acts held until Manual, and lets the driver drive again
// once the run plans after the person (hand back, resume): not when an
// action the hand interrupted ends, which the take-over follows.
func (g *desktopGuard) onState(ctx context.Context, run *engine.Run, afterPerson bool) {
	switch {
	case run.State() == engine.Manual:
		// Through any door (the mirror, T, the model asked): the driver
		// halts the agent as the hand does and reports their acts.
		g.drv.PersonDrives()
		g.record(ctx, run)
	case afterPerson:
		g.pending = nil
		g.drv.Resume()
	}
}

// record hands the person's acts to the input manager once the run is
// theirs (Manual), in order; before that they wait.
func (g *desktopGuard) record(ctx context.Context, run *engine.Run) {
	if run.State() != engine.Manual {
		return
	}
	for _, a := range g.pending {
		_, _ = g.hand(ctx, g.device, Input{Made: &a})
	}
	g.pending = nil
}
