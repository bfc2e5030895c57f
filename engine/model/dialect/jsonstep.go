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
	m := newMapper(j.Coords, g)
	// target reads params.index (via the UI state) or params.x/y.
	target := func() (x, y int, el *int, ok bool, err error) {
		if v, has := numArg(p, "index"); has {
			i := int(v)
			if g.Elements == nil {
				return 0, 0, nil, true, errf("index given but there is no UI state this step; use x and y")
			}
			r, found := g.Elements[i]
			if !found || float64(i) != v {
				return 0, 0, nil, true, errf("element " + num(v) + " is not in the UI state")
			}
			x, y = center(r)
			return x, y, &i, true, nil
		}
		px, okx := numArg(p, "x")
		py, oky := numArg(p, "y")
		if okx && oky {
			x, y, err = m.point(px, py)
			return x, y, nil, true, err
		}
		return 0, 0, nil, false, nil
	}
	pointed := func(t action.Type, ms int) ([]action.Action, error) {
		x, y, el, ok, err := target()
		if err == nil && !ok {
			err = errf(name + ` needs params {"index": N} or {"x": …, "y": …}`)
		}
		return []action.Action{{Type: t, X: x, Y: y, Ms: ms, Element: el}}, err
	}
	switch name {
	case "click", "tap":
		return pointed(action.Tap, 0)
	case "long_press", "long_click":
		return pointed(action.LongPress, longPressMs)
	case "double_tap", "double_click":
		return pointed(action.DoubleTap, 0)
	case "swipe", "scroll":
		dir := strings.ToLower(str(p, "direction"))
		if dir == "" {
			x1, ok1 := numArg(p, "x1")
			y1, ok2 := numArg(p, "y1")
			x2, ok3 := numArg(p, "x2")
			y2, ok4 := numArg(p, "y2")
			if !ok1 || !ok2 || !ok3 || !ok4 {
				return nil, errf(name + ` needs params {"direction": "up|down|left|right"}`)
			}
			ax, ay, err := m.point(x1, y1)
			if err != nil {
				return nil, err
			}
			bx, by, err := m.point(x2, y2)
			return []action.Action{{Type: action.Swipe, X: ax, Y: ay, X2: bx, Y2: by, Ms: swipeMs}}, err
		}
		x, y, el, ok, err := target()
		if err != nil {
			return nil, err
		}
		if !ok {
			x, y = g.Screen.W/2, g.Screen.H/2
		}
		return []action.Action{{Type: action.Scroll, X: x, Y: y, Direction: dir, Element: el}}, nil
	case "input", "type":
		t := action.Action{Type: action.TypeText, Text: str(p, "text")}
		t.Submit, _ = p["submit"].(bool)
		x, y, el, ok, err := target()
		if err != nil {
			return nil, err
		}
		if ok { // input into an element: focus it first
			return []action.Action{{Type: action.Tap, X: x, Y: y, Element: el}, t}, nil
		}
		return []action.Action{t}, nil
	case "back", "home", "enter":
		return []action.Action{{Type: action.Key, Key: name}}, nil
	case "key":
		return []action.Action{{Type: action.Key, Key: keyName(str(p, "key"))}}, nil
	case "launch", "open", "open_app":
		return []action.Action{{Type: action.Launch, App: str(p, "app", "name", "text")}}, nil
	case "wait":
		ms := waitMs
		if v, ok := numArg(p, "ms"); ok {
			ms = int(v)
		} else if v, ok := numArg(p, "seconds"); ok {
			ms = int(v * 1000)
		}
		return []action.Action{{Type: action.Wait, Ms: ms}}, nil
	case "finish", "done":
		sum := str(p, "summary", "message", "text")
		s, ok := p["success"].(bool)
		if !ok {
			s = true
		}
		if strings.TrimSpace(sum) == "" {
			return nil, errf(`finish needs params {"summary": "what was done"}`)
		}
		return []action.Action{{Type: action.Finish, Summary: sum, Success: &s}}, nil
	case "fail":
		return []action.Action{{Type: action.Fail, Reason: str(p, "reason", "message")}}, nil
	case "ask_user", "ask":
		return []action.Action{{Type: action.AskUser, Question: str(p, "question", "text")}}, nil
	case "take_over":
		return []action.Action{{Type: action.TakeOver, Reason: str(p, "reason", "message")}}, nil
	case "":
		return nil, errf(`the reply has no "action"`)
	}
	return nil, errf("unknown action " + name + "; use click, long_press, swipe, input, back, home, launch, wait, finish, fail, ask_user")
}
