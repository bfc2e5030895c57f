package desktop

import (
	"context"
	"fmt"
	"image"
	"time"

	"github.com/go-vgo/robotgo"

	"tandem/engine/action"
	"tandem/engine/device"
)

// Timings of composite actions, the same on every desktop.
const (
	DefaultLongPress = 800 * time.Millisecond
	DefaultDrag      = 400 * time.Millisecond
	DragStep         = 16 * time.Millisecond // one intermediate move per frame
)

// Hands are a desktop driver's own input primitives, in screen pixels, and
// its guard. Act performs a canonical action with them, so what an action
// means (which are refused, where a point lands, when the person's hand
// counts) is decided once for X11 and Windows alike.
type Hands interface {
	Click(ctx context.Context, p image.Point, button string, n int) error
	Press(ctx context.Context, p image.Point, hold time.Duration) error
	Drag(ctx context.Context, from, to image.Point, dur time.Duration) error
	Scroll(ctx context.Context, p image.Point, direction string) error
	TypeText(ctx context.Context, text string, submit bool) error
	Tap(ctx context.Context, c Chord) error
	Sleep(ctx context.Context, d time.Duration) error
	// ToScreen maps a point of the screenshot to the screen.
	ToScreen(x, y int) image.Point
	// Excluded refuses a point on Tandem's own windows (ErrOwnWindow).
	Excluded(p image.Point) error
	// Arm starts watching for the person's hand as the action begins;
	// Disarm stops once it is done: the person's own mouse and keyboard take
	// over only while the agent acts, never while Tandem's own dialog is
	// being answered between two actions (issue 19).
	Arm(ctx context.Context) error
	Disarm()
}

// Act performs one action on a screen of size screen. Invalid actions wrap
// action.ErrInvalid, actions a desktop cannot do device.ErrUnsupported,
// points on Tandem's own windows give ErrOwnWindow, and a halted driver
// (the person took over, the stop hotkey) returns its halt.
func Act(ctx context.Context, a action.Action, screen action.Size, caps device.Capabilities, h Hands) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := a.Validate(screen); err != nil {
		return err
	}
	if !caps.Supports(a.Type) {
		return fmt.Errorf("%w: %s on a desktop", device.ErrUnsupported, a.Type)
	}
	if a.Type == action.Wait {
		return h.Sleep(ctx, time.Duration(a.Ms)*time.Millisecond)
	}
	p := h.ToScreen(a.X, a.Y)
	if a.Type.Pointed() {
		if err := h.Excluded(p); err != nil {
			return err
		}
	}
	keys, err := chordOf(a)
	if err != nil {
		return err
	}
	if err := h.Arm(ctx); err != nil {
		return err
	}
	defer h.Disarm()
	switch a.Type {
	case action.Tap:
		return h.Click(ctx, p, "left", 1)
	case action.DoubleTap:
		return h.Click(ctx, p, "left", 2)
	case action.RightClick:
		return h.Click(ctx, p, "right", 1)
	case action.LongPress:
		return h.Press(ctx, p, orDefault(a.Ms, DefaultLongPress))
	case action.Drag:
		end := h.ToScreen(a.X2, a.Y2)
		if err := h.Excluded(end); err != nil {
			return err
		}
		return h.Drag(ctx, p, end, orDefault(a.Ms, DefaultDrag))
	case action.Scroll:
		return h.Scroll(ctx, p, a.Direction)
	case action.TypeText:
		return h.TypeText(ctx, a.Text, a.Submit)
	case action.Key, action.Hotkey:
		return h.Tap(ctx, keys)
	case action.Swipe, action.Launch, action.Wait, action.Finish, action.Fail, action.AskUser, action.TakeOver:
		// Wait is done above; the others are no desktop input (caps).
		return fmt.Errorf("%w: %s on a desktop", device.ErrUnsupported, a.Type)
	default: // not a type (Validate refuses it first)
		return fmt.Errorf("%w: %s on a desktop", device.ErrUnsupported, a.Type)
	}
}

// chordOf is the keys a key or hotkey action presses (none for others).
func chordOf(a action.Action) (Chord, error) {
	switch a.Type {
	case action.Key:
		k, err := normKey(a.Key)
		return chord{Key: k}, err
	case action.Hotkey:
		return parseChord(a.Keys)
	case action.Tap, action.DoubleTap, action.LongPress, action.Swipe, action.Drag, action.RightClick, action.Scroll,
		action.TypeText, action.Launch, action.Wait, action.Finish, action.Fail, action.AskUser, action.TakeOver:
		return chord{}, nil
	default: // not a type (Validate refuses it first)
		return chord{}, nil
	}
}

func orDefault(ms int, def time.Duration) time.Duration {
	if ms <= 0 {
		return def
	}
	return time.Duration(ms) * time.Millisecond
}

// KeyTap presses a chord with robotgo through run (the driver's injector,
// which refuses once halted).
func KeyTap(run func(f func()) error, c Chord) error {
	var err error
	if runErr := run(func() {
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
