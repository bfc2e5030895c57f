package action

import (
	"math"
	"time"
)

// The rule that turns a press, a move and a release into the person's
// gesture, and the only classifier of them: the mirror (mirror.Classify, its
// live touches and the presses the page reports) and the desktop drivers
// (the person's own mouse while they drive) both call Classify, so a tap, a
// long press and a drag mean the same wherever the person makes them. It is
// tested on mirror/testdata/gestures.json.
const (
	// SlopFraction of the screen's short side is how far a finger may
	// wander and still tap (at least MinSlop pixels), so it feels the same
	// on every screen.
	SlopFraction = 0.02
	MinSlop      = 8
	// LongPressAfter is how long a still finger makes a long press.
	LongPressAfter = 500 * time.Millisecond
	// A swipe's recorded duration is kept within these bounds.
	MinSwipe = 100 * time.Millisecond
	MaxSwipe = 3000 * time.Millisecond
)

// Slop is the tap radius on a screen of this size, in device pixels.
func Slop(screen Size) float64 {
	return math.Max(MinSlop, float64(min(screen.W, screen.H))*SlopFraction)
}

// Beyond reports whether (x, y) is outside the tap radius around (x0, y0).
func Beyond(x0, y0, x, y int, screen Size) bool {
	return math.Hypot(float64(x-x0), float64(y-y0)) > Slop(screen)
}

// Classify returns the gesture of a finger that went down at (x0, y0) and
// up at (x, y) after held: a tap, a long press, or a swipe (a desktop calls
// it a drag). moved says it wandered beyond the tap radius on the way, even
// if it came back: that is a swipe too.
func Classify(x0, y0, x, y int, held time.Duration, moved bool, screen Size) Action {
	if moved || Beyond(x0, y0, x, y, screen) {
		ms := min(max(held, MinSwipe), MaxSwipe)
		return Action{Type: Swipe, X: x0, Y: y0, X2: x, Y2: y, Ms: int(ms.Milliseconds())}
	}
	if held >= LongPressAfter {
		return Action{Type: LongPress, X: x0, Y: y0, Ms: int(held.Milliseconds())}
	}
	return Action{Type: Tap, X: x0, Y: y0}
}
