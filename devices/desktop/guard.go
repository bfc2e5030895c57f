package desktop

import (
	"context"
	"errors"
	"fmt"
	"image"
	"time"

	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"
)

// injector is a driver's hands and guard: whether the agent may drive,
// whether it is acting now (armed), the buttons it holds. It lives under
// its X server's lock (s.mu), with the server's one record of where Tandem
// put the pointer and what it injected, so every injection is checked
// against the person's hand and no driver mistakes another's input for it.
type injector struct {
	s      *xserver
	armed  bool          // the agent is acting: the person's hand means takeover
	halt   error         // latched ErrTakenOver / ErrStopped / ErrClosed; nil while driving is allowed
	haltCh chan struct{} // closed when halt is set
	held   map[byte]bool // mouse buttons this driver holds down
	paste  chord
	// person: halted by the person's hand; what they do is reported
	// (PersonActs) until Resume.
	person bool
	// The stream's view (RECORD): armed between this driver's arm and
	// disarm markers, in the server's order; epoch counts Resumes, so a
	// late event of an earlier action cannot halt a later one.
	sArmed bool
	sEpoch uint64
	epoch  uint64
	// personAct: the action under way is the person's, made through
	// Tandem (PersonDo): it runs though the agent is halted.
	personAct bool
	// Without RECORD: what was already held when the guard armed.
	baseBtn uint16
	baseKey [32]byte
	// after is the clock the agent's waits use (time.After unless a test
	// makes this process wake late, as a busy machine does).
	after func(time.Duration) <-chan time.Time
	// took latches a takeover and signals it; s.mu is held.
	took func(why string)
}

const buttonMask = xproto.KeyButMaskButton1 | xproto.KeyButMaskButton2 | xproto.KeyButMaskButton3 |
	xproto.KeyButMaskButton4 | xproto.KeyButMaskButton5

func (j *injector) init(s *xserver, paste chord) {
	j.s = s
	j.haltCh = make(chan struct{})
	j.held = map[byte]bool{}
	j.paste = paste
	j.after = time.After
}

// run performs one injection f unless the agent has been halted. Before it
// injects, it checks the pointer is where Tandem left it: a hand that moved
// it a moment ago means the person took over.
func (j *injector) run(ctx context.Context, f func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	j.s.mu.Lock()
	defer j.s.mu.Unlock()
	if j.halt != nil && (!j.personAct || errors.Is(j.halt, ErrClosed)) {
		return j.halt
	}
	if j.armed {
		if why := j.checkLocked(); why != "" {
			j.took(why)
			return j.halt
		}
	}
	return f()
}

// move puts the pointer on p, unless a hand moved it since Tandem last did.
func (j *injector) move(ctx context.Context, p image.Point) error {
	return j.run(ctx, func() error {
		from := j.s.exp
		moved, err := j.s.warpLocked(p)
		if err != nil || moved {
			return err
		}
		j.took(fmt.Sprintf("the pointer left %d,%d, where the agent had put it", from.X, from.Y))
		return j.halt
	})
}

// buttons are the core protocol's pointer buttons.
var buttons = map[string]byte{"left": 1, "center": 2, "right": 3}

func (j *injector) button(ctx context.Context, b string, down bool) error {
	return j.run(ctx, func() error { return j.toggleLocked(buttons[b], down) })
}

// toggleLocked presses or releases button n; s.mu is held.
func (j *injector) toggleLocked(n byte, down bool) error {
	if err := j.toggleAfterLocked(n, down, 0).Check(); err != nil {
		return fmt.Errorf("send input: %w", err)
	}
	return nil
}

// toggleAfterLocked sends the press or release of button n, for the server
// to make delay ms after it reads it, and returns without waiting for it;
// s.mu is held.
func (j *injector) toggleAfterLocked(n byte, down bool, delay int) xtest.FakeInputCookie {
	typ := byte(xproto.ButtonRelease)
	if down {
		j.held[n] = true
		typ = xproto.ButtonPress
	} else {
		delete(j.held, n)
	}
	return j.s.sendFakeLocked(typ, n, uint32(delay))
}

// releaseAll lets go of the buttons the agent holds, even after a halt: a
// button the agent pressed must not stay down under the person's hand. It
// is the only input sent after a halt.
func (j *injector) releaseAll() {
	j.s.mu.Lock()
	defer j.s.mu.Unlock()
	for n := range j.held {
		_ = j.toggleLocked(n, false)
	}
}

// sleep waits d, returning early with the halt or ctx error.
func (j *injector) sleep(ctx context.Context, d time.Duration) error {
	h := j.haltChan()
	select {
	case <-j.after(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-h:
		return j.halted()
	}
}

// haltLocked latches err; s.mu is held. It reports whether this call set it.
func (j *injector) haltLocked(err error) bool {
	if j.halt != nil {
		return false
	}
	j.halt = err
	j.armed = false
	close(j.haltCh)
	j.s.markLocked(func() { j.sArmed = false })
	return true
}

// resume lets the agent drive again; the person's acts are no longer
// reported.
func (j *injector) resume() {
	j.s.mu.Lock()
	defer j.s.mu.Unlock()
	if j.halt != nil && !errors.Is(j.halt, ErrClosed) {
		j.halt = nil
		j.haltCh = make(chan struct{})
	}
	j.armed, j.person = false, false
	j.epoch++
}

// haltChan is closed when the agent is halted; nil (never) while the
// person's own action runs.
func (j *injector) haltChan() <-chan struct{} {
	j.s.mu.Lock()
	defer j.s.mu.Unlock()
	if j.personAct {
		return nil
	}
	return j.haltCh
}

func (j *injector) halted() error {
	j.s.mu.Lock()
	defer j.s.mu.Unlock()
	return j.halt
}

// arm starts watching for the person as an action begins, from the
// pointer's place now: what the person did before is theirs, not a takeover.
func (d *Driver) arm(ctx context.Context) error {
	j := &d.inj
	j.s.mu.Lock()
	defer j.s.mu.Unlock()
	if j.halt != nil {
		return j.halt
	}
	if j.armed {
		return nil
	}
	at, mask, err := j.s.pointerLocked()
	if err != nil {
		return err
	}
	j.s.exp = at
	if j.s.rec != nil {
		epoch := j.epoch
		j.s.markLocked(func() { j.sArmed, j.sEpoch = true, epoch })
	} else {
		km, err := xproto.QueryKeymap(j.s.c).Reply()
		if err != nil {
			return fmt.Errorf("query keymap: %w", err)
		}
		j.baseBtn = mask & buttonMask
		copy(j.baseKey[:], km.Keys)
	}
	j.armed = true
	return ctx.Err()
}

// fromHere starts the person's own action (PersonDo) from the pointer's
// place now, unguarded.
func (d *Driver) fromHere() error {
	s := d.inj.s
	s.mu.Lock()
	defer s.mu.Unlock()
	at, _, err := s.pointerLocked()
	s.exp = at
	return err
}

// disarm stops watching once an action is done: the person's own mouse and
// keyboard take over only while the agent acts. Between actions the person
// may use the computer, above all Tandem's own confirmation dialog: moving
// the mouse to Allow latched a takeover the run could not honour, and every
// later action failed (issue 19). Events up to the disarm marker still
// count: the stream may show a hand during the action's last injection
// after the action returned, and it is a takeover still.
func (d *Driver) disarm() {
	j := &d.inj
	j.s.mu.Lock()
	defer j.s.mu.Unlock()
	if j.halt != nil || !j.armed {
		return
	}
	if why := j.checkLocked(); why != "" {
		j.took(why)
		return
	}
	j.armed = false
	j.s.markLocked(func() { j.sArmed = false })
}

// checkLocked says how the person's hand shows now, "" when it does not:
// the pointer away from where Tandem left it and, without RECORD to show
// every event, a button or key down that was not when the agent began.
func (j *injector) checkLocked() string {
	at, mask, err := j.s.pointerLocked()
	if err != nil {
		return ""
	}
	if at != j.s.exp {
		return fmt.Sprintf("pointer moved to %d,%d (the agent left it at %d,%d)", at.X, at.Y, j.s.exp.X, j.s.exp.Y)
	}
	if j.s.rec != nil {
		return ""
	}
	var agent uint16
	for n := range j.held {
		agent |= xproto.KeyButMaskButton1 << (n - 1)
	}
	btn := mask & buttonMask
	j.baseBtn &= btn
	why := ""
	if btn != j.baseBtn|agent {
		why = "a mouse button was pressed"
	}
	km, err := xproto.QueryKeymap(j.s.c).Reply()
	if err != nil {
		return why
	}
	for i := range j.baseKey {
		j.baseKey[i] &= km.Keys[i]
		if why == "" && km.Keys[i]&^j.baseKey[i] != 0 {
			why = "a key was pressed"
		}
	}
	return why
}

// tookLocked latches a takeover and signals Takeover; s.mu is held. From
// then on the person's acts are reported.
func (d *Driver) tookLocked(why string) {
	if d.inj.haltLocked(fmt.Errorf("%w: %s", ErrTakenOver, why)) {
		d.inj.person = true
		select {
		case d.takeover <- struct{}{}:
		default:
		}
	}
}

// personEventLocked takes an input event Tandem did not inject, in the
// server's order; s.mu is held. In this driver's action it is a takeover;
// while the person drives it is part of their acts.
func (d *Driver) personEventLocked(ev xevent) {
	j := &d.inj
	if d.heardStopLocked(ev) {
		go d.fireStop() // it takes s.mu, held here
	}
	if j.sArmed && d.touches(ev) {
		j.sArmed = false
		if j.sEpoch == j.epoch {
			d.tookLocked(describe(ev))
		}
	}
	if j.person {
		d.hand.push(handItem{ev: d.handEventLocked(ev)})
	}
}

// touches reports whether ev is the person's hand at work: the pointer
// moving, a button or key going down; the keys of the stop hotkey are not
// (the stop is theirs to press, and its own signal).
func (d *Driver) touches(ev xevent) bool {
	switch ev.typ {
	case xproto.MotionNotify, xproto.ButtonPress:
		return true
	case xproto.KeyPress:
		return !d.stopKeyLocked(xproto.Keycode(ev.detail))
	}
	return false
}

func describe(ev xevent) string {
	switch ev.typ {
	case xproto.MotionNotify:
		return fmt.Sprintf("the pointer moved to %d,%d", ev.root.X, ev.root.Y)
	case xproto.ButtonPress:
		return "a mouse button was pressed"
	}
	return "a key was pressed"
}

// watch samples the input state every PollInterval while the agent drives,
// on an X server without RECORD. A key tapped within one interval, or a
// wheel turn, can pass unseen there.
func (d *Driver) watch() {
	defer d.wg.Done()
	t := time.NewTicker(d.opts.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-d.quit:
			return
		case <-t.C:
		}
		j := &d.inj
		j.s.mu.Lock()
		if j.armed && j.halt == nil {
			if why := j.checkLocked(); why != "" {
				j.took(why)
			}
		}
		j.s.mu.Unlock()
	}
}

// flushInterval is how often flushStream has the server send what it
// recorded while the agent acts or the person drives.
const flushInterval = 50 * time.Millisecond

// flushStream has the X server send its recorded events every
// flushInterval while the agent acts or the person drives. The server
// sends recorded protocol only when it flushes output to some client
// (record.go, mark): a person's move or click that no client listens to,
// on a quiet server, stayed in its buffer, so a takeover during a long
// press, or the person's acts, came only with Tandem's next request. A
// GetInputFocus gives this driver's connection a reply, and the server
// flushes.
func (d *Driver) flushStream() {
	defer d.wg.Done()
	t := time.NewTicker(flushInterval)
	defer t.Stop()
	for {
		select {
		case <-d.quit:
			return
		case <-t.C:
		}
		j := &d.inj
		j.s.mu.Lock()
		busy := (j.armed && j.halt == nil) || j.person
		j.s.mu.Unlock()
		if busy {
			xproto.GetInputFocus(d.ctl) // only for the flush its reply brings
		}
	}
}
