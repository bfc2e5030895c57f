package desktop

import (
	"image"
	"slices"
	"time"

	"tandem/engine/action"
)

// The person's own mouse and keyboard, put back together into the acts they
// made while they drive (after a take-over), so the run can record them as
// theirs and tell the model on hand back. Each desktop driver turns what it
// observes (X11: the RECORD stream; Windows: the low-level hooks) into
// HandEvents; HandActs makes canonical actions of them by one rule for
// every desktop, the gesture rule the mirror uses (action.Classify).

// HandKind is what the person's hand did in one event.
type HandKind int

// The kinds of HandEvent.
const (
	HandMove  HandKind = iota + 1 // the pointer moved
	HandDown                      // a mouse button went down
	HandUp                        // a mouse button came up
	HandWheel                     // one notch of the wheel
	HandKey                       // a key went down (an auto-repeat too)
	HandKeyUp                     // a key came up
)

// HandEvent is one event of the person's own mouse or keyboard, in the
// display's screenshot pixels.
type HandEvent struct {
	Kind HandKind
	P    image.Point // the pointer, for keys too
	Ms   uint32      // when, on the system's input clock (milliseconds, wrapping)
	// Button is "left", "right" or "middle" (HandDown, HandUp).
	Button string
	// Wheel is "up", "down", "left" or "right" (HandWheel).
	Wheel string
	// Key is the key by the name the canonical key action uses ("a", "1",
	// "enter", "backspace", "f5", "ctrl", "cmd"); "" for a key with no
	// such name. Text is what it types as pressed ("A" with shift; "" for a
	// key that types nothing, and for tab and enter).
	Key, Text string
	// Mods are the modifiers held as it happened: ctrl, alt, shift, cmd.
	Mods []string
	// Own: on one of Tandem's own windows (a pointer event there, or a key
	// while one has the focus): not an act on the desktop, but it ends what
	// the person was doing (a click on Hand back ends the text they typed).
	// Off: off this display (a pointer event on another monitor).
	Own, Off bool
}

// Timings of the person's acts. The gaps are measured on the events' own
// clock, so a busy machine that reads them late judges them the same.
const (
	// DoubleClick is the longest gap between the presses of a double click.
	DoubleClick = 500 * time.Millisecond
	// ScrollQuiet ends a run of wheel notches reported as one scroll, and
	// TextQuiet the characters typed in a row reported as one text, once
	// the person has done nothing else for that long.
	ScrollQuiet = 600 * time.Millisecond
	TextQuiet   = 1500 * time.Millisecond
)

// HandActs assembles HandEvents into the person's acts: tap, double_tap,
// long_press, drag, right_click, scroll, type (characters typed in a row),
// key (a named key), hotkey (a key with ctrl, alt or cmd held, or shift with
// a named key). A tap is held back until no second click can follow, text
// and scrolls until something else happens or the person pauses (Settle).
// Text typed through an input method (Chinese pinyin) arrives as the keys
// pressed, not the characters chosen: HandActs cannot see the choice.
type HandActs struct {
	screen action.Size
	down   *press         // a button held
	hold   *action.Action // a tap waiting for a second click, or a scroll going on
	holdMs uint32         // when the held tap's press went down
	text   []rune         // characters typed in a row
	lone   string         // a modifier pressed alone so far ("cmd")
}

type press struct {
	button string
	p0     image.Point
	ms0    uint32
	moved  bool
	skip   bool // on Tandem's window or off this display: no act
	second bool // the second press of a double click
}

// NewHandActs assembles acts on a display of size screen.
func NewHandActs(screen action.Size) *HandActs { return &HandActs{screen: screen} }

// Feed takes the next event and returns the acts it completes, in order.
func (h *HandActs) Feed(e HandEvent) []action.Action {
	switch e.Kind {
	case HandMove:
		if h.down != nil && !h.down.moved && action.Beyond(h.down.p0.X, h.down.p0.Y, e.P.X, e.P.Y, h.screen) {
			h.down.moved = true
		}
		return nil
	case HandDown:
		return h.buttonDown(e)
	case HandUp:
		return h.buttonUp(e)
	case HandWheel:
		return h.wheel(e)
	case HandKey:
		return h.key(e)
	case HandKeyUp:
		if e.Key == "cmd" && h.lone == "cmd" {
			h.lone = ""
			return append(h.Settle(), action.Action{Type: action.Key, Key: "cmd"})
		}
		return nil
	}
	return nil
}

// Settle ends what is held back: the person paused (for the Pending time),
// or handed back.
func (h *HandActs) Settle() []action.Action {
	var out []action.Action
	if h.hold != nil {
		out = append(out, *h.hold)
		h.hold = nil
	}
	if len(h.text) > 0 {
		out = append(out, action.Action{Type: action.TypeText, Text: string(h.text)})
		h.text = nil
	}
	return out
}

// Pending is how long the person must pause before Settle ends what is held
// back (0: nothing is).
func (h *HandActs) Pending() time.Duration {
	switch {
	case h.hold != nil && h.hold.Type == action.Tap:
		return DoubleClick
	case h.hold != nil:
		return ScrollQuiet
	case len(h.text) > 0:
		return TextQuiet
	}
	return 0
}

func (h *HandActs) buttonDown(e HandEvent) []action.Action {
	h.lone = ""
	p := &press{button: e.Button, p0: e.P, ms0: e.Ms, skip: e.Own || e.Off}
	var out []action.Action
	if e.Button == "left" && h.hold != nil && h.hold.Type == action.Tap && !p.skip &&
		since(h.holdMs, e.Ms) <= DoubleClick && !action.Beyond(h.hold.X, h.hold.Y, e.P.X, e.P.Y, h.screen) {
		p.second = true
	} else {
		out = h.Settle()
	}
	h.down = p
	return out
}

func (h *HandActs) buttonUp(e HandEvent) []action.Action {
	p := h.down
	if p == nil || p.button != e.Button {
		return nil
	}
	h.down = nil
	if p.skip {
		return nil
	}
	switch p.button {
	case "right":
		return []action.Action{{Type: action.RightClick, X: p.p0.X, Y: p.p0.Y}}
	case "left":
	default:
		return nil // the middle button (X11's paste) has no canonical act
	}
	end := h.clamp(e.P)
	g := action.Classify(p.p0.X, p.p0.Y, end.X, end.Y, since(p.ms0, e.Ms), p.moved, h.screen)
	switch {
	case g.Type == action.Tap && p.second && h.hold != nil:
		first := h.hold
		h.hold = nil
		return []action.Action{{Type: action.DoubleTap, X: first.X, Y: first.Y}}
	case g.Type == action.Tap:
		h.hold, h.holdMs = &g, p.ms0
		return nil
	case g.Type == action.Swipe:
		g.Type = action.Drag // a press, a move and a release is a desktop's drag
	}
	out := h.Settle() // a second press that became a long press or drag: the first was a tap
	return append(out, g)
}

func (h *HandActs) wheel(e HandEvent) []action.Action {
	h.lone = ""
	if h.hold != nil && h.hold.Type == action.Scroll && h.hold.Direction == e.Wheel {
		return nil // the same scroll going on
	}
	out := h.Settle()
	if !e.Own && !e.Off {
		h.hold = &action.Action{Type: action.Scroll, X: e.P.X, Y: e.P.Y, Direction: e.Wheel}
	}
	return out
}

func (h *HandActs) key(e HandEvent) []action.Action {
	if e.Own || e.Off {
		h.lone = ""
		return h.Settle()
	}
	if _, mod := modifierNames[e.Key]; mod {
		if e.Key == "cmd" && len(e.Mods) == 0 {
			h.lone = "cmd"
		}
		return nil
	}
	h.lone = ""
	chord := slices.ContainsFunc(e.Mods, func(m string) bool { return m != "shift" })
	switch {
	case e.Key != "" && (chord || e.Text == "" && slices.Contains(e.Mods, "shift")):
		return append(h.Settle(), action.Action{Type: action.Hotkey, Keys: append(slices.Clone(e.Mods), e.Key)})
	case chord:
		return h.Settle() // a chord with a key of no name: nothing to tell
	case e.Text != "":
		var out []action.Action
		if h.hold != nil {
			out = append(out, *h.hold)
			h.hold = nil
		}
		h.text = append(h.text, []rune(e.Text)...)
		return out
	case e.Key == "backspace" && len(h.text) > 0:
		h.text = h.text[:len(h.text)-1] // a typo put right while typing
		return nil
	case e.Key != "":
		return append(h.Settle(), action.Action{Type: action.Key, Key: e.Key})
	}
	return nil
}

// clamp keeps a point on the display (a drag may end on another monitor).
func (h *HandActs) clamp(p image.Point) image.Point {
	return image.Pt(min(max(p.X, 0), h.screen.W-1), min(max(p.Y, 0), h.screen.H-1))
}

// since is the time from a to b on a wrapping millisecond clock.
func since(a, b uint32) time.Duration { return time.Duration(b-a) * time.Millisecond }
