package dialect

import (
	"strings"

	"tandem/engine/action"
	"tandem/engine/model"
)

// Reading Qwen-VL's mobile_use / computer_use tool calls (the Tools
// dialect's Qwen forms) into canonical actions.

// qwenAction reads Qwen-VL's mobile_use / computer_use arguments.
// cur is computer_use's mouse: left_click, right_click, double_click and
// left_click_drag may name no coordinate (agent_function_call.py), and then
// act at the cursor; mouse_move only moves it (a Wait of 0 ms, so the model
// sees the next screen).
func qwenAction(args map[string]any, m mapper, g model.Geometry, thought string, cur *cursor) (as []action.Action, salv string, err error) {
	defer func() {
		if err == nil && len(as) == 1 && as[0].Type.Pointed() {
			a := as[0]
			if a.Type == action.Drag || a.Type == action.Swipe {
				cur.put(a.X2, a.Y2)
			} else {
				cur.put(a.X, a.Y)
			}
		}
	}()
	c := qwenRead{args: args, m: m, g: g, cur: cur, act: str(args, "action")}
	switch c.act {
	case "click", "left_click":
		return c.at("coordinate", action.Tap, 0)
	case "double_click":
		return c.at("coordinate", action.DoubleTap, 0)
	case "right_click":
		return c.at("coordinate", action.RightClick, 0)
	case "long_press":
		return c.at("coordinate", action.LongPress, c.secs(longPressMs))
	case "mouse_move":
		return c.mouseMove()
	case "left_click_drag":
		if _, ok := args["coordinate2"]; !ok {
			return c.dragFromCursor()
		}
		return c.drag()
	case "swipe", "drag":
		return c.drag()
	case "key":
		return c.key()
	case "scroll", "hscroll":
		v, _ := numArg(args, "pixels")
		dir := map[bool]string{true: "up", false: "down"}[v > 0]
		if c.act == "hscroll" {
			dir = map[bool]string{true: "right", false: "left"}[v > 0]
		}
		return scrollAt(args, m, g, dir)
	}
	return c.command(thought)
}

// qwenRead is one computer_use / mobile_use call being read.
type qwenRead struct {
	args map[string]any
	m    mapper
	g    model.Geometry
	cur  *cursor
	act  string
}

// at is an action of type t at the point under key k (the cursor's, for
// the actions that may name none).
func (c qwenRead) at(k string, t action.Type, ms int) ([]action.Action, string, error) {
	p, ok, err := pair(c.args, k)
	if err == nil && !ok {
		if x, y, set := c.cur.get(); set && k == "coordinate" && c.act != "click" && c.act != "long_press" {
			return []action.Action{{Type: t, X: x, Y: y, Ms: ms}}, "", nil
		}
		err = errf(c.act + " needs " + k)
	}
	if err != nil {
		return nil, "", err
	}
	x, y, err := c.m.point(p[0], p[1])
	return []action.Action{{Type: t, X: x, Y: y, Ms: ms}}, "", err
}

// secs is the call's time in milliseconds, def when it gives none.
func (c qwenRead) secs(def int) int {
	if v, ok := numArg(c.args, "time"); ok && v >= 0 {
		return int(v * 1000)
	}
	return def
}

func (c qwenRead) mouseMove() ([]action.Action, string, error) {
	p, ok, err := pair(c.args, "coordinate")
	if err == nil && !ok {
		err = errf("mouse_move needs coordinate")
	}
	if err != nil {
		return nil, "", err
	}
	x, y, err := c.m.point(p[0], p[1])
	if err != nil {
		return nil, "", err
	}
	c.cur.put(x, y)
	return []action.Action{{Type: action.Wait}}, "", nil
}

// dragFromCursor is Qwen's form of left_click_drag: from the cursor to
// coordinate.
func (c qwenRead) dragFromCursor() ([]action.Action, string, error) {
	sx, sy, set := c.cur.get()
	if !set {
		return nil, "", errf("left_click_drag needs the cursor placed first (mouse_move) or coordinate and coordinate2")
	}
	b, _, err := c.at("coordinate", action.Drag, dragMs)
	if err != nil {
		return nil, "", err
	}
	b[0].X, b[0].Y, b[0].X2, b[0].Y2 = sx, sy, b[0].X, b[0].Y
	return b, "", nil
}

// drag is a swipe or drag between two named points (MAI-UI: a swipe may
// name a direction instead).
func (c qwenRead) drag() ([]action.Action, string, error) {
	k1, k2 := "coordinate", "coordinate2"
	if _, ok := c.args["start_coordinate"]; ok {
		k1, k2 = "start_coordinate", "end_coordinate"
	}
	if _, ok := c.args[k2]; !ok {
		if d := str(c.args, "direction"); d != "" && c.act == "swipe" {
			return scrollAt(c.args, c.m, c.g, d)
		}
		return nil, "", errf(c.act + " needs " + k1 + " and " + k2)
	}
	a, _, err := c.at(k1, action.Swipe, swipeMs)
	if err != nil {
		return nil, "", err
	}
	b, _, err := c.at(k2, action.Swipe, 0)
	if err != nil {
		return nil, "", err
	}
	a[0].X2, a[0].Y2 = b[0].X, b[0].Y
	if c.act != "swipe" {
		a[0].Type, a[0].Ms = action.Drag, dragMs
	}
	return a, "", nil
}

func (c qwenRead) key() ([]action.Action, string, error) {
	var keys []string
	if ks, ok := c.args["keys"].([]any); ok {
		for _, k := range ks {
			if s, ok := k.(string); ok {
				keys = append(keys, keyName(s))
			}
		}
	} else if s := str(c.args, "text", "key"); s != "" {
		for _, k := range strings.FieldsFunc(s, func(r rune) bool { return r == '+' || r == ' ' }) {
			keys = append(keys, keyName(k))
		}
	}
	switch len(keys) {
	case 0:
		return nil, "", errf("key needs keys")
	case 1:
		return []action.Action{{Type: action.Key, Key: keys[0]}}, "", nil
	}
	return []action.Action{{Type: action.Hotkey, Keys: keys}}, "", nil
}

// command reads the calls that need no point of the screen.
func (c qwenRead) command(thought string) ([]action.Action, string, error) {
	args := c.args
	one := func(a action.Action) ([]action.Action, string, error) { return []action.Action{a}, "", nil }
	switch c.act {
	case "type":
		return one(action.Action{Type: action.TypeText, Text: str(args, "text")})
	case "system_button":
		return one(action.Action{Type: action.Key, Key: keyName(str(args, "button"))})
	case "open", "awake":
		return one(action.Action{Type: action.Launch, App: str(args, "text", "app")})
	case "wait":
		return one(action.Action{Type: action.Wait, Ms: c.secs(waitMs)})
	case "answer":
		return one(action.Action{Type: action.Finish, Summary: str(args, "text"), Success: ptrTrue()})
	case "ask_user", "info", "INFO":
		return one(action.Action{Type: action.AskUser, Question: str(args, "text")})
	case "terminate":
		ok := strings.HasPrefix(strings.ToLower(str(args, "status")), "succ")
		why := thought
		salv := ""
		if why == "" {
			why = "the model ended the task with status " + str(args, "status") + " and no summary"
			salv = "terminate carried no summary"
		}
		if ok {
			return []action.Action{{Type: action.Finish, Summary: why, Success: ptrTrue()}}, salv, nil
		}
		return []action.Action{{Type: action.Fail, Reason: why}}, salv, nil
	}
	return nil, "", errf("action " + c.act + " is not one Tandem can do")
}
