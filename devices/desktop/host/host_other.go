//go:build !windows

package host

import (
	"context"
	"fmt"
	"os"
	"runtime"

	"tandem/devices/desktop"
	"tandem/engine/device"
)

// Displays lists this computer's displays. On a machine without a usable
// desktop it returns none and, where there is a reason, an *Unavailable.
func Displays(ctx context.Context) ([]device.Info, error) {
	if ok, err := Status(runtime.GOOS, os.Getenv); !ok {
		return nil, err
	}
	return desktop.Displays(ctx)
}

// Open opens display id ("desktop:N").
func Open(ctx context.Context, id string, o Options) (Driver, error) {
	if ok, err := Status(runtime.GOOS, os.Getenv); !ok {
		if err == nil {
			err = fmt.Errorf("%w: no X display (DISPLAY is not set)", device.ErrGone)
		}
		return nil, err
	}
	d, err := desktop.Open(ctx, id, desktop.Options{ExcludePIDs: o.ExcludePIDs, ExcludeRects: o.ExcludeRects, StopHotkey: o.StopHotkey, StopKeys: o.StopKeys})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// DefaultStopHotkey is this system's stop hotkey when the person chose none.
func DefaultStopHotkey() string { return desktop.DefaultStopHotkey }
