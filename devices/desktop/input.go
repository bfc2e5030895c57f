package desktop

import (
	"context"
	"errors"
	"fmt"
	"image"
	"time"

	"github.com/go-vgo/robotgo"

	"tandem/engine/action"
	"tandem/engine/device"
)

// Timings of composite actions.
const (
	defaultLongPress = 800 * time.Millisecond
	defaultDrag      = 400 * time.Millisecond
	dragStep         = 16 * time.Millisecond // one intermediate move per frame
	doubleGap        = 60 * time.Millisecond // well inside every desktop's double-click time
	pasteTimeout     = 10 * time.Second      // a busy window may take seconds to handle the paste key
	// No clipboard request for settleQuiet means the watchers have fetched
	// the new clipboard. 60 ms let a loaded machine's late eager fetch pass
	// for the paste's own, and the person's clipboard came back before the
	// window read ours (an empty paste); 250 ms holds on a busy machine.
	settleQuiet = 250 * time.Millisecond
	settleLimit = 1500 * time.Millisecond // however busy the watchers are
)

// Do performs one action. Invalid actions wrap action.ErrInvalid, actions a
// desktop cannot do wrap device.ErrUnsupported, points on Tandem's own
// windows give ErrOwnWindow, and after the person took over or pressed the
// stop hotkey every action returns ErrTakenOver or ErrStopped until Resume.
func (d *Driver) Do(ctx context.Context, a action.Action) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := a.Validate(d.info.Screen); err != nil {
		return err
	}
	if !d.caps.Supports(a.Type) {
		return fmt.Errorf("%w: %s on a desktop", device.ErrUnsupported, a.Type)
	}
	d.doMu.Lock()
	defer d.doMu.Unlock()
	if a.Type == action.Wait {
		return d.inj.sleep(ctx, time.Duration(a.Ms)*time.Millisecond)
	}
	p := d.toScreen(a.X, a.Y)
	if a.Type.Pointed() {
		if err := d.excluded(p); err != nil {
			return err
		}
	}
	var keys chord
	switch a.Type {
	case action.Key:
		k, err := normKey(a.Key)
		if err != nil {
			return err
		}
		keys = chord{Key: k}
	case action.Hotkey:
		c, err := parseChord(a.Keys)
		if err != nil {
			return err
		}
		keys = c
	}
	if err := d.arm(ctx); err != nil {
		return err
	}
	defer d.disarm()
	switch a.Type {
	case action.Tap:
		return d.click(ctx, p, "left", 1)
	case action.DoubleTap:
		return d.click(ctx, p, "left", 2)
	case action.RightClick:
		return d.click(ctx, p, "right", 1)
	case action.LongPress:
		ms := time.Duration(a.Ms) * time.Millisecond
		if ms == 0 {
			ms = defaultLongPress
		}
		return d.press(ctx, p, ms)
	case action.Drag:
		end := d.toScreen(a.X2, a.Y2)
		if err := d.excluded(end); err != nil {
			return err
		}
		ms := time.Duration(a.Ms) * time.Millisecond
		if ms == 0 {
			ms = defaultDrag
		}
		return d.drag(ctx, p, end, ms)
	case action.Scroll:
		if err := d.inj.move(ctx, p); err != nil {
			return err
		}
		return d.inj.run(ctx, func() { robotgo.ScrollDir(d.opts.ScrollClicks, a.Direction) })
	case action.TypeText:
		return d.typeText(ctx, a.Text, a.Submit)
	case action.Key, action.Hotkey:
		return d.tap(ctx, keys)
	}
	return fmt.Errorf("%w: %s on a desktop", device.ErrUnsupported, a.Type)
}

func (d *Driver) click(ctx context.Context, p image.Point, button string, n int) error {
	if err := d.inj.move(ctx, p); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			if err := d.inj.sleep(ctx, doubleGap); err != nil {
				return err
			}
		}
		if err := d.inj.run(ctx, func() {
			d.inj.toggle(button, true)
			d.inj.toggle(button, false)
		}); err != nil {
			return err
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
	defer d.inj.release("left")
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
	defer d.inj.release("left")
	steps := max(int(dur/dragStep), 4)
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

func (d *Driver) tap(ctx context.Context, c chord) error {
	var err error
	if runErr := d.inj.run(ctx, func() {
		mods := make([]any, len(c.Mods))
		for i, m := range c.Mods {
			mods[i] = m
		}
		err = robotgo.KeyTap(c.Key, mods...)
	}); runErr != nil {
		return runErr
	}
	if err != nil {
		return fmt.Errorf("%w: key %s: %v", device.ErrUnsupported, c, err)
	}
	return nil
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
				err = d.inj.run(ctx, func() { robotgo.UnicodeType(uint32(r)) })
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

// typable reports whether robotgo can type every rune with the keyboard.
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
	d.inj.mu.Lock()
	h := d.inj.haltCh
	d.inj.mu.Unlock()
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
