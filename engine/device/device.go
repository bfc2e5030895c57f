// Package device defines what the engine needs from a thing it can operate:
// a phone over ADB, this computer's desktop, or the virtual phone.
//
// The interface is deliberately small (after the UI-TARS SDK's operator:
// screenshot and execute). Optional abilities, such as a UI tree, are separate
// interfaces a driver may also implement, and Capabilities says up front what
// a driver cannot do so the engine can tell the model instead of failing late.
//
// Drivers live outside the engine, in devices/adb and devices/desktop (and
// the virtual phone, vphone, is a phone for devices/adb). Every blocking call
// takes a context and must return promptly once it is cancelled.
package device

import (
	"context"
	"errors"
	"image"

	"tandem/engine/action"
)

// Kind says what sort of device it is.
type Kind string

// Device kinds.
const (
	Phone   Kind = "phone"
	Desktop Kind = "desktop"
)

// Info describes a device as it is now (rotation can change during a run).
type Info struct {
	ID       string // adb serial, or "desktop:N" for display N
	Name     string // a human name: phone model, "Display 1"
	Kind     Kind
	Screen   action.Size // pixels of a screenshot, the coordinate space of actions
	Density  int         // dpi for phones; 0 when unknown
	Rotation int         // 0, 90, 180, 270
	Scale    float64     // desktop HiDPI scale; 1 for phones
}

// Capabilities lists what a device can do.
type Capabilities struct {
	Actions []action.Type
	UITree  bool `json:"ui_tree"`
}

// Supports reports whether t is among the device's actions.
func (c Capabilities) Supports(t action.Type) bool {
	for _, a := range c.Actions {
		if a == t {
			return true
		}
	}
	return false
}

// Device is something Tandem can observe and act on.
type Device interface {
	Info(ctx context.Context) (Info, error)
	// Screenshot returns the screen as it is now, in the coordinate space of
	// Info.Screen. A secure (black) screen is reported as ErrSecureScreen.
	// It may be an *encoded.Image, carrying the bytes the device sent.
	Screenshot(ctx context.Context) (image.Image, error)
	// Do performs one atomic action. Actions the engine handles itself
	// (finish, fail, ask_user, take_over) are never passed to Do.
	Do(ctx context.Context, a action.Action) error
	Capabilities() Capabilities
	// Close releases the device and restores what Tandem changed on it
	// (a phone's keyboard, for example).
	Close() error
}

// Confirmer is a device that can tell, for far less than a capture,
// whether the screen is still exactly a frame its Screenshot returned: a
// phone checksums a capture where it is made instead of sending its
// 10 MB (issue 48). The stability wait confirms a still screen with it.
type Confirmer interface {
	// Unchanged reports whether the screen now is, pixel for pixel, frame,
	// the newest frame Screenshot returned. It is false whenever it cannot
	// tell (another frame, a failed command): the caller then captures.
	Unchanged(ctx context.Context, frame image.Image) bool
}

// UITree is implemented by devices that can dump their accessibility tree
// (uiautomator XML on Android).
type UITree interface {
	UITree(ctx context.Context) ([]byte, error)
}

// Window is a top-level window of a desktop as the confirmation policy
// reads it: the program it belongs to and its title. A desktop has no UI
// tree and no app in front the way a phone has; the window under the point
// of an action (or the one with the keyboard, for typing) is what the
// person's list of words and apps can match on.
type Window struct {
	Bounds image.Rectangle // in the screenshot's pixels
	// App is the program (X11: the WM_CLASS class, "Firefox"; Windows: the
	// executable without ".exe", "Alipay"); Names are its other names (the
	// WM_CLASS instance, the executable's file name).
	App   string
	Names []string
	Title string
	// Focused: the window has the keyboard, where typed text goes.
	Focused bool
}

// Windows is implemented by desktops: the top-level windows on the
// display, bottom to top.
type Windows interface {
	Windows(ctx context.Context) ([]Window, error)
}

// Typed errors. Drivers wrap these so callers can use errors.Is.
var (
	ErrGone          = errors.New("device gone")           // unplugged, offline, connection dropped
	ErrPermission    = errors.New("permission denied")     // e.g. MIUI's INJECT_EVENTS setting
	ErrUnsupported   = errors.New("not supported")         // the device cannot do this action
	ErrSecureScreen  = errors.New("secure screen")         // FLAG_SECURE: black or refused screenshot
	ErrNeedsKeyboard = errors.New("needs an input method") // non-ASCII text without ADB Keyboard
)

// TypeChecker is a device that reads back what a type action left in the
// focused field (from its UI tree) and, when the field does not read as
// typed, types it once more by its other input path. The engine uses it
// for type actions when the run checks typing; a mismatch that remains is
// a TypedMismatch, told to the model as the step's result.
type TypeChecker interface {
	TypeChecked(ctx context.Context, a action.Action) error
}

// TypedMismatch is a type action whose field did not read as typed, even
// after a second try by the other input path.
type TypedMismatch struct {
	Want, Got string
}

func (e *TypedMismatch) Error() string {
	return "typed “" + e.Want + "” but the field reads “" + e.Got + "” (typed twice, by two input paths)"
}
