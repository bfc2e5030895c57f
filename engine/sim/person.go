package sim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"tandem/engine"
	"tandem/engine/action"
	"tandem/engine/device"
)

// person is the simulated human: at random moments it stops, pauses,
// edits the goal and the pending steps, takes over, makes inputs (through
// Tandem, and live touches that reach the phone first), hands back with a
// note and a region, confirms, denies, answers. Every command must either
// be accepted or refused with an error the UI understands (invariant 3),
// and an accepted one must leave the run where it says.
//
// Between moves it lets the world go on for a random number of steps of
// the scheduler; a command steps the world until it is answered.
type person struct {
	chk   *checker
	rng   *tape
	world *engine.Scheduler
	phone *phone
	run   *engine.Run
	// resume reopens a crashed run from a copy of its record (nil: this
	// seed does not crash).
	resume  func(dir string) (*engine.Run, error)
	crashes int
}

// act makes one move. It returns false once the run has ended, or once an
// invariant broke (what follows would only lengthen the reproduction).
func (p *person) act() bool {
	for i := p.rng.IntN(30); i > 0 && p.world.Step(); i-- {
	}
	snap := p.run.Snapshot()
	if snap.State.Terminal() || p.chk.failed() {
		return false
	}
	name, cmd := p.choose(snap)
	if cmd == nil {
		return true
	}
	p.chk.log("person: %s (seen %s)", name, snap.State)
	p.chk.inCmd = true
	err := cmd(context.Background())
	p.chk.inCmd = false
	p.judge(name, err)
	return true
}

func (p *person) judge(name string, err error) {
	var ill *engine.IllegalError
	switch {
	case err == nil:
	case errors.As(err, &ill), errors.Is(err, engine.ErrFinished), errors.Is(err, engine.ErrBusy),
		errors.Is(err, device.ErrGone): // a person's input on a phone that went away
		p.chk.log("person: %s refused: %v", name, err)
	case errors.Is(err, engine.ErrStalled):
		p.chk.fail("invariant 3: %s hung: %v", name, err)
	default:
		p.chk.fail("invariant 3: %s failed with an error that is neither a refusal nor an end: %v", name, err)
	}
	if err != nil {
		return
	}
	st := p.run.Snapshot().State
	switch name {
	case "pause":
		p.chk.check(st == engine.Paused || st.Terminal(), "invariant 3: pause returned in %s", st)
	case "take_over":
		p.chk.check(st == engine.Manual || st.Terminal(), "invariant 3: take over returned in %s", st)
	case "stop":
		p.chk.check(st.Terminal(), "invariant 3: stop returned in %s", st)
	}
}

type command func(context.Context) error

// choose picks a move that fits what the person sees (with some moves that
// do not fit, which the run must refuse).
func (p *person) choose(s engine.Snapshot) (string, command) {
	k := p.rng.IntN(100)
	if k < 2 {
		return "stop", p.stop
	}
	if k == 2 && p.resume != nil {
		return "crash", p.crash
	}
	switch s.State {
	case engine.WaitingForUser:
		return p.chooseAnswer(s, k)
	case engine.Manual:
		return p.chooseManual(k)
	case engine.Paused:
		return p.choosePaused(k)
	case engine.Idle, engine.Planning, engine.Executing, engine.WaitingForStability, engine.Done, engine.Failed, engine.Stopped:
		return p.chooseRunning(k)
	}
	return p.chooseRunning(k) // not a state
}

// chooseAnswer answers the run's request (or takes over instead).
func (p *person) chooseAnswer(s engine.Snapshot, k int) (string, command) {
	run := p.run
	if s.Request == nil {
		return "", nil
	}
	switch {
	case k < 50 && s.Request.Kind == engine.AskConfirm && s.Request.Action != nil:
		a := *s.Request.Action
		return "confirm", func(ctx context.Context) error {
			p.chk.setExpect(nil)
			p.chk.setConfirmed(&a)
			err := run.Confirm(ctx)
			if err != nil {
				p.chk.setConfirmed(nil)
			}
			return err
		}
	case k < 65:
		return "deny", func(ctx context.Context) error { p.chk.setExpect(nil); return run.Deny(ctx, "no") }
	case k < 80:
		return "answer", func(ctx context.Context) error { p.chk.setExpect(nil); return run.Answer(ctx, "the first one") }
	case k < 90:
		return "resume", p.plain(run.Resume)
	}
	return "take_over", p.plain(run.TakeOver)
}

// chooseManual makes an input on the phone or hands back.
func (p *person) chooseManual(k int) (string, command) {
	r, run := p.rng, p.run
	switch {
	case k < 45:
		x, y := inThird(r, 0)
		a := action.Action{Type: action.Tap, X: x, Y: y}
		return "input " + a.String(), func(ctx context.Context) error { return run.Input(ctx, a) }
	case k < 55:
		return "input_done", p.plain(func(ctx context.Context) error {
			a := action.Action{Type: action.Key, Key: "back"}
			p.phone.touch(a) // a live touch reaches the phone first
			err := run.InputDone(ctx, a)
			if err != nil {
				p.chk.notTheRuns(a) // refused: the person's touch with no run
			}
			return err
		})
	}
	reg := &engine.Region{X1: 2, Y1: 2, X2: screenW / 2, Y2: screenH / 2}
	return "hand_back", p.plain(func(ctx context.Context) error {
		// Expected before the call: the loop starts the next model
		// call before HandBack returns.
		p.chk.expectHandBack(&handBack{note: "did it", region: *reg})
		err := run.HandBack(ctx, "did it", reg)
		p.chk.handBackReturned(err == nil)
		return err
	})
}

// choosePaused resumes, edits the steps or the goal, or takes over.
func (p *person) choosePaused(k int) (string, command) {
	r, run := p.rng, p.run
	switch {
	case k < 30:
		return "resume", p.resumeAfterEdit
	case k < 50:
		x, y := inThird(r, 0)
		acts := []action.Action{{Type: action.Tap, X: x, Y: y}}
		return "edit_pending", func(ctx context.Context) error {
			// Expected before the call: a device coming back may run
			// the edited step before EditPending has returned; whether
			// the edit counts is known when it returns.
			p.chk.expectEdit(&acts[0])
			err := run.EditPending(ctx, acts)
			p.chk.editReturned(err == nil)
			return err
		}
	case k < 60:
		return "edit_goal", func(ctx context.Context) error { return run.EditGoal(ctx, "count to ten") }
	case k < 80:
		return "take_over", p.plain(run.TakeOver)
	}
	return "", nil
}

// chooseRunning interrupts a working run (or does something out of place,
// which the run must refuse).
func (p *person) chooseRunning(k int) (string, command) {
	r, run := p.rng, p.run
	switch {
	case k < 12:
		return "pause", p.plain(run.Pause)
	case k < 18:
		return "take_over", p.plain(run.TakeOver)
	case k < 22:
		n := r.IntN(3)
		return fmt.Sprintf("stop_gracefully(%d)", n), func(ctx context.Context) error {
			p.chk.setExpect(nil)
			p.chk.setGraceN(n)
			return run.StopGracefully(ctx, n)
		}
	case k < 25:
		return "edit_goal", p.plain(func(ctx context.Context) error { return run.EditGoal(ctx, "count to five") })
	case k < 28:
		return "deny (out of place)", p.plain(func(ctx context.Context) error { return run.Deny(ctx, "no") })
	}
	return "", nil
}

// plain wraps a command that voids what an earlier edit expected.
func (p *person) plain(f func(context.Context) error) command {
	return func(ctx context.Context) error {
		p.chk.setExpect(nil)
		return f(ctx)
	}
}

// resumeAfterEdit continues a paused run; an edit made while paused keeps
// its expectation (it must be what runs next).
func (p *person) resumeAfterEdit(ctx context.Context) error { return p.run.Resume(ctx) }

// crash is the app dying at this moment: its record is copied as it is on
// disk now (an action on its way not yet in it, and, as the tape says, its
// last line lost or torn in half), the old run goes nowhere any more, and
// the person resumes the copy from History. A copy that holds the run's
// end, or nothing yet, has nothing to resume.
func (p *person) crash(ctx context.Context) error {
	p.crashes++
	dst := fmt.Sprintf("%s-crash%d", p.run.Dir(), p.crashes)
	if err := os.CopyFS(dst, os.DirFS(p.run.Dir())); err != nil {
		return fmt.Errorf("copying the record: %w", err)
	}
	if err := tear(filepath.Join(dst, "record.jsonl"), p.rng.IntN(3)); err != nil {
		return fmt.Errorf("tearing the copied record: %w", err)
	}
	_ = p.run.Stop(ctx)
	if _, err := p.run.Wait(ctx); err != nil {
		return err
	}
	kept := 0
	if entries, _, err := engine.ReadRecord(dst); err == nil {
		kept = len(entries)
	}
	r, err := p.resume(dst)
	if errors.Is(err, engine.ErrEnded) || errors.Is(err, engine.ErrNoRecord) {
		return engine.ErrFinished // nothing to resume: it had ended, or died before its first line reached the disk
	}
	if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	p.chk.resumed(r, kept)
	p.run = r
	return r.Start(ctx)
}

// tear cuts the record's last line: how 0 leaves it whole, 1 drops it, 2
// cuts it in half (the app died while writing it).
func tear(path string, how int) error {
	if how == 0 {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return err
	}
	start := bytes.LastIndexByte(b[:len(b)-1], '\n') + 1
	cut := start
	if how == 2 {
		cut += (len(b) - start) / 2
	}
	return os.Truncate(path, int64(cut))
}

func (p *person) stop(ctx context.Context) error {
	p.chk.setExpect(nil)
	err := p.run.Stop(ctx)
	if err == nil {
		p.chk.stopReturned.Store(true)
	}
	return err
}
