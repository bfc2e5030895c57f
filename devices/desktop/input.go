package desktop

import (
	"context"
	"errors"
	"fmt"
	"image"
	"time"

	"slices"

	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"tandem/engine/action"
	"tandem/engine/device"
)

const (
	pasteTimeout = 10 * time.Second // a busy window may take seconds to handle the paste key
	// No clipboard request for settleQuiet means the watchers have fetched
	// the new clipboard. 60 ms let a loaded machine's late eager fetch pass
	// for the paste's own, and the person's clipboard came back before the
	// window read ours (an empty paste); 250 ms holds on a busy machine.
	settleQuiet = 250 * time.Millisecond
	settleLimit = 1500 * time.Millisecond // however busy the watchers are
)

// Do performs one action (see desktop.Act for what it refuses and when the
// person's hand counts).
func (d *Driver) Do(ctx context.Context, a action.Action) error { return d.act(ctx, a, false) }

// PersonDo performs an input the person makes through Tandem (a click or
// text on the mirror) while they drive: it runs though the agent is halted
// by their takeover, no guard watches it (the hand is theirs), and it is not
// reported on PersonActs (the run records it as it makes it).
func (d *Driver) PersonDo(ctx context.Context, a action.Action) error { return d.act(ctx, a, true) }

func (d *Driver) act(ctx context.Context, a action.Action, person bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select { // one action at a time on this X server's pointer and keyboard
	case d.inj.s.do <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-d.inj.s.do }()
	if person {
		d.inj.s.mu.Lock()
		d.inj.personAct = true
		d.inj.s.mu.Unlock()
		defer func() {
			d.inj.s.mu.Lock()
			d.inj.personAct = false
			d.inj.s.mu.Unlock()
		}()
	}
	return Act(ctx, a, d.info.Screen, d.caps, hands{d, person})
}

// hands are the X11 driver's primitives as Act uses them; person: for the
// person's own input (PersonDo), unguarded.
type hands struct {
	d      *Driver
	person bool
}

func (h hands) Click(ctx context.Context, p image.Point, button string, n int) error {
	return h.d.click(ctx, p, button, n)
}
func (h hands) Press(ctx context.Context, p image.Point, hold time.Duration) error {
	return h.d.press(ctx, p, hold)
}
func (h hands) Drag(ctx context.Context, from, to image.Point, dur time.Duration) error {
	return h.d.drag(ctx, from, to, dur)
}
func (h hands) Scroll(ctx context.Context, p image.Point, direction string) error {
	if err := h.d.inj.move(ctx, p); err != nil {
		return err
	}
	return h.d.inj.run(ctx, func() error {
		for i := 0; i < h.d.opts.ScrollClicks; i++ {
			if err := h.d.inj.toggleLocked(wheelButtons[direction], true); err != nil {
				return err
			}
			if err := h.d.inj.toggleLocked(wheelButtons[direction], false); err != nil {
				return err
			}
		}
		return nil
	})
}
func (h hands) TypeText(ctx context.Context, text string, submit bool) error {
	return h.d.typeText(ctx, text, submit)
}
func (h hands) Tap(ctx context.Context, c Chord) error           { return h.d.tap(ctx, c) }
func (h hands) Sleep(ctx context.Context, t time.Duration) error { return h.d.inj.sleep(ctx, t) }
func (h hands) ToScreen(x, y int) image.Point                    { return h.d.toScreen(x, y) }
func (h hands) Excluded(p image.Point) error                     { return h.d.excluded(p) }
func (h hands) Arm(ctx context.Context) error {
	if h.person {
		return h.d.fromHere()
	}
	return h.d.arm(ctx)
}

func (h hands) Disarm() {
	if !h.person {
		h.d.disarm()
	}
}

// click clicks button n times at p. Every click goes to the X server in
// one go, each press after the first asking XTEST to wait a millisecond
// (the request's delay, which the server keeps by holding this client's
// requests until then: xserver Xext/xtest.c, ProcXTestFakeInput). So the
// server spaces them, 1 ms and distinct timestamps apart (Chromium takes
// two presses with one timestamp for one press: ui/events/event.cc,
// IsRepeatedClickTimes), and however late this process runs on a busy
// machine, a double tap stays inside every double-click time; a wait here
// between the clicks made two single clicks when the process woke late.
// The guard checks the person's hand once, before the first click; the
// person has that millisecond to come between the clicks, where the wait
// gave them 60 ms (and the guard looked again before the second).
func (d *Driver) click(ctx context.Context, p image.Point, button string, n int) error {
	if err := d.inj.move(ctx, p); err != nil {
		return err
	}
	var sent []xtest.FakeInputCookie
	if err := d.inj.run(ctx, func() error {
		for i := range n {
			sent = append(sent, d.inj.toggleAfterLocked(buttons[button], true, min(i, 1)),
				d.inj.toggleAfterLocked(buttons[button], false, 0))
		}
		return nil
	}); err != nil {
		return err
	}
	for _, c := range sent {
		if err := c.Check(); err != nil {
			// A press the server took without its release must not stay
			// down under the person's hand (a release of a button not down
			// does nothing).
			d.inj.s.mu.Lock()
			_ = d.inj.toggleLocked(buttons[button], false)
			d.inj.s.mu.Unlock()
			return fmt.Errorf("send input: %w", err)
		}
	}
	return nil
}

func (d *Driver) press(ctx context.Context, p image.Point, hold time.Duration) (err error) {
	if err := d.inj.move(ctx, p); err != nil {
		return err
	}
	if err := d.inj.button(ctx, "left", true); err != nil {
		return err
	}
	defer d.inj.releaseAll()
	return d.inj.sleep(ctx, hold)
}

// drag presses at from, moves to to in one step per frame over dur, and
// releases there. A halt between two steps ends it with the button released.
func (d *Driver) drag(ctx context.Context, from, to image.Point, dur time.Duration) error {
	if err := d.inj.move(ctx, from); err != nil {
		return err
	}
	if err := d.inj.button(ctx, "left", true); err != nil {
		return err
	}
	defer d.inj.releaseAll()
	steps := max(int(dur/DragStep), 4)
	for i := 1; i <= steps; i++ {
		if err := d.inj.sleep(ctx, dur/time.Duration(steps)); err != nil {
			return err
		}
		q := image.Pt(from.X+(to.X-from.X)*i/steps, from.Y+(to.Y-from.Y)*i/steps)
		if err := d.inj.move(ctx, q); err != nil {
			return err
		}
	}
	return d.inj.button(ctx, "left", false)
}

// wheelButtons are the core protocol's wheel buttons by direction.
var wheelButtons = map[string]byte{"up": 4, "down": 5, "left": 6, "right": 7}

func (d *Driver) tap(ctx context.Context, c chord) error {
	return d.inj.run(ctx, func() error { return d.inj.tapLocked(c) })
}

// tapLocked presses the chord's modifiers, taps its key (with Shift when
// the key's character needs it) and lets go in reverse; s.mu is held.
func (j *injector) tapLocked(c chord) error {
	k, err := j.s.keymapLocked()
	if err != nil {
		return err
	}
	var down []xproto.Keycode
	for _, m := range c.Mods {
		code, _, err := k.keyFor(m)
		if err != nil {
			return err
		}
		down = append(down, code)
	}
	code, shift, err := k.keyFor(c.Key)
	if err != nil {
		return err
	}
	if shift && !slices.Contains(c.Mods, "shift") {
		sh, _, err := k.keyFor("shift")
		if err != nil {
			return err
		}
		down = append(down, sh)
	}
	return j.pressLocked(append(down, code))
}

// typeLocked types one character the keyboard has (keymap.types said so).
func (j *injector) typeLocked(r rune) error {
	k, err := j.s.keymapLocked()
	if err != nil {
		return err
	}
	code, shift, ok := k.code(xproto.Keysym(r))
	if !ok {
		return fmt.Errorf("%w: no key of this keyboard types %q", device.ErrUnsupported, r)
	}
	keys := []xproto.Keycode{code}
	if shift {
		sh, _, err := k.keyFor("shift")
		if err != nil {
			return err
		}
		keys = []xproto.Keycode{sh, code}
	}
	return j.pressLocked(keys)
}

// pressLocked presses keys in order and releases them in reverse.
func (j *injector) pressLocked(keys []xproto.Keycode) error {
	for i, code := range keys {
		if err := j.s.fakeLocked(xproto.KeyPress, byte(code)); err != nil {
			for _, up := range slices.Backward(keys[:i]) {
				_ = j.s.fakeLocked(xproto.KeyRelease, byte(up))
			}
			return err
		}
	}
	for _, code := range slices.Backward(keys) {
		if err := j.s.fakeLocked(xproto.KeyRelease, byte(code)); err != nil {
			return err
		}
	}
	return nil
}

// keyboardTypes reports whether the keyboard types every character of
// text key by key (see keymap.types).
func (d *Driver) keyboardTypes(text string) bool {
	s := d.inj.s
	s.mu.Lock()
	defer s.mu.Unlock()
	k, err := s.keymapLocked()
	return err == nil && k.types(text)
}

// typeText types ASCII key by key (a halt can stop it between two keys) and
// pastes anything else whole, as well as ASCII the keyboard layout would
// garble (see layout.go).
func (d *Driver) typeText(ctx context.Context, text string, submit bool) error {
	if typable(text) && d.keyboardTypes(text) {
		for _, r := range text {
			var err error
			switch r {
			case '\n':
				err = d.tap(ctx, chord{Key: "enter"})
			case '\t':
				err = d.tap(ctx, chord{Key: "tab"})
			default:
				err = d.inj.run(ctx, func() error { return d.inj.typeLocked(r) })
			}
			if err != nil {
				return err
			}
		}
	} else if err := d.paste(ctx, text); err != nil {
		return err
	}
	if submit {
		return d.tap(ctx, chord{Key: "enter"})
	}
	return nil
}

// typable reports whether every rune is one a keyboard may type key by key.
func typable(s string) bool {
	for _, r := range s {
		if (r < ' ' || r > '~') && r != '\n' && r != '\t' {
			return false
		}
	}
	return true
}

// paste puts text on the clipboard, pastes it into the focused window, waits
// until the window fetched it, then restores the person's clipboard.
//
// "Fetched" means a data transfer after the paste keys: Chromium (and other
// clipboard watchers) fetch a new clipboard as soon as its owner changes, so
// the driver first lets that settle, then counts only later transfers. An app
// that pastes from what it fetched early never asks again; if someone did
// fetch the text, the wait ends at pasteTimeout without an error.
func (d *Driver) paste(ctx context.Context, text string) (err error) {
	old, had, wasText, err := d.clip.read(ctx)
	if err != nil {
		return err
	}
	before := d.clip.deliveries()
	if err := d.clip.own([]byte(text)); err != nil {
		return err
	}
	defer func() {
		switch {
		case had && wasText:
			if e := d.clip.own(old); e != nil && err == nil {
				err = fmt.Errorf("restore clipboard: %w", e)
			}
		default:
			d.clip.disown()
		}
	}()
	if err := d.clip.settle(ctx, settleQuiet, settleLimit); err != nil {
		return err
	}
	prefetched := d.clip.deliveries() > before
	after := d.clip.deliveries()
	if err := d.tap(ctx, d.inj.paste); err != nil {
		return err
	}
	h := d.inj.haltChan()
	err = d.clip.waitDelivery(ctx, after, pasteTimeout, h)
	switch {
	case errors.Is(err, ErrTakenOver):
		if e := d.inj.halted(); e != nil {
			return e
		}
		return err
	case errors.Is(err, errPasteTimeout) && prefetched:
		return nil
	case errors.Is(err, errPasteTimeout):
		return fmt.Errorf("%w within %v (is a text field focused?)", errPasteTimeout, pasteTimeout)
	case err != nil:
		return err
	}
	// Let the app finish its reads (Chromium asks for TARGETS again around
	// the transfer) before the owner changes back under it.
	return d.clip.settle(ctx, settleQuiet, settleLimit)
}
