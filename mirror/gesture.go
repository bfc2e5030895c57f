package mirror

import (
	"fmt"
	"time"

	"tandem/engine/action"
)

// The rule that turns a press, a move and a release on the mirror into the
// person's gesture is action.Classify (engine/action/gesture.go), shared
// with the desktop drivers, which classify the person's own mouse by it:
// live touches put back together in Go (scrcpy moves the phone's finger as
// the person moves theirs) and the presses the page and the pop-out report
// (Press) both go through it. It is tested here on testdata/gestures.json.
const (
	SlopFraction = action.SlopFraction
	MinSlop      = action.MinSlop
	LongPress    = action.LongPressAfter
	MinSwipe     = action.MinSwipe
	MaxSwipe     = action.MaxSwipe
)

// Slop is the tap radius on a screen of this size, in device pixels.
func Slop(screen action.Size) float64 { return action.Slop(screen) }

// Beyond reports whether (x, y) is outside the tap radius around (x0, y0).
func Beyond(x0, y0, x, y int, screen action.Size) bool { return action.Beyond(x0, y0, x, y, screen) }

// Classify returns the gesture of a finger that went down at (x0, y0) and
// up at (x, y) after held (action.Classify).
func Classify(x0, y0, x, y int, held time.Duration, moved bool, screen action.Size) action.Action {
	return action.Classify(x0, y0, x, y, held, moved, screen)
}

// Press is one press on a mirror as the page saw it, in device pixels: where
// the finger went down and came up, how long it was held, the farthest it
// got from where it went down on the way, and the size of the screen the
// page showed. The page reports; Classify decides what gesture it was.
type Press struct {
	X0  int `json:"x0"`
	Y0  int `json:"y0"`
	X   int `json:"x"`
	Y   int `json:"y"`
	Ms  int `json:"ms"`
	Far int `json:"far"`
	W   int `json:"w"`
	H   int `json:"h"`
}

// Gesture is the press classified, or an error when it names no screen.
func (p Press) Gesture() (action.Action, error) {
	screen := action.Size{W: p.W, H: p.H}
	if p.W <= 0 || p.H <= 0 || p.Ms < 0 {
		return action.Action{}, fmt.Errorf("%w: a press on a %dx%d screen held %d ms", action.ErrInvalid, p.W, p.H, p.Ms)
	}
	moved := float64(p.Far) > Slop(screen)
	return Classify(p.X0, p.Y0, p.X, p.Y, time.Duration(p.Ms)*time.Millisecond, moved, screen), nil
}
