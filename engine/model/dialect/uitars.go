package dialect

import (
	"regexp"
	"strings"

	"tandem/engine/action"
	"tandem/engine/model"
)

// UITARS is the UI-TARS family's dialect: "Thought: …\nAction: click(…)".
// Variant "1.0" and "doubao" answer on a 0–1000 grid; "1.5" answers in
// pixels of the image as Qwen2.5-VL's smart_resize saw it.
type UITARS struct{ Variant string }

// UI-TARS-1.5's image processor settings.
const (
	tarsFactor    = 28
	tarsMinPixels = 100 * 28 * 28
	tarsMaxPixels = 16384 * 28 * 28
)

// Name implements model.Dialect.
func (UITARS) Name() string { return "uitars" }

// ImageBudget implements model.Dialect with UI-TARS-desktop's limits
// (packages/ui-tars/shared/src/constants/vlm.ts: MAX_PIXELS per version,
// MAX_IMAGE_LENGTH = 5; the SDK sends PNG).
func (u UITARS) ImageBudget() model.ImageBudget {
	switch u.Variant {
	case "1.0":
		return model.ImageBudget{MaxPixels: 2700 * 28 * 28, Format: "png", KeepLast: 5, Always: true}
	case "doubao":
		return model.ImageBudget{MaxPixels: 5120 * 28 * 28, Format: "png", KeepLast: 5, Always: true}
	}
	return model.ImageBudget{MaxPixels: tarsMaxPixels, MinPixels: tarsMinPixels, Factor: tarsFactor,
		Format: "png", KeepLast: 5, Always: true}
}

// StreamDone implements model.Dialect: several actions may follow one
// another, so only the end of the stream says the reply is complete.
func (UITARS) StreamDone(string) bool { return false }

var (
	tarsActionRe = regexp.MustCompile(`(?m)^[ \t]*Action[ \t]*[:：]`)
	// tarsInlineActionRe finds "Action:" after other text on its line.
	tarsInlineActionRe = regexp.MustCompile(`[\s。.!?！？](Action[ \t]*[:：])`)
	tarsThoughtLabelRe = regexp.MustCompile(`(?m)^[ \t]*Thought[ \t]*[:：]`)
	tarsLabelRe        = regexp.MustCompile(`(?m)^[ \t]*(Thought|Reflection|Action_Summary)[ \t]*[:：]`)
	tarsThinkRe        = regexp.MustCompile(`(?s)<(think[A-Za-z0-9_]*|Thought)>(.*?)</(?:think[A-Za-z0-9_]*|Thought)>`)
	tarsWrapRe         = regexp.MustCompile(`</?(?:computer_env|Output|answer|seed:tool_call)>`)
	tarsFuncRe         = regexp.MustCompile(`(?s)<function=([A-Za-z_]+)>(.*?)</function>`)
	tarsParamRe        = regexp.MustCompile(`(?s)<parameter=([A-Za-z_]+)>(.*?)</parameter>`)
	tarsAnswerRe       = regexp.MustCompile(`(?s)<answer>(.*?)(?:</answer>|$)`)
)

func (u UITARS) mapper(g model.Geometry) (mapper, error) {
	if u.Variant != "1.5" {
		return newMapper(Rel1000, g), nil
	}
	img := g.Image
	if img.W <= 0 || img.H <= 0 {
		img = g.Screen
	}
	h, w, err := model.SmartResize(img.H, img.W, tarsFactor, tarsMinPixels, tarsMaxPixels)
	if err != nil {
		return mapper{}, err
	}
	return pixelMapper(action.Size{W: w, H: h}, g), nil
}

// Parse implements model.Dialect.
func (u UITARS) Parse(r model.Reply, g model.Geometry) (model.Parsed, error) {
	raw := r.Content
	m, err := u.mapper(g)
	if err != nil {
		return model.Parsed{}, fail(raw, "%v", err)
	}
	s, fenced := unfence(boxTokens.Replace(raw))
	var salv []string
	if fenced {
		salv = append(salv, "removed the code fence around the reply")
	}
	// Reasoning blocks (<think>, <think_never_used_…>, <thinkt>, <Thought>).
	var think []string
	for _, mm := range tarsThinkRe.FindAllStringSubmatch(s, -1) {
		think = append(think, strings.TrimSpace(mm[2]))
	}
	s = tarsThinkRe.ReplaceAllString(s, "\n")
	if strings.Contains(s, "<function=") {
		return u.parseSeed(raw, s, strings.Join(think, "\n"), m, g)
	}
	actText, head := s, ""
	if loc := tarsActionRe.FindStringIndex(s); loc != nil {
		head, actText = s[:loc[0]], s[loc[1]:]
	} else if loc := tarsInlineActionRe.FindStringSubmatchIndex(s); loc != nil {
		head, actText = s[:loc[2]], s[loc[3]:]
		salv = append(salv, "read the Action: that followed other text on its line")
	} else if am := tarsAnswerRe.FindStringSubmatch(s); am != nil {
		return finishUp(raw, model.Parsed{Thought: strings.Join(think, "\n"),
			Actions: []action.Action{{Type: action.Finish, Summary: strings.TrimSpace(am[1]), Success: ptrTrue()}}}, g.Screen)
	}
	head = tarsWrapRe.ReplaceAllString(head, "")
	thought := tarsThought(head)
	if thought == "" || (len(think) > 0 && !tarsThoughtLabelRe.MatchString(head)) {
		// O1 form: the <Thought> block is the thought, Action_Summary only
		// its summary.
		thought = strings.Join(think, "\n")
	}
	actText = strings.TrimSpace(tarsWrapRe.ReplaceAllString(actText, ""))
	calls, end := scanCalls(actText)
	if len(calls) == 0 {
		if actText == "" {
			return model.Parsed{}, fail(raw, "no Action: the reply must end with Action: followed by a call such as click(start_box='(x,y)')")
		}
		return model.Parsed{}, fail(raw, "cannot read the action %q", clip(actText))
	}
	if rest := strings.TrimSpace(actText[end:]); rest != "" {
		return model.Parsed{}, fail(raw, "cannot read the action text %q", clip(rest))
	}
	p := model.Parsed{Thought: thought}
	for _, c := range calls {
		as, sv, err := tarsAction(c.name, c.args, m, g, thought)
		if err != nil {
			return model.Parsed{}, fail(raw, "%v", err)
		}
		if sv != "" {
			salv = append(salv, sv)
		}
		p.Actions = append(p.Actions, as...)
	}
	p.Salvaged = strings.Join(salv, "; ")
	return finishUp(raw, p, g.Screen)
}

// tarsThought picks the thought out of the labelled lines before Action:.
func tarsThought(head string) string {
	locs := tarsLabelRe.FindAllStringSubmatchIndex(head, -1)
	if len(locs) == 0 {
		return strings.TrimSpace(head)
	}
	parts := map[string]string{}
	for i, l := range locs {
		end := len(head)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		parts[head[l[2]:l[3]]] = strings.TrimSpace(head[l[1]:end])
	}
	if t := parts["Thought"]; t != "" {
		return t
	}
	return strings.TrimSpace(parts["Reflection"] + "\n" + parts["Action_Summary"])
}

// parseSeed reads the seed XML tool-call form:
// <function=NAME><parameter=P>V</parameter>…</function>.
func (u UITARS) parseSeed(raw, s, thought string, m mapper, g model.Geometry) (model.Parsed, error) {
	p := model.Parsed{Thought: thought}
	for _, f := range tarsFuncRe.FindAllStringSubmatch(s, -1) {
		args := map[string]string{}
		for _, pm := range tarsParamRe.FindAllStringSubmatch(f[2], -1) {
			args[pm[1]] = strings.TrimSpace(pm[2])
		}
		as, _, err := tarsAction(f[1], args, m, g, thought)
		if err != nil {
			return model.Parsed{}, fail(raw, "%v", err)
		}
		p.Actions = append(p.Actions, as...)
	}
	return finishUp(raw, p, g.Screen)
}

// tarsAction maps one UI-TARS call to canonical actions.
func tarsAction(name string, args map[string]string, m mapper, g model.Geometry, thought string) ([]action.Action, string, error) {
	c := tarsCall{name: name, args: args, m: m, g: g}
	lower := strings.ToLower(name)
	switch lower {
	case "click", "left_single", "tap":
		return c.one(action.Tap, 0)
	case "left_double", "double_click":
		return c.one(action.DoubleTap, 0)
	case "right_single", "right_click":
		return c.one(action.RightClick, 0)
	case "long_press":
		ms := longPressMs
		if v, ok := seconds(args["time"]); ok && v > 0 {
			ms = v
		}
		return c.one(action.LongPress, ms)
	case "drag", "select", "swipe":
		return c.drag(lower == "swipe")
	case "scroll":
		return c.scroll()
	case "type":
		return c.typeText()
	case "hotkey", "press", "keydown":
		return c.hotkey()
	}
	return tarsCommand(lower, name, args, thought)
}

// tarsCommand maps the calls that need no point of the screen.
func tarsCommand(lower, name string, args map[string]string, thought string) ([]action.Action, string, error) {
	one := func(a action.Action) ([]action.Action, string, error) { return []action.Action{a}, "", nil }
	switch lower {
	case "press_home":
		return one(action.Action{Type: action.Key, Key: "home"})
	case "press_back":
		return one(action.Action{Type: action.Key, Key: "back"})
	case "open_app":
		return one(action.Action{Type: action.Launch, App: args["app_name"]})
	case "wait":
		ms := 5000 // UI-TARS's wait() sleeps 5 s
		if v, ok := seconds(args["time"]); ok {
			ms = v
		}
		return one(action.Action{Type: action.Wait, Ms: ms})
	case "finished":
		sum := args["content"]
		if strings.TrimSpace(sum) == "" {
			if thought == "" {
				return nil, "", errf("finished() needs content='what was done'")
			}
			return []action.Action{{Type: action.Finish, Summary: thought, Success: ptrTrue()}},
				"finished() had no content; the summary is the thought", nil
		}
		return one(action.Action{Type: action.Finish, Summary: sum, Success: ptrTrue()})
	case "call_user":
		q := thought
		if q == "" {
			q = "The agent needs your help on this screen."
		}
		return one(action.Action{Type: action.AskUser, Question: q})
	}
	return nil, "", errf(name + "() is not an action Tandem can do here; use click, left_double, long_press, drag, scroll, type, hotkey, press_home, press_back, open_app, wait, finished or call_user")
}

// tarsCall is one UI-TARS call being read: its name, arguments, and the
// grid its points are on.
type tarsCall struct {
	name string
	args map[string]string
	m    mapper
	g    model.Geometry
}

var (
	tarsStart = []string{"start_box", "point", "start_point", "box", "coordinate"}
	tarsEnd   = []string{"end_box", "end_point"}
)

// box is the point of the first of keys given (a box's centre); ok is
// false when none is.
func (c tarsCall) box(keys ...string) (x, y int, ok bool, err error) {
	for _, k := range keys {
		v, given := c.args[k]
		if !given || strings.TrimSpace(v) == "" {
			continue
		}
		ns := numbers(v)
		switch len(ns) {
		case 2:
		case 4:
			ns = []float64{(ns[0] + ns[2]) / 2, (ns[1] + ns[3]) / 2}
		default:
			return 0, 0, true, errf(c.name + ": " + k + " must be a point or a box, got " + clip(v))
		}
		x, y, err := c.m.point(ns[0], ns[1])
		return x, y, true, err
	}
	return 0, 0, false, nil
}

// one is an action at the start point.
func (c tarsCall) one(t action.Type, ms int) ([]action.Action, string, error) {
	x, y, ok, err := c.box(tarsStart...)
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return nil, "", errf(c.name + " needs start_box='(x,y)'")
	}
	return []action.Action{{Type: t, X: x, Y: y, Ms: ms}}, "", nil
}

func (c tarsCall) drag(swipe bool) ([]action.Action, string, error) {
	x, y, ok, err := c.box(tarsStart...)
	if err == nil && !ok {
		err = errf(c.name + " needs start_box and end_box")
	}
	if err != nil {
		return nil, "", err
	}
	x2, y2, ok, err := c.box(tarsEnd...)
	if err == nil && !ok {
		err = errf(c.name + " needs end_box")
	}
	if err != nil {
		return nil, "", err
	}
	t, ms := action.Drag, dragMs
	if swipe {
		t, ms = action.Swipe, swipeMs
	}
	return []action.Action{{Type: t, X: x, Y: y, X2: x2, Y2: y2, Ms: ms}}, "", nil
}

func (c tarsCall) scroll() ([]action.Action, string, error) {
	dir := strings.ToLower(strings.TrimSpace(c.args["direction"]))
	x, y, ok, err := c.box(tarsStart...)
	if err != nil {
		return nil, "", err
	}
	if dir == "" {
		if x2, y2, ok2, err := c.box(tarsEnd...); ok && ok2 && err == nil {
			return []action.Action{{Type: action.Swipe, X: x, Y: y, X2: x2, Y2: y2, Ms: swipeMs}}, "", nil
		}
		return nil, "", errf("scroll needs direction='up|down|left|right'")
	}
	if !ok {
		x, y = c.g.Screen.W/2, c.g.Screen.H/2
	}
	return []action.Action{{Type: action.Scroll, X: x, Y: y, Direction: dir}}, "", nil
}

func (c tarsCall) typeText() ([]action.Action, string, error) {
	text, submit := c.args["content"], false
	salv := ""
	if _, ok := c.args["content"]; !ok {
		if t, ok := c.args["text"]; ok {
			text, salv = t, "read type(text=…) as type(content=…)"
		}
	}
	if strings.HasSuffix(text, "\n") {
		text, submit = strings.TrimRight(text, "\n"), true
	}
	out := []action.Action{{Type: action.TypeText, Text: text, Submit: submit}}
	if x, y, ok, err := c.box(tarsStart...); err != nil {
		return nil, "", err
	} else if ok { // the seed form types at a point: tap it first
		out = append([]action.Action{{Type: action.Tap, X: x, Y: y}}, out...)
	}
	return out, salv, nil
}

func (c tarsCall) hotkey() ([]action.Action, string, error) {
	k := c.args["key"]
	if k == "" {
		k = c.args["hotkey"]
	}
	keys := strings.FieldsFunc(strings.ToLower(k), func(r rune) bool { return r == ' ' || r == '+' })
	if len(keys) == 0 {
		return nil, "", errf(c.name + " needs key='…'")
	}
	for i := range keys {
		keys[i] = keyName(keys[i])
	}
	if len(keys) == 1 {
		return []action.Action{{Type: action.Key, Key: keys[0]}}, "", nil
	}
	return []action.Action{{Type: action.Hotkey, Keys: keys}}, "", nil
}
