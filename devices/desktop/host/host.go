// Package host picks this computer's desktop driver for the system Tandem
// runs on: the X11 driver (devices/desktop) on Linux and the BSDs, the
// Win32 one (devices/desktop/win) on Windows. Where there is none
// usable it says why, so "This computer" is listed with the reason instead
// of silently missing: a Wayland session without XWayland, or macOS.
package host

import (
	"context"
	"image"

	"tandem/devices/desktop"
	"tandem/engine/action"
	"tandem/engine/device"
)

// Driver is what the app and the CLI use of a desktop driver: a device (with
// its windows, device.Windows, for the confirmation policy), a capture into
// a reused frame, the safety signals, and the person's own acts.
type Driver interface {
	device.Device
	device.Windows
	ScreenshotInto(ctx context.Context, dst *image.RGBA) (*image.RGBA, error)
	// Takeover fires when the person uses the mouse or keyboard while the
	// agent acts: the person takes over. StopHotkey fires when they press
	// the stop chord.
	Takeover() <-chan struct{}
	StopHotkey() <-chan struct{}
	// PersonActs delivers, in order and in this display's pixels, what the
	// person does with their own mouse and keyboard from a takeover until
	// Resume (tap, double_tap, long_press, drag, right_click, scroll, type,
	// key, hotkey): their acts, to record with Run.InputDone. Tandem's own
	// input is never among them.
	PersonActs() <-chan action.Action
	// FlushActs ends what the person was doing (the text being typed) and
	// returns the acts PersonActs has not delivered; call it as they hand
	// back, before Resume, from the goroutine that reads PersonActs.
	FlushActs(ctx context.Context) ([]action.Action, error)
	// PersonDrives halts the agent as Takeover does, without the signal:
	// the person took over through Tandem (the mirror, T, the model asked),
	// and their own mouse and keyboard are reported on PersonActs until
	// Resume.
	PersonDrives()
	// PersonDo performs an input the person makes through Tandem (the
	// mirror) while they drive: it runs though a takeover halted the agent,
	// and is not among PersonActs (the run records it as Run.Input makes
	// it). Use it as the run's Config.PersonInput for a desktop.
	PersonDo(ctx context.Context, a action.Action) error
	// Resume lets the agent drive again after a takeover or stop; the
	// person's acts are no longer reported.
	Resume()
}

// Options configure a driver (the X11 driver's options; Windows ignores
// Display and PasteKeys).
type Options struct {
	ExcludePIDs  []int
	ExcludeRects []image.Rectangle
	StopHotkey   string
	// StopKeys shares the stop hotkey among the process's drivers, so
	// several displays can run at once.
	StopKeys *desktop.StopKeys
}

// Unavailable says why this computer cannot be driven here. Its Error is the
// sentence the device list shows.
type Unavailable struct {
	Code   string // "needs_x11", "unsupported_os"
	Reason string
}

func (u *Unavailable) Error() string { return u.Reason }

// Is makes errors.Is(err, device.ErrUnsupported) hold.
func (u *Unavailable) Is(target error) bool { return target == device.ErrUnsupported }

// Status classifies this computer's desktop from the system and the
// environment: usable (nil), absent (ok false: a headless machine, listed as
// nothing), or unavailable with a reason.
func Status(goos string, getenv func(string) string) (ok bool, err error) {
	switch goos {
	case "windows":
		return true, nil
	case "darwin":
		return false, &Unavailable{Code: "unsupported_os",
			Reason: "This computer (macOS) is not supported yet: only phones can be driven here"}
	}
	if getenv("DISPLAY") != "" {
		return true, nil
	}
	if getenv("WAYLAND_DISPLAY") != "" || getenv("XDG_SESSION_TYPE") == "wayland" {
		return false, &Unavailable{Code: "needs_x11",
			Reason: "This computer needs an X11 session or XWayland: this Wayland session has no X server (DISPLAY is not set); log in with \"GNOME on Xorg\" or enable XWayland"}
	}
	return false, nil
}
