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
)

// Do performs one action (see desktop.Act for what it refuses and when the
// person's hand counts).
func (d *Driver) Do(ctx context.Context, a action.Action) error { return d.act(ctx, a, false) }

// PersonDo performs an input the person makes through Tandem (the mirror)
// while they drive: it runs though the agent is halted by their takeover,
// unguarded, and is not reported on PersonActs (it is injected).
func (d *Driver) PersonDo(ctx context.Context, a action.Action) error { return d.act(ctx, a, true) }

func (d *Driver) act(ctx context.Context, a action.Action, person bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select { // one action at a time on the session's one pointer and keyboard
	case session <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-session }()
	if person {
		d.inj.mu.Lock()
		d.inj.personAct = true
		d.inj.mu.Unlock()
		defer func() {
			d.inj.mu.Lock()
			d.inj.personAct = false
			d.inj.mu.Unlock()
		}()
	}
	return desktop.Act(ctx, a, d.info.Screen, d.caps, hands{d, person})
}

// session is the one slot for an action on this desktop session's pointer
// and keyboard, shared by every driver of the process (one per monitor):
// an action's move and click must not be split by another monitor's (the
// X11 drivers share their X server's the same way).
var session = make(chan struct{}, 1)

// hands are the Win32 driver's primitives as desktop.Act uses them;
// person: for the person's own input (PersonDo), unguarded.
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
	return h.d.inj.wheel(ctx, h.d.opts.ScrollClicks, direction)
}
func (h hands) TypeText(ctx context.Context, text string, submit bool) error {
	return h.d.typeText(ctx, text, submit)
}
func (h hands) Tap(ctx context.Context, c desktop.Chord) error   { return h.d.tap(ctx, c) }
func (h hands) Sleep(ctx context.Context, t time.Duration) error { return h.d.inj.sleep(ctx, t) }
func (h hands) ToScreen(x, y int) image.Point {
	return desktop.ToScreen(h.d.bounds, h.d.info.Screen, x, y)
}
func (h hands) Excluded(p image.Point) error { return h.d.excluded(p) }

func (h hands) Arm(ctx context.Context) error {
	if h.person {
		h.d.inj.mu.Lock()
		h.d.inj.exp, _ = cursorPos()
		h.d.inj.mu.Unlock()
		return ctx.Err()
	}
	return h.d.arm(ctx)
}

func (h hands) Disarm() {
	if !h.person {
		h.d.disarm()
	}
}

// click presses and releases button n times at p, all at once (clicks: a
// double click stays one however late the thread runs). Events Windows did
// not take (another thread blocks input) are an error, never a click that
// seemed to land; a press taken without its release is released.
func (d *Driver) click(ctx context.Context, p image.Point, button string, n int) error {
	if err := d.inj.move(ctx, p); err != nil {
		return err
	}
	sent := 0
	if err := d.inj.run(ctx, func() {
		d.inj.placeLocked()
		if sent = clicks(button, n, p); sent%2 == 1 {
			d.inj.toggle(button, false)
		}
	}); err != nil {
		return err
	}
	if sent != 2*n {
		return fmt.Errorf("send input: Windows took %d of the click's %d events", sent, 2*n)
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
	steps := max(int(dur/desktop.DragStep), 4)
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
	return desktop.KeyTap(func(f func()) error { return d.inj.run(ctx, f) }, c)
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
