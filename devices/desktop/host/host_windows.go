//go:build windows

package host

import (
	"context"
	"os"
	"runtime"

	"tandem/devices/desktop"
	"tandem/devices/desktop/win"
	"tandem/engine/device"
)

// Displays lists this computer's displays. On a machine without a usable
// desktop it returns none and, where there is a reason, an *Unavailable.
func Displays(ctx context.Context) ([]device.Info, error) {
	if ok, err := Status(runtime.GOOS, os.Getenv); !ok {
		return nil, err
	}
	return win.Displays(ctx)
}

// Open opens display id ("desktop:N").
func Open(ctx context.Context, id string, o Options) (Driver, error) {
	d, err := win.Open(ctx, id, desktop.Options{ExcludePIDs: o.ExcludePIDs, ExcludeRects: o.ExcludeRects, StopHotkey: o.StopHotkey, StopKeys: o.StopKeys})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// DefaultStopHotkey is this system's stop hotkey when the person chose none
// (Windows keeps ctrl+shift+escape for its Task Manager).
func DefaultStopHotkey() string { return win.DefaultStopHotkey }
