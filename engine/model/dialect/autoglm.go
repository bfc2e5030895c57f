package dialect

import (
	"regexp"
	"strings"

	"tandem/engine/action"
	"tandem/engine/model"
)

// AutoGLM is AutoGLM-Phone's dialect: <think>…</think><answer>do(...)</answer>
// with coordinates on a 0–999 grid, mapped as the reference client does
// (x/1000·width, truncated).
type AutoGLM struct{}

// Name implements model.Dialect.
func (AutoGLM) Name() string { return "autoglm" }

// ReadsCurrentApp implements model.AppReader: every AutoGLM step tells the
// model the app in front (current_app).
func (AutoGLM) ReadsCurrentApp() bool { return true }

// ImageBudget implements model.Dialect: the reference sends one full-size
// PNG screenshot, the newest (Open-AutoGLM phone_agent/adb/screenshot.py,
// model/client.py); GLM-4.1V sees 28-px patches up to 12,288·28² px.
func (AutoGLM) ImageBudget() model.ImageBudget {
	return model.ImageBudget{MaxPixels: 1080 * 2400, Format: "png", KeepLast: 1, Always: true}
}

// StreamDone implements model.Dialect: the reply is complete once the action
// call is closed.
func (AutoGLM) StreamDone(partial string) bool {
	return strings.Contains(partial, "</answer>")
}

var glmCallRe = regexp.MustCompile(`(?:^|[^A-Za-z_])(do\s*\(\s*action\s*=|finish\s*\(\s*message\s*=)`)

// Parse implements model.Dialect.
func (AutoGLM) Parse(r model.Reply, g model.Geometry) (model.Parsed, error) {
	raw := r.Content
	s, fenced := unfence(boxTokens.Replace(raw))
	var salv []string
	if fenced {
		salv = append(salv, "removed the code fence around the reply")
	}
	// The action lives after </think> (or in <answer>) when tags are there,
	// so a call quoted in the thinking is never executed.
	thought := ""
	region := s
	if i := strings.LastIndex(s, "</think>"); i >= 0 {
		thought = s[:i]
		region = s[i+len("</think>"):]
	}
	if i := strings.Index(region, "<answer>"); i >= 0 {
		thought += region[:i]
		region = region[i+len("<answer>"):]
	}
	m := glmCallRe.FindStringSubmatchIndex(region)
	if m == nil {
		return model.Parsed{}, fail(raw, `no action: the answer must be do(action="...", ...) or finish(message="...")`)
	}
	thought += region[:m[2]]
	body := region[m[2]:]
	body = strings.NewReplacer("</answer>", "", "<answer>", "", "</think>", "").Replace(body)
	body = strings.TrimRightFunc(body, func(c rune) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' })
	if !strings.HasSuffix(body, ")") {
		body += ")" // generation stopped before the closing parenthesis
		salv = append(salv, "added the missing closing parenthesis")
	}
	calls, end := scanCalls(body)
	if len(calls) == 0 {
		return model.Parsed{}, fail(raw, "cannot read the action call %q", clip(body))
	}
	if strings.TrimSpace(body[end:]) != "" || len(calls) > 1 {
		return model.Parsed{}, fail(raw, "give exactly one action per reply; unexpected text after it: %q", clip(body[end:]))
	}
	thought = strings.NewReplacer("<think>", "", "</think>", "", "<answer>", "", "</answer>", "").Replace(thought)
	a, err := glmAction(calls[0], g, strings.TrimSpace(thought))
	if err != nil {
		return model.Parsed{}, fail(raw, "%v", err)
	}
	p := model.Parsed{Thought: thought, Actions: a, Salvaged: strings.Join(salv, "; ")}
	if a[0].Type == action.Wait && a[0].Ms == 0 {
		p.Thought = strings.TrimSpace(p.Thought) + "\n" + a[0].Text
		a[0].Text = ""
	}
	return finishUp(raw, p, g.Screen)
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

type errf string

func (e errf) Error() string { return string(e) }

func glmAction(c call, g model.Geometry, thought string) ([]action.Action, error) {
	if c.name == "finish" {
		return []action.Action{{Type: action.Finish, Summary: c.args["message"], Success: ptrTrue()}}, nil
	}
	if c.name != "do" {
		return nil, errf("unknown call " + c.name)
	}
	name := strings.TrimSpace(c.args["action"])
	key := strings.ToLower(strings.ReplaceAll(name, "_", " "))
	if acts, ok, err := glmGesture(key, c, g); ok {
		return acts, err
	}
	if acts, ok, err := glmCommand(key, name, c, thought); ok {
		return acts, err
	}
	return nil, errf("unknown action " + name + "; use Launch, Tap, Type, Swipe, Long Press, Double Tap, Back, Home, Wait, Take_over, Interact, Note, Call_API or finish")
}

// glmGesture reads the actions at points of the screen (ok: key is one).
func glmGesture(key string, c call, g model.Geometry) ([]action.Action, bool, error) {
	// The prompt's grid ends at 999; 1000, its far edge, is the last pixel
	// as on every grid (newMapper), anything beyond is refused.
	m := newMapper(Rel1000, g)
	m.trunc = true
	pt := func(key string) (int, int, error) {
		v, ok := c.args[key]
		if !ok {
			return 0, 0, errf(c.args["action"] + " needs " + key + "=[x,y]")
		}
		ns := numbers(v)
		if len(ns) != 2 {
			return 0, 0, errf(key + " must be [x,y] on the 0–999 grid, got " + v)
		}
		return m.point(ns[0], ns[1])
	}
	switch key {
	case "tap", "click":
		x, y, err := pt("element")
		if err != nil {
			return nil, true, err
		}
		return []action.Action{{Type: action.Tap, X: x, Y: y, Sensitive: c.args["message"]}}, true, nil
	case "double tap":
		x, y, err := pt("element")
		return []action.Action{{Type: action.DoubleTap, X: x, Y: y}}, true, err
	case "long press":
		x, y, err := pt("element")
		return []action.Action{{Type: action.LongPress, X: x, Y: y, Ms: glmLongPressMs}}, true, err
	case "swipe":
		x, y, err := pt("start")
		if err != nil {
			return nil, true, err
		}
		x2, y2, err := pt("end")
		return []action.Action{{Type: action.Swipe, X: x, Y: y, X2: x2, Y2: y2, Ms: glmSwipeMs(x, y, x2, y2)}}, true, err
	}
	return nil, false, nil
}

// glmCommand reads the other actions (ok: key is one).
func glmCommand(key, name string, c call, thought string) ([]action.Action, bool, error) {
	one := func(a action.Action) ([]action.Action, bool, error) { return []action.Action{a}, true, nil }
	switch key {
	case "type", "type name":
		return one(action.Action{Type: action.TypeText, Text: c.args["text"], Clear: true})
	case "launch":
		return one(action.Action{Type: action.Launch, App: c.args["app"]})
	case "back":
		return one(action.Action{Type: action.Key, Key: "back"})
	case "home":
		return one(action.Action{Type: action.Key, Key: "home"})
	case "wait":
		ms, ok := seconds(c.args["duration"])
		if c.args["duration"] == "" {
			ms, ok = glmWaitMs, true
		}
		if !ok {
			return nil, true, errf(`Wait needs duration="N seconds", got ` + c.args["duration"])
		}
		return one(action.Action{Type: action.Wait, Ms: ms})
	case "take over":
		return one(action.Action{Type: action.TakeOver, Reason: c.args["message"]})
	case "interact":
		q := c.args["message"]
		if q == "" {
			q = thought
		}
		if q == "" {
			q = "Several options match; which one should I choose?"
		}
		return one(action.Action{Type: action.AskUser, Question: q})
	case "note", "call api":
		// Nothing happens on the device: the note (or the instruction for
		// a summary) stays in the thought, so the history carries it.
		v := c.args["message"]
		if v == "" {
			v = c.args["instruction"]
		}
		return one(action.Action{Type: action.Wait, Ms: 0, Text: name + ": " + v})
	}
	return nil, false, nil
}

// Gesture timings of the reference client, Open-AutoGLM
// phone_agent/adb/device.py (long_press duration_ms=3000; swipe duration
// from the distance) and actions/handler.py (_handle_wait: "1 seconds"
// when the model gives no duration).
const (
	glmLongPressMs = 3000
	glmWaitMs      = 1000
)

// glmSwipeMs is the reference's swipe duration: the squared distance in
// device pixels over 1000, held within 1000–2000 ms.
func glmSwipeMs(x1, y1, x2, y2 int) int {
	dx, dy := x2-x1, y2-y1
	return max(1000, min((dx*dx+dy*dy)/1000, 2000))
}

func ptrTrue() *bool { t := true; return &t }
