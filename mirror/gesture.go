package mirror

import (
	"fmt"
	"math"
	"time"

	"tandem/engine/action"
)

// The rule that turns a press, a move and a release on the mirror into the
// person's gesture, and the only classifier of them: live touches put back
// together in Go (scrcpy moves the phone's finger as the person moves
// theirs) and the presses the page and the pop-out report (Press) both go
// through Classify. It is tested on testdata/gestures.json.
const (
	// SlopFraction of the screen's short side is how far a finger may
	// wander and still tap (at least MinSlop pixels), so it feels the same
	// on every screen.
	SlopFraction = 0.02
	MinSlop      = 8
	// LongPress is how long a still finger makes a long press.
	LongPress = 500 * time.Millisecond
	// A swipe's recorded duration is kept within these bounds.
	MinSwipe = 100 * time.Millisecond
	MaxSwipe = 3000 * time.Millisecond
)

// Slop is the tap radius on a screen of this size, in device pixels.
func Slop(screen action.Size) float64 {
	return math.Max(MinSlop, float64(min(screen.W, screen.H))*SlopFraction)
}

// Beyond reports whether (x, y) is outside the tap radius around (x0, y0).
func Beyond(x0, y0, x, y int, screen action.Size) bool {
	return math.Hypot(float64(x-x0), float64(y-y0)) > Slop(screen)
}

// Classify returns the gesture of a finger that went down at (x0, y0) and
// up at (x, y) after held. moved says it wandered beyond the tap radius on
// the way, even if it came back: that is a swipe too.
func Classify(x0, y0, x, y int, held time.Duration, moved bool, screen action.Size) action.Action {
	if moved || Beyond(x0, y0, x, y, screen) {
		ms := min(max(held, MinSwipe), MaxSwipe)
		return action.Action{Type: action.Swipe, X: x0, Y: y0, X2: x, Y2: y, Ms: int(ms.Milliseconds())}
	}
	if held >= LongPress {
		return action.Action{Type: action.LongPress, X: x0, Y: y0, Ms: int(held.Milliseconds())}
	}
	return action.Action{Type: action.Tap, X: x0, Y: y0}
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
