// Package action defines Tandem's canonical action: the one shape every model
// dialect parses into and every device driver executes.
//
// Why one flat struct rather than a type per action: actions cross three
// boundaries (model reply -> engine -> device, and engine -> UI as JSON), and a
// single struct with a Type discriminator round-trips through JSON without
// registries or reflection. Validate enforces which fields each type needs.
//
// Coordinates are always device pixels once an action leaves a parser: the
// parser is told the device's screen size (and the size of the image the model
// saw) and does the mapping, so nothing downstream guesses about scales.
package action

import (
	"errors"
	"fmt"
	"strings"
)

// Type names an action. The values are the JSON strings of design.md.
type Type string

// The canonical action types.
const (
	Tap        Type = "tap"
	DoubleTap  Type = "double_tap"
	LongPress  Type = "long_press"
	Swipe      Type = "swipe"
	Drag       Type = "drag"
	RightClick Type = "right_click"
	Scroll     Type = "scroll"
	TypeText   Type = "type"
	Key        Type = "key"
	Hotkey     Type = "hotkey"
	Launch     Type = "launch"
	Wait       Type = "wait"
	Finish     Type = "finish"
	Fail       Type = "fail"
	AskUser    Type = "ask_user"
	TakeOver   Type = "take_over"
)

// All lists every type, in a stable order (for prompts, tools and docs).
var All = []Type{Tap, DoubleTap, LongPress, Swipe, Drag, RightClick, Scroll, TypeText,
	Key, Hotkey, Launch, Wait, Finish, Fail, AskUser, TakeOver}

// Action is one canonical action. Only the fields its Type uses are set.
type Action struct {
	Type      Type   `json:"type"`
	X         int    `json:"x,omitempty"`
	Y         int    `json:"y,omitempty"`
	X2        int    `json:"x2,omitempty"`
	Y2        int    `json:"y2,omitempty"`
	Ms        int    `json:"ms,omitempty"`
	Direction string `json:"direction,omitempty"`
	Text      string `json:"text,omitempty"`
	Submit    bool   `json:"submit,omitempty"`
	// Clear empties the focused field before typing (AutoGLM's Type).
	Clear    bool     `json:"clear,omitempty"`
	Key      string   `json:"key,omitempty"`
	Keys     []string `json:"keys,omitempty"`
	App      string   `json:"app,omitempty"`
	Summary  string   `json:"summary,omitempty"`
	Success  *bool    `json:"success,omitempty"`
	Reason   string   `json:"reason,omitempty"`
	Question string   `json:"question,omitempty"`
	// Sensitive carries the model's own reason to ask the person first.
	Sensitive string `json:"sensitive,omitempty"`
	// Element is the compact-state index the model targeted; nil when none.
	Element *int `json:"element,omitempty"`
}

// Size is a width and height in pixels.
type Size struct {
	W int `json:"w"`
	H int `json:"h"`
}

func (s Size) String() string { return fmt.Sprintf("%dx%d", s.W, s.H) }

// Contains reports whether the point lies on a screen of this size.
func (s Size) Contains(x, y int) bool { return x >= 0 && y >= 0 && x < s.W && y < s.H }

// ParseSize reads "WxH".
func ParseSize(v string) (Size, error) {
	var s Size
	if _, err := fmt.Sscanf(strings.ToLower(strings.TrimSpace(v)), "%dx%d", &s.W, &s.H); err != nil || s.W <= 0 || s.H <= 0 {
		return Size{}, fmt.Errorf("size %q: want WxH with positive numbers", v)
	}
	return s, nil
}

// ErrInvalid wraps every validation failure, so callers can tell a bad action
// (feed it back to the model) from a device failure.
var ErrInvalid = errors.New("invalid action")

// Pointed reports whether the type acts at a point (x, y).
func (t Type) Pointed() bool {
	switch t {
	case Tap, DoubleTap, LongPress, Swipe, Drag, RightClick, Scroll:
		return true
	case TypeText, Key, Hotkey, Launch, Wait, Finish, Fail, AskUser, TakeOver:
		return false
	default: // not a type (a reply's or a record's word): Validate says so
		return false
	}
}

// Terminal reports whether the type ends the run (finish, fail).
func (t Type) Terminal() bool { return t == Finish || t == Fail }

// ChangesScreen reports whether the action is expected to change the screen,
// so the engine waits for it to settle afterwards.
func (t Type) ChangesScreen() bool {
	switch t {
	case Finish, Fail, AskUser, TakeOver, Wait:
		return false
	case Tap, DoubleTap, LongPress, Swipe, Drag, RightClick, Scroll, TypeText, Key, Hotkey, Launch:
		return true
	default: // not a type: wait for the screen all the same
		return true
	}
}

// Validate checks that the action is complete and, when screen is non-zero,
// that its points lie on the screen. The error wraps ErrInvalid.
func (a Action) Validate(screen Size) error {
	if a.Type.Pointed() {
		return a.validatePoints(screen)
	}
	return a.validateFields()
}

// invalid is an error wrapping ErrInvalid that names the action's type.
func (a Action) invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalid, a.Type, fmt.Sprintf(format, args...))
}

// validatePoints checks an action at a point (or two) of the screen.
func (a Action) validatePoints(screen Size) error {
	on := func(x, y int) error {
		if screen.W > 0 && !screen.Contains(x, y) {
			return a.invalid("point (%d,%d) is off the %s screen", x, y, screen)
		}
		return nil
	}
	if a.Ms < 0 {
		return a.invalid("negative duration")
	}
	switch a.Type {
	case Swipe, Drag:
		if a.X == a.X2 && a.Y == a.Y2 {
			return a.invalid("start and end are the same point")
		}
		if err := on(a.X, a.Y); err != nil {
			return err
		}
		return on(a.X2, a.Y2)
	case Scroll:
		switch a.Direction {
		case "up", "down", "left", "right":
		default:
			return a.invalid("direction %q is not up, down, left or right", a.Direction)
		}
	case Tap, DoubleTap, RightClick, LongPress: // one point
	case TypeText, Key, Hotkey, Launch, Wait, Finish, Fail, AskUser, TakeOver:
		return a.validateFields() // not at a point
	default: // not a type
		return a.validateFields()
	}
	return on(a.X, a.Y)
}

// validateFields checks an action that is not at a point: its words.
func (a Action) validateFields() error {
	missing := ""
	switch a.Type {
	case TypeText:
		if a.Text == "" && !a.Submit {
			missing = "no text"
		}
	case Key:
		if a.Key == "" {
			missing = "no key"
		}
	case Hotkey:
		if len(a.Keys) == 0 {
			missing = "no keys"
		}
	case Launch:
		if strings.TrimSpace(a.App) == "" {
			missing = "no app"
		}
	case Wait:
		if a.Ms < 0 {
			missing = "negative duration"
		}
	case Finish:
		if strings.TrimSpace(a.Summary) == "" {
			missing = "a summary is required"
		}
	case Fail:
		if strings.TrimSpace(a.Reason) == "" {
			missing = "a reason is required"
		}
	case AskUser:
		if strings.TrimSpace(a.Question) == "" {
			missing = "no question"
		}
	case TakeOver:
	case Tap, DoubleTap, LongPress, Swipe, Drag, RightClick, Scroll:
		return a.validatePoints(Size{}) // at a point
	default: // not a type (a reply's or a record's word)
		return fmt.Errorf("%w: unknown type %q", ErrInvalid, a.Type)
	}
	if missing != "" {
		return a.invalid("%s", missing)
	}
	return nil
}

// String renders the action briefly for logs, timelines and history prompts.
func (a Action) String() string {
	switch a.Type {
	case Tap, DoubleTap, RightClick:
		return fmt.Sprintf("%s(%d,%d)", a.Type, a.X, a.Y)
	case LongPress:
		return fmt.Sprintf("long_press(%d,%d,%dms)", a.X, a.Y, a.Ms)
	case Swipe, Drag:
		return fmt.Sprintf("%s(%d,%d→%d,%d)", a.Type, a.X, a.Y, a.X2, a.Y2)
	case Scroll:
		return fmt.Sprintf("scroll(%d,%d,%s)", a.X, a.Y, a.Direction)
	case TypeText:
		return fmt.Sprintf("type(%q)", a.Text)
	case Key:
		return "key(" + a.Key + ")"
	case Hotkey:
		return "hotkey(" + strings.Join(a.Keys, "+") + ")"
	case Launch:
		return "launch(" + a.App + ")"
	case Wait:
		return fmt.Sprintf("wait(%dms)", a.Ms)
	case Finish:
		return fmt.Sprintf("finish(%q)", a.Summary)
	case Fail:
		return fmt.Sprintf("fail(%q)", a.Reason)
	case AskUser:
		return fmt.Sprintf("ask_user(%q)", a.Question)
	case TakeOver:
		return fmt.Sprintf("take_over(%q)", a.Reason)
	}
	return string(a.Type)
}
