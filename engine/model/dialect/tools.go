package dialect

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	"tandem/engine/action"
	"tandem/engine/model"
)

// Tools is OpenAI function calling with the canonical actions as tools. It
// also reads Qwen-style <tool_call>{json}</tool_call> in the content,
// including Qwen2.5-VL/Qwen3-VL's mobile_use and computer_use tools.
type Tools struct {
	Coords Space
	// cursor is where computer_use's mouse is, for its clicks and drags
	// that name no coordinate (nil: not tracked, such a click is an error).
	cursor *cursor
}

// cursor is the mouse position in device pixels, as Qwen's computer_use
// last placed it (mouse_move, or any pointed action).
type cursor struct {
	mu   sync.Mutex
	x, y int
	set  bool
}

func (c *cursor) get() (int, int, bool) {
	if c == nil {
		return 0, 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.x, c.y, c.set
}

func (c *cursor) put(x, y int) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.x, c.y, c.set = x, y, true
	c.mu.Unlock()
}

// Name implements model.Dialect.
func (Tools) Name() string { return "tools" }

// ImageBudget implements model.Dialect. In abs mode the image is
// smart-resized so its size is exactly what a Qwen-VL model sees.
func (t Tools) ImageBudget() model.ImageBudget {
	b := model.ImageBudget{MaxPixels: 1280 * 28 * 28, Format: "jpeg", KeepLast: 2, Always: true}
	if t.Coords == Abs {
		b.Factor, b.MinPixels = 28, 4*28*28
	}
	return b
}

// ImageBudgetFor implements model.ModelBudgeter: a Qwen2.5-VL model gets
// the bounds its cookbook resizes with (cookbooks/mobile_agent.ipynb:
// smart_resize with the processor's min_pixels 4·28·28 and max_pixels
// 16384·28·28), so the resolution its tool states is the image it sees.
func (t Tools) ImageBudgetFor(modelName string) model.ImageBudget {
	b := t.ImageBudget()
	if qwenNative(t.Coords, modelName) {
		b.MinPixels, b.MaxPixels = 4*28*28, 16384*28*28
	}
	return b
}

// StreamDone implements model.Dialect.
func (Tools) StreamDone(partial string) bool { return false }

var toolCallRe = regexp.MustCompile(`(?s)<tool_call>(.*?)(?:</tool_call>|$)`)

type toolJSON struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Parse implements model.Dialect.
func (t Tools) Parse(r model.Reply, g model.Geometry) (model.Parsed, error) {
	raw := r.Content
	m := newMapper(t.Coords, g)
	var calls []toolJSON
	for _, tc := range r.ToolCalls {
		calls = append(calls, toolJSON{Name: tc.Name, Arguments: json.RawMessage(tc.Arguments)})
	}
	content := boxTokens.Replace(r.Content)
	for _, mm := range toolCallRe.FindAllStringSubmatch(content, -1) {
		var c toolJSON
		if err := json.Unmarshal([]byte(strings.TrimSpace(mm[1])), &c); err != nil {
			return model.Parsed{}, fail(raw, "the <tool_call> is not JSON {\"name\":…,\"arguments\":{…}}: %v", err)
		}
		calls = append(calls, c)
	}
	thought := strings.TrimSpace(toolCallRe.ReplaceAllString(content, ""))
	salvaged := ""
	if len(calls) == 0 {
		if c, rest, ok := bareCall(content); ok {
			calls, thought = append(calls, c), rest
			salvaged = "read a JSON action written without <tool_call> tags"
		}
	}
	thought = strings.TrimSpace(strings.TrimPrefix(thought, "Thought:"))
	if thought == "" {
		thought = strings.TrimSpace(r.Reasoning)
	}
	if len(calls) == 0 {
		return model.Parsed{}, fail(raw, "no tool call in the reply: call one of the tools (finish to end the task)")
	}
	p := model.Parsed{Thought: thought, Salvaged: salvaged}
	for _, c := range calls {
		args, err := toolArgs(c.Arguments)
		if err != nil {
			return model.Parsed{}, fail(raw, "%s: %v", c.Name, err)
		}
		var as []action.Action
		switch c.Name {
		case "mobile_use", "computer_use":
			var salv string
			as, salv, err = qwenAction(args, m, g, thought, t.cursor)
			if salv != "" {
				p.Salvaged = salv
			}
		default:
			as, err = canonicalAction(c.Name, args, m, g)
		}
		if err != nil {
			return model.Parsed{}, fail(raw, "%s: %v", c.Name, err)
		}
		p.Actions = append(p.Actions, as...)
	}
	return finishUp(raw, p, g.Screen)
}

// bareCall reads a call written as bare JSON in the content, fenced or
// not: {"name": "mobile_use", "arguments": {…}}, or the arguments alone,
// {"action": "click", "coordinate": [x, y]} (Qwen's mobile_use form). rest
// is the text around it.
func bareCall(content string) (toolJSON, string, bool) {
	s, _ := unfence(content)
	i, j := strings.Index(s, "{"), strings.LastIndex(s, "}")
	if i < 0 || j < i {
		return toolJSON{}, "", false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(s[i:j+1]), &obj) != nil {
		return toolJSON{}, "", false
	}
	rest := strings.TrimSpace(s[:i] + s[j+1:])
	if name, ok := obj["name"]; ok {
		var c toolJSON
		if json.Unmarshal(name, &c.Name) != nil || c.Name == "" {
			return toolJSON{}, "", false
		}
		c.Arguments = obj["arguments"]
		return c, rest, true
	}
	if _, ok := obj["action"]; ok {
		return toolJSON{Name: "mobile_use", Arguments: json.RawMessage(s[i : j+1])}, rest, true
	}
	return toolJSON{}, "", false
}

// toolArgs decodes arguments given as an object or as a JSON string holding
// one (possibly encoded twice).
func toolArgs(b json.RawMessage) (map[string]any, error) {
	if len(b) == 0 {
		return map[string]any{}, nil
	}
	for range 2 {
		var s string
		if json.Unmarshal(b, &s) != nil {
			break
		}
		if strings.TrimSpace(s) == "" {
			return map[string]any{}, nil
		}
		b = json.RawMessage(s)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, errf("arguments are not a JSON object: " + err.Error())
	}
	return out, nil
}

func str(args map[string]any, keys ...string) string {
	for _, k := range keys {
		switch v := args[k].(type) {
		case string:
			return v
		case float64:
			return num(v)
		}
	}
	return ""
}

func numArg(args map[string]any, k string) (float64, bool) {
	switch v := args[k].(type) {
	case float64:
		return v, true
	case string:
		ns := numbers(v)
		if len(ns) == 1 {
			return ns[0], true
		}
	}
	return 0, false
}

// pair reads [x,y] (or a box [x1,y1,x2,y2], its centre) from args[k].
func pair(args map[string]any, k string) ([]float64, bool, error) {
	v, ok := args[k]
	if !ok || v == nil {
		return nil, false, nil
	}
	var ns []float64
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			f, ok := e.(float64)
			if !ok {
				return nil, true, errf(k + " must hold numbers")
			}
			ns = append(ns, f)
		}
	case string:
		ns = numbers(v)
	}
	switch len(ns) {
	case 2:
		return ns, true, nil
	case 4:
		return []float64{(ns[0] + ns[2]) / 2, (ns[1] + ns[3]) / 2}, true, nil
	}
	return nil, true, errf(k + " must be [x, y]")
}

// canonicalAction reads one of our own tools.
func canonicalAction(name string, args map[string]any, m mapper, g model.Geometry) ([]action.Action, error) {
	a := action.Action{Type: action.Type(name)}
	known := false
	for _, t := range action.All {
		known = known || t == a.Type
	}
	if !known {
		return nil, errf("unknown tool; use one of the given tools")
	}
	pt := func(kx, ky string) (int, int, error) {
		x, okx := numArg(args, kx)
		y, oky := numArg(args, ky)
		if !okx || !oky {
			return 0, 0, errf("needs " + kx + " and " + ky)
		}
		return m.point(x, y)
	}
	var err error
	if a.Type.Pointed() {
		if a.X, a.Y, err = pt("x", "y"); err != nil {
			if a.Type != action.Scroll {
				return nil, err
			}
			a.X, a.Y = g.Screen.W/2, g.Screen.H/2
		}
	}
	if a.Type == action.Swipe || a.Type == action.Drag {
		if a.X2, a.Y2, err = pt("x2", "y2"); err != nil {
			return nil, err
		}
	}
	if v, ok := numArg(args, "ms"); ok {
		a.Ms = int(v)
	}
	if a.Ms == 0 {
		switch a.Type {
		case action.LongPress:
			a.Ms = longPressMs
		case action.Swipe:
			a.Ms = swipeMs
		case action.Drag:
			a.Ms = dragMs
		case action.Wait:
			a.Ms = waitMs
		case action.Tap, action.DoubleTap, action.RightClick, action.Scroll, action.TypeText, action.Key, action.Hotkey,
			action.Launch, action.Finish, action.Fail, action.AskUser, action.TakeOver:
			// no duration
		}
	}
	a.Direction = str(args, "direction")
	a.Text = str(args, "text")
	a.Submit, _ = args["submit"].(bool)
	a.Key = keyName(str(args, "key"))
	if ks, ok := args["keys"].([]any); ok {
		for _, k := range ks {
			if s, ok := k.(string); ok {
				a.Keys = append(a.Keys, keyName(s))
			}
		}
	}
	a.App = str(args, "app")
	a.Summary = str(args, "summary")
	if a.Type == action.Finish {
		s, ok := args["success"].(bool)
		if !ok {
			s = true
		}
		a.Success = &s
	}
	a.Reason = str(args, "reason")
	a.Question = str(args, "question")
	a.Sensitive = str(args, "sensitive")
	if v, ok := numArg(args, "element"); ok {
		i := int(v)
		a.Element = &i
	}
	return []action.Action{a}, nil
}

// toolDefs describes the canonical actions as OpenAI tools.
func toolDefs(supported []action.Type, s Space) []model.Tool {
	coord := "relative 0–1000 (0,0 top-left, 1000,1000 bottom-right)"
	switch s {
	case Rel999:
		coord = "relative 0–999 (0,0 top-left, 999,999 bottom-right)"
	case Abs:
		coord = "pixels of the screenshot"
	case Rel1000: // as above
	default: // not a space (a dialect made without New): as rel1000
	}
	var out []model.Tool
	for _, t := range action.All {
		if !supportedOrEngine(t, supported) {
			continue
		}
		spec := toolSpecs[t]
		props := map[string]any{
			"sensitive": strParam("set when this step pays, sends, deletes, installs or grants something: say why, so the person confirms first"),
		}
		req := []string{}
		if t.Pointed() {
			props["x"], props["y"] = numParam("x, "+coord), numParam("y, "+coord)
			props["element"] = map[string]any{"type": "integer", "description": "index of the targeted element in the UI state, if any"}
			req = append(req, "x", "y")
		}
		for _, p := range spec.params {
			props[p.name] = p.schema(coord)
			if p.required {
				req = append(req, p.name)
			}
		}
		out = append(out, model.Tool{Name: string(t), Description: spec.desc,
			Parameters: map[string]any{"type": "object", "properties": props, "required": req}})
	}
	return out
}

func numParam(d string) map[string]any { return map[string]any{"type": "number", "description": d} }
func strParam(d string) map[string]any { return map[string]any{"type": "string", "description": d} }

// toolParam is one parameter of a tool besides the point every pointed
// action takes.
type toolParam struct {
	name     string
	schema   func(coord string) map[string]any
	required bool
}

func pNum(name, desc string, required bool) toolParam {
	return toolParam{name, func(string) map[string]any { return numParam(desc) }, required}
}

func pText(name, desc string, required bool) toolParam {
	return toolParam{name, func(string) map[string]any { return strParam(desc) }, required}
}

func pEnd(name, desc string) toolParam {
	return toolParam{name, func(coord string) map[string]any { return numParam(desc + ", " + coord) }, true}
}

func pFixed(name string, schema map[string]any, required bool) toolParam {
	return toolParam{name, func(string) map[string]any { return schema }, required}
}

// toolSpecs describe each canonical action as a tool: what it does and its
// parameters.
var toolSpecs = map[action.Type]struct {
	desc   string
	params []toolParam
}{
	action.Tap:        {"Tap a point.", nil},
	action.DoubleTap:  {"Double-tap a point.", nil},
	action.LongPress:  {"Press and hold a point.", []toolParam{pNum("ms", "duration in milliseconds", false)}},
	action.RightClick: {"Right-click a point (desktop).", nil},
	action.Swipe:      {"Move a finger from (x,y) to (x2,y2).", swipeParams},
	action.Drag:       {"Move a finger from (x,y) to (x2,y2).", swipeParams},
	action.Scroll: {"Scroll at a point to show more content on the given side.", []toolParam{
		pFixed("direction", map[string]any{"type": "string", "enum": []string{"up", "down", "left", "right"}}, true)}},
	action.TypeText: {"Type text into the focused field.", []toolParam{pText("text", "text to type", true),
		pFixed("submit", map[string]any{"type": "boolean", "description": "press Enter after typing"}, false)}},
	action.Key:    {"Press a key: back, home, enter, delete, tab, escape, …", []toolParam{pText("key", "key name", true)}},
	action.Hotkey: {"Press a key combination.", []toolParam{pFixed("keys", map[string]any{"type": "array", "items": map[string]any{"type": "string"}}, true)}},
	action.Launch: {"Open an app by name.", []toolParam{pText("app", "app name or package", true)}},
	action.Wait:   {"Wait for the screen to change.", []toolParam{pNum("ms", "milliseconds", false)}},
	action.Finish: {"The task is done (or cannot be done further): end it with a summary of what was done and found.", []toolParam{
		pText("summary", "what was done, and the answer if the task asked a question", true), pFixed("success", map[string]any{"type": "boolean"}, false)}},
	action.Fail:     {"The task cannot be done: say why.", []toolParam{pText("reason", "why", true)}},
	action.AskUser:  {"Ask the person a question (a choice only they can make, missing information).", []toolParam{pText("question", "the question", true)}},
	action.TakeOver: {"Hand control to the person (log-in, captcha, payment password).", []toolParam{pText("reason", "what they should do", false)}},
}

var swipeParams = []toolParam{pEnd("x2", "end x"), pEnd("y2", "end y"), pNum("ms", "duration in milliseconds", false)}

func supportedOrEngine(t action.Type, supported []action.Type) bool {
	switch t {
	case action.Finish, action.Fail, action.AskUser, action.TakeOver, action.Wait:
		return true
	case action.Tap, action.DoubleTap, action.LongPress, action.Swipe, action.Drag, action.RightClick, action.Scroll,
		action.TypeText, action.Key, action.Hotkey, action.Launch:
		// the device's: as it says below
	}
	if len(supported) == 0 {
		return true
	}
	for _, s := range supported {
		if s == t {
			return true
		}
	}
	return false
}

// scrollAt is a scroll at the reply's optional "coordinate", or at the
// screen's centre when the model gave none (Qwen scroll, MAI-UI swipe).
func scrollAt(args map[string]any, m mapper, g model.Geometry, dir string) ([]action.Action, string, error) {
	x, y := g.Screen.W/2, g.Screen.H/2
	if p, ok, err := pair(args, "coordinate"); err != nil {
		return nil, "", err
	} else if ok {
		if x, y, err = m.point(p[0], p[1]); err != nil {
			return nil, "", err
		}
	}
	return []action.Action{{Type: action.Scroll, X: x, Y: y, Direction: dir}}, "", nil
}
