package app

import (
	"context"
	"errors"
	"time"

	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"
)

// While the agent drives this computer, Tandem's window becomes a small bar
// at the top of the screen, above every other window: the person keeps
// Pause and Stop in sight whatever the agent opens, and the agent keeps the
// screen (Tandem's window is left out of what it sees, so a full window on
// top would hide the apps it works in). The page decides when (a desktop
// run acting, not expanded by the person); the window's size and place
// come back as they were.

// Compact bar size in window pixels.
const (
	compactW = 760
	compactH = 88
	// The window's minimum size otherwise (Run's options).
	minW, minH = 960, 640
)

// windowControl is what compact mode needs of the window: Wails' runtime in
// the app, a fake in tests.
type windowControl interface {
	Size() (w, h int)
	Position() (x, y int)
	ScreenSize() (w, h int) // the screen the window is on
	// Pin makes the window exactly w x h and keeps it so (its minimum and
	// maximum size); Unpin lets it be resized again, down to the minimum.
	Pin(w, h int)
	Unpin(minW, minH int)
	SetPosition(x, y int)
	SetOnTop(on bool)
}

// compactState is the window's geometry saved while it is compact.
type compactState struct {
	on         bool
	w, h, x, y int
}

var errNoWindowToCompact = errors.New("the compact bar needs Tandem's window")

// SetCompact turns the window into the bar at the top of the screen (on) or
// gives it back its size and place (off). Asking twice is harmless.
func (a *RunsAPI) SetCompact(on bool) (err error) {
	defer toUI(&err)
	a.mu.Lock()
	defer a.mu.Unlock()
	w := a.window
	if w == nil {
		return errNoWindowToCompact
	}
	c := &a.compact
	switch {
	case on == c.on:
		return nil
	case on:
		c.w, c.h = w.Size()
		c.x, c.y = w.Position()
		sw, _ := w.ScreenSize()
		w.Pin(compactW, compactH) // the bar is not resized by hand
		w.SetPosition(max((sw-compactW)/2, 0), 0)
		w.SetOnTop(true)
	default:
		w.SetOnTop(false)
		w.Pin(max(c.w, minW), max(c.h, minH))
		w.Unpin(minW, minH)
		w.SetPosition(c.x, c.y)
	}
	c.on = on
	return nil
}

// wailsWindow is the window through Wails' runtime.
//
// Sizes go through the window's size limits (min and max), which Wails sets
// on the GTK main thread, in order: its WindowSetSize calls GTK from the
// calling goroutine and was lost now and then (the bar stayed 1280x800).
// See wails v2.11 internal/frontend/desktop/linux window.go (SetMinSize and
// SetMaxSize go through invokeOnMainThread; SetSize does not).
type wailsWindow struct{ ctx context.Context }

func (w wailsWindow) Size() (int, int)     { return wruntime.WindowGetSize(w.ctx) }
func (w wailsWindow) Position() (int, int) { return wruntime.WindowGetPosition(w.ctx) }
func (w wailsWindow) SetPosition(x, y int) { wruntime.WindowSetPosition(w.ctx, x, y) }
func (w wailsWindow) SetOnTop(on bool)     { wruntime.WindowSetAlwaysOnTop(w.ctx, on) }

// Pin waits (at most 2 s) until GTK reports the new size, so the size saved
// by the next SetCompact(true) is the window's own.
func (w wailsWindow) Pin(x, y int) {
	wruntime.WindowSetMinSize(w.ctx, 1, 1)
	wruntime.WindowSetMaxSize(w.ctx, x, y)
	wruntime.WindowSetMinSize(w.ctx, x, y)
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
		if gw, gh := wruntime.WindowGetSize(w.ctx); gw == x && gh == y {
			return
		}
		time.Sleep(10 * time.Millisecond) // polling GTK until the configure landed
	}
}

func (w wailsWindow) Unpin(x, y int) {
	wruntime.WindowSetMaxSize(w.ctx, 0, 0) // the screen's size
	wruntime.WindowSetMinSize(w.ctx, x, y)
}

func (w wailsWindow) ScreenSize() (int, int) {
	screens, err := wruntime.ScreenGetAll(w.ctx)
	if err != nil || len(screens) == 0 {
		return 0, 0
	}
	pick := screens[0]
	for _, s := range screens {
		if s.IsCurrent {
			pick = s
			break
		}
		if s.IsPrimary {
			pick = s
		}
	}
	return pick.Size.Width, pick.Size.Height
}
