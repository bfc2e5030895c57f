package dialect

import (
	"encoding/json"
	"strings"

	"tandem/engine/action"
	"tandem/engine/model"
)

// JSON is seed 003's one-step JSON for small local models:
// {"thought": "...", "action": "click", "params": {"index": 3}}, where an
// index names an element of the compact UI state (Geometry.Elements).
// Explicit coordinates are read in Coords (device pixels by default).
type JSON struct{ Coords Space }

// ReadsUITree implements model.TreeReader: the json dialect points at the
// compact state's elements by index.
func (JSON) ReadsUITree() bool { return true }

// Name implements model.Dialect.
func (JSON) Name() string { return "json" }

// ImageBudget implements model.Dialect: small, and only when the observer
// decides the tree is not enough.
func (JSON) ImageBudget() model.ImageBudget {
	return model.ImageBudget{MaxPixels: 640 * 28 * 28, MinPixels: 4 * 28 * 28, Factor: 28, Format: "jpeg", KeepLast: 1}
}

// StreamDone implements model.Dialect: done once the outer object closes.
func (JSON) StreamDone(partial string) bool {
	s := strings.TrimSpace(stripFence(partial))
	if !strings.HasPrefix(s, "{") {
		return false
	}
	var v map[string]any
	return json.Unmarshal([]byte(s), &v) == nil
}

func stripFence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "```"); i >= 0 {
		s = s[i+3:]
		s = strings.TrimPrefix(s, "json")
		if j := strings.Index(s, "```"); j >= 0 {
			s = s[:j]
		}
	}
	return s
}

// Parse implements model.Dialect.
func (j JSON) Parse(r model.Reply, g model.Geometry) (model.Parsed, error) {
	raw := r.Content
	s := stripFence(boxTokens.Replace(raw))
	// The object runs from the first "{" to the last "}".
	i, k := strings.Index(s, "{"), strings.LastIndex(s, "}")
	if i < 0 || k < i {
		return model.Parsed{}, fail(raw, `the reply is not a JSON object {"thought":…,"action":…,"params":{…}}`)
	}
	var v struct {
		Thought string         `json:"thought"`
		Action  string         `json:"action"`
		Params  map[string]any `json:"params"`
	}
	if err := json.Unmarshal([]byte(s[i:k+1]), &v); err != nil {
		return model.Parsed{}, fail(raw, "the reply is not valid JSON: %v", err)
	}
	if v.Params == nil {
		v.Params = map[string]any{}
	}
	as, err := j.action(strings.ToLower(strings.TrimSpace(v.Action)), v.Params, g)
	if err != nil {
		return model.Parsed{}, fail(raw, "%v", err)
	}
	return finishUp(raw, model.Parsed{Thought: v.Thought, Actions: as}, g.Screen)
}

func (j JSON) action(name string, p map[string]any, g model.Geometry) ([]action.Action, error) {
	s := jsonStep{name: name, p: p, g: g, m: newMapper(j.Coords, g)}
	switch name {
	case "click", "tap":
		return s.pointed(action.Tap, 0)
	case "long_press", "long_click":
		return s.pointed(action.LongPress, longPressMs)
	case "double_tap", "double_click":
		return s.pointed(action.DoubleTap, 0)
	case "swipe", "scroll":
		return s.swipe()
	case "input", "type":
		return s.input()
	}
	return jsonCommand(name, p)
}

// jsonStep is one step of the JSON dialect being read.
type jsonStep struct {
	name string
	p    map[string]any
	g    model.Geometry
	m    mapper
}

// target reads params.index (via the UI state) or params.x/y; ok is false
// when the step names neither.
func (s jsonStep) target() (x, y int, el *int, ok bool, err error) {
	if v, has := numArg(s.p, "index"); has {
		i := int(v)
		if s.g.Elements == nil {
			return 0, 0, nil, true, errf("index given but there is no UI state this step; use x and y")
		}
		r, found := s.g.Elements[i]
		if !found || float64(i) != v {
			return 0, 0, nil, true, errf("element " + num(v) + " is not in the UI state")
		}
		x, y = center(r)
		return x, y, &i, true, nil
	}
	px, okx := numArg(s.p, "x")
	py, oky := numArg(s.p, "y")
	if okx && oky {
		x, y, err = s.m.point(px, py)
		return x, y, nil, true, err
	}
	return 0, 0, nil, false, nil
}

func (s jsonStep) pointed(t action.Type, ms int) ([]action.Action, error) {
	x, y, el, ok, err := s.target()
	if err == nil && !ok {
		err = errf(s.name + ` needs params {"index": N} or {"x": …, "y": …}`)
	}
	return []action.Action{{Type: t, X: x, Y: y, Ms: ms, Element: el}}, err
}

// swipe is a swipe between two points, or a scroll in a direction (at
// the target, else the middle of the screen).
func (s jsonStep) swipe() ([]action.Action, error) {
	p := s.p
	dir := strings.ToLower(str(p, "direction"))
	if dir == "" {
		x1, ok1 := numArg(p, "x1")
		y1, ok2 := numArg(p, "y1")
		x2, ok3 := numArg(p, "x2")
		y2, ok4 := numArg(p, "y2")
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return nil, errf(s.name + ` needs params {"direction": "up|down|left|right"}`)
		}
		ax, ay, err := s.m.point(x1, y1)
		if err != nil {
			return nil, err
		}
		bx, by, err := s.m.point(x2, y2)
		return []action.Action{{Type: action.Swipe, X: ax, Y: ay, X2: bx, Y2: by, Ms: swipeMs}}, err
	}
	x, y, el, ok, err := s.target()
	if err != nil {
		return nil, err
	}
	if !ok {
		x, y = s.g.Screen.W/2, s.g.Screen.H/2
	}
	return []action.Action{{Type: action.Scroll, X: x, Y: y, Direction: dir, Element: el}}, nil
}

// input types text, into the target when there is one (focused first).
func (s jsonStep) input() ([]action.Action, error) {
	t := action.Action{Type: action.TypeText, Text: str(s.p, "text")}
	t.Submit, _ = s.p["submit"].(bool)
	x, y, el, ok, err := s.target()
	if err != nil {
		return nil, err
	}
	if ok {
		return []action.Action{{Type: action.Tap, X: x, Y: y, Element: el}, t}, nil
	}
	return []action.Action{t}, nil
}

// jsonCommand reads the steps that need no point of the screen.
func jsonCommand(name string, p map[string]any) ([]action.Action, error) {
	one := func(a action.Action) ([]action.Action, error) { return []action.Action{a}, nil }
	switch name {
	case "back", "home", "enter":
		return one(action.Action{Type: action.Key, Key: name})
	case "key":
		return one(action.Action{Type: action.Key, Key: keyName(str(p, "key"))})
	case "launch", "open", "open_app":
		return one(action.Action{Type: action.Launch, App: str(p, "app", "name", "text")})
	case "wait":
		ms := waitMs
		if v, ok := numArg(p, "ms"); ok {
			ms = int(v)
		} else if v, ok := numArg(p, "seconds"); ok {
			ms = int(v * 1000)
		}
		return one(action.Action{Type: action.Wait, Ms: ms})
	case "finish", "done":
		sum := str(p, "summary", "message", "text")
		s, ok := p["success"].(bool)
		if !ok {
			s = true
		}
		if strings.TrimSpace(sum) == "" {
			return nil, errf(`finish needs params {"summary": "what was done"}`)
		}
		return one(action.Action{Type: action.Finish, Summary: sum, Success: &s})
	case "fail":
		return one(action.Action{Type: action.Fail, Reason: str(p, "reason", "message")})
	case "ask_user", "ask":
		return one(action.Action{Type: action.AskUser, Question: str(p, "question", "text")})
	case "take_over":
		return one(action.Action{Type: action.TakeOver, Reason: str(p, "reason", "message")})
	case "":
		return nil, errf(`the reply has no "action"`)
	}
	return nil, errf("unknown action " + name + "; use click, long_press, swipe, input, back, home, launch, wait, finish, fail, ask_user")
}
