package eval

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Screen is what the oracle reads of one request: the goal, the compact UI
// state the tools dialect sends (elements with their text and bounds in
// screen pixels), and the text of the request (its history and notes).
type Screen struct {
	Goal string
	W, H int
	Els  []El
	Text string
	// Memo is what the oracle noted in earlier steps of this run (what a
	// model keeps in its context): values read on one screen and used on
	// another.
	Memo map[string]string
}

// El is one element of the compact UI state.
type El struct {
	I       int      `json:"i"`
	Text    string   `json:"text"`
	Type    string   `json:"type"`
	Bounds  [4]int   `json:"bounds"`
	Actions []string `json:"actions"`
}

func (e El) cx() int { return (e.Bounds[0] + e.Bounds[2]) / 2 }
func (e El) cy() int { return (e.Bounds[1] + e.Bounds[3]) / 2 }

// parseScreen reads the user turn's text as the tools dialect writes it
// (dialect.userText: "Task:" then the goal, …, and the UI state's JSON
// after its label, in English or Chinese).
func parseScreen(text string) (*Screen, error) {
	s := &Screen{Text: text}
	for _, label := range []string{"Task:\n", "任务：\n"} {
		if i := strings.Index(text, label); i >= 0 {
			rest := text[i+len(label):]
			s.Goal, _, _ = strings.Cut(rest, "\n")
			break
		}
	}
	i := strings.LastIndex(text, `{"screen":`)
	if i < 0 {
		return s, fmt.Errorf("the request has no UI state (turn on the UI tree: the oracle reads the screen from it)")
	}
	var st struct {
		Screen   [2]int `json:"screen"`
		Elements []El   `json:"elements"`
	}
	if err := json.NewDecoder(strings.NewReader(text[i:])).Decode(&st); err != nil {
		return s, fmt.Errorf("the UI state is not JSON: %w", err)
	}
	s.W, s.H, s.Els = st.Screen[0], st.Screen[1], st.Elements
	return s, nil
}

// Find is the first element whose text is s, else the first that
// contains it (nil: none).
func (s *Screen) Find(text string) *El {
	for i := range s.Els {
		if s.Els[i].Text == text {
			return &s.Els[i]
		}
	}
	for i := range s.Els {
		if strings.Contains(s.Els[i].Text, text) {
			return &s.Els[i]
		}
	}
	return nil
}

// FindType is the first element of type typ whose text contains text.
func (s *Screen) FindType(typ, text string) *El {
	for i := range s.Els {
		if s.Els[i].Type == typ && strings.Contains(s.Els[i].Text, text) {
			return &s.Els[i]
		}
	}
	return nil
}

// Has reports whether some element's text contains text.
func (s *Screen) Has(text string) bool { return s.Find(text) != nil }

// Title is the text of the screen's first element (an app bar's title).
func (s *Screen) Title() string {
	if len(s.Els) == 0 {
		return ""
	}
	return s.Els[0].Text
}

// Under is the first element that can be acted on below the label's
// element (a form's field under its label), nil when the label or the
// field is not on the screen (under the keyboard).
func (s *Screen) Under(label string) *El {
	var l *El
	for i := range s.Els {
		if s.Els[i].Text == label && s.Els[i].Type == "text" {
			l = &s.Els[i]
			break
		}
	}
	if l == nil {
		return nil
	}
	for i := range s.Els {
		e := &s.Els[i]
		if e.Bounds[1] >= l.Bounds[3]-2 && e.Bounds[1] <= l.Bounds[3]+80 && len(e.Actions) > 0 {
			return e
		}
	}
	return nil
}

// KeyboardUp reports whether the keyboard covers the screen's foot.
func (s *Screen) KeyboardUp() bool { return s.Has("q w e r t y u i o p") }

// Act is one action the oracle answers with: a canonical tool's name and
// its arguments (points in screen pixels, turned into the dialect's grid
// when written).
type Act struct {
	Tool string
	Args map[string]any
	At   *El // the element a pointed act aims at
}

func tap(e *El) Act         { return Act{Tool: "tap", At: e} }
func typeText(t string) Act { return Act{Tool: "type", Args: map[string]any{"text": t}} }
func key(k string) Act      { return Act{Tool: "key", Args: map[string]any{"key": k}} }
func launch(app string) Act { return Act{Tool: "launch", Args: map[string]any{"app": app}} }
func fail(why string) Act   { return Act{Tool: "fail", Args: map[string]any{"reason": why}} }
func askUser(q string) Act  { return Act{Tool: "ask_user", Args: map[string]any{"question": q}} }
func finish(sum string) Act {
	return Act{Tool: "finish", Args: map[string]any{"summary": sum, "success": true}}
}
func swipeUp(s *Screen) Act {
	x := s.W / 2
	return Act{Tool: "swipe", Args: map[string]any{"x": x, "y": s.H * 3 / 4, "x2": x, "y2": s.H * 3 / 8}}
}

// fill is the acts that put want into the field under label: tap it and
// type (clearing it first when it holds something else); nil when it holds
// want already. hidden says the field is not on the screen.
func (s *Screen) fill(label, want string) (acts []Act, hidden bool) {
	f := s.Under(label)
	if f == nil {
		return nil, true
	}
	if f.Text == want {
		return nil, false
	}
	acts = []Act{tap(f)}
	if f.Text != label && f.Text != "" { // a value, not the hint
		for range []rune(f.Text) {
			acts = append(acts, key("delete"))
		}
	}
	return append(acts, typeText(want)), false
}

// toolCall renders a as the tools dialect's call, its points in rel1000.
func (s *Screen) toolCall(a Act) string {
	args := map[string]any{}
	for k, v := range a.Args {
		args[k] = v
	}
	rel := func(x, y int) (int, int) {
		if s.W <= 0 || s.H <= 0 {
			return x, y
		}
		return (x*1000 + s.W/2) / s.W, (y*1000 + s.H/2) / s.H
	}
	if a.At != nil {
		args["x"], args["y"] = rel(a.At.cx(), a.At.cy())
		args["element"] = a.At.I
	} else if x, ok := args["x"].(int); ok {
		args["x"], args["y"] = rel(x, args["y"].(int))
		if x2, ok := args["x2"].(int); ok {
			args["x2"], args["y2"] = rel(x2, args["y2"].(int))
		}
	}
	b, _ := json.Marshal(map[string]any{"name": a.Tool, "arguments": args})
	return "<tool_call>\n" + string(b) + "\n</tool_call>"
}
