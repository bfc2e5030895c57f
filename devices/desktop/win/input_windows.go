//go:build windows

package win

import (
	"context"
	"fmt"
	"image"
	"time"

	"github.com/go-vgo/robotgo"

	"tandem/devices/desktop"
	"tandem/engine/action"
	"tandem/engine/device"
)

// Timings of composite actions, as on X11.
const (
	defaultLongPress = 800 * time.Millisecond
	defaultDrag      = 400 * time.Millisecond
	dragStep         = 16 * time.Millisecond
	doubleGap        = 60 * time.Millisecond
)

// Do performs one action. Invalid actions wrap action.ErrInvalid, actions a
// desktop cannot do wrap device.ErrUnsupported, points on Tandem's own
// windows give desktop.ErrOwnWindow, and after the person took over or
// pressed the stop hotkey every action returns desktop.ErrTakenOver or
// desktop.ErrStopped until Resume.
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
	p := desktop.ToScreen(d.bounds, d.info.Screen, a.X, a.Y)
	if a.Type.Pointed() {
		if err := d.excluded(p); err != nil {
			return err
		}
	}
	var keys desktop.Chord
	switch a.Type {
	case action.Key:
		k, err := desktop.NormKey(a.Key)
		if err != nil {
			return err
		}
		keys = desktop.Chord{Key: k}
	case action.Hotkey:
		c, err := desktop.ParseChord(a.Keys)
		if err != nil {
			return err
		}
		keys = c
	}
	if err := d.arm(ctx); err != nil {
		return err
	}
	switch a.Type {
	case action.Tap:
		return d.click(ctx, p, "left", 1)
	case action.DoubleTap:
		return d.click(ctx, p, "left", 2)
	case action.RightClick:
		return d.click(ctx, p, "right", 1)
	case action.LongPress:
		return d.press(ctx, p, orDefault(a.Ms, defaultLongPress))
	case action.Drag:
		end := desktop.ToScreen(d.bounds, d.info.Screen, a.X2, a.Y2)
		if err := d.excluded(end); err != nil {
			return err
		}
		return d.drag(ctx, p, end, orDefault(a.Ms, defaultDrag))
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

func orDefault(ms int, def time.Duration) time.Duration {
	if ms <= 0 {
		return def
	}
	return time.Duration(ms) * time.Millisecond
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
			d.inj.placeLocked()
			d.inj.toggle(button, true)
			d.inj.toggle(button, false)
		}); err != nil {
			return err
		}
	}
	return nil
}

func (d *Driver) press(ctx context.Context, p image.Point, hold time.Duration) error {
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
	steps := max(int(dur/dragStep), 4)
	for i := 1; i <= steps; i++ {
		if err := d.inj.sleep(ctx, dur/time.Duration(steps)); err != nil {
			return err
		}
		q := image.Pt(from.X+(to.X-from.X)*i/steps, from.Y+(to.Y-from.Y)*i/steps)
		step := d.inj.glide
		if i == steps {
			step = d.inj.move // the end exactly, as SetCursorPos places it
		}
		if err := step(ctx, q); err != nil {
			return err
		}
	}
	return d.inj.button(ctx, "left", false)
}

func (d *Driver) tap(ctx context.Context, c desktop.Chord) error {
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

// typeText sends each character as Unicode key events (newline and tab as
// their keys), so any script types without the clipboard and a halt stops
// typing between two characters.
func (d *Driver) typeText(ctx context.Context, text string, submit bool) error {
	for _, r := range text {
		var err error
		switch r {
		case '\r':
			continue
		case '\n':
			err = d.tap(ctx, desktop.Chord{Key: "enter"})
		case '\t':
			err = d.tap(ctx, desktop.Chord{Key: "tab"})
		default:
			err = d.inj.run(ctx, func() {
				for _, u := range utf16Units(r) {
					robotgo.UnicodeType(uint32(u))
				}
			})
		}
		if err != nil {
			return err
		}
	}
	if submit {
		return d.tap(ctx, desktop.Chord{Key: "enter"})
	}
	return nil
}
