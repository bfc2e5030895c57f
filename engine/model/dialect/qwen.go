package dialect

// Qwen2.5-VL's own agent interface for the tools dialect's abs variant.
//
// Source: QwenLM/Qwen2.5-VL cookbooks/utils/agent_function_call.py (the
// mobile_use and computer_use tools: function names, action enums,
// parameter names, types and enums, the resolution statement) and
// cookbooks/mobile_agent.ipynb (the request, used for desktops too: a system
// message "You are a helpful assistant." followed by qwen-agent's Nous
// function-calling block listing the tool, then one user turn with the
// screenshot and the query "The user query: …\nTask progress (…): Step 1:
// {call}; …"; the model answers with <tool_call>{json}</tool_call>). The
// tool is sent in the system text, not as OpenAI tools: Qwen2.5-VL's chat
// template does not render a tools field. The descriptions are written in
// our own words; the interface is matched exactly.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"tandem/engine/action"
	"tandem/engine/model"
)

// qwenNative reports whether the model in a tools/abs profile is a
// Qwen2.5-VL family model (Qwen's own API names included), which gets
// Qwen's agent tool instead of Tandem's canonical tools.
func qwenNative(s Space, modelName string) bool {
	m := strings.ToLower(modelName)
	return s == Abs && strings.Contains(m, "qwen") && !strings.Contains(m, "qwen3")
}

// kv is one key of an ordered JSON object.
type kv struct {
	k string
	v any
}

// pyJSON writes v as Python's json.dumps(v, ensure_ascii=False) does:
// keys in the given order, ", " and ": " separators.
func pyJSON(v any) string {
	var b strings.Builder
	var w func(v any)
	w = func(v any) {
		switch v := v.(type) {
		case []kv:
			b.WriteString("{")
			for i, e := range v {
				if i > 0 {
					b.WriteString(", ")
				}
				w(e.k)
				b.WriteString(": ")
				w(e.v)
			}
			b.WriteString("}")
		case []string:
			b.WriteString("[")
			for i, s := range v {
				if i > 0 {
					b.WriteString(", ")
				}
				w(s)
			}
			b.WriteString("]")
		case []int:
			b.WriteString("[")
			for i, n := range v {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprint(&b, n)
			}
			b.WriteString("]")
		default:
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(v)
			b.WriteString(strings.TrimSuffix(buf.String(), "\n"))
		}
	}
	w(v)
	return b.String()
}

// qwenTool is mobile_use (phone) or computer_use (desktop) for a screen of
// the given size: the size of the image the model is sent.
func qwenTool(desktop bool, img action.Size) []kv {
	res := fmt.Sprintf("* The screen's resolution is %dx%d.", img.W, img.H)
	xy := func(what string) []kv {
		return []kv{{"description", "(x, y): pixels from the left and from the top edge of the screen. " + what}, {"type", "array"}}
	}
	status := []kv{{"description", "Whether the task succeeded. Only for `action=terminate`."}, {"type", "string"}, {"enum", []string{"success", "failure"}}}
	if !desktop {
		desc := strings.Join([]string{
			"Operate a mobile device through its touchscreen, looking at screenshots.",
			"* You can tap, type, swipe and press buttons on the device.",
			"* Apps may need time to open or react; wait and look at the next screenshot when they do.",
			res,
			"* Tap an element at its centre, not on its border.",
		}, "\n")
		actions := strings.Join([]string{
			"Which action to take:",
			"* `key`: send a key event, named as adb's keyevent names them (for example \"volume_up\", \"power\").",
			"* `click`: tap the point `coordinate`.",
			"* `long_press`: hold the point `coordinate` for `time` seconds.",
			"* `swipe`: move a finger from `coordinate` to `coordinate2`.",
			"* `type`: enter `text` into the focused input field.",
			"* `system_button`: press the system button given in `button`.",
			"* `open`: start the app named in `text`.",
			"* `wait`: wait `time` seconds for the screen to change.",
			"* `terminate`: end the task, with its `status`.",
		}, "\n")
		return []kv{{"name", "mobile_use"}, {"description", desc}, {"parameters", []kv{
			{"properties", []kv{
				{"action", []kv{{"description", actions}, {"enum", []string{"key", "click", "long_press", "swipe", "type", "system_button", "open", "wait", "terminate"}}, {"type", "string"}}},
				{"coordinate", xy("Only for `action=click`, `action=long_press` and `action=swipe`.")},
				{"coordinate2", xy("Only for `action=swipe`.")},
				{"text", []kv{{"description", "Only for `action=key`, `action=type` and `action=open`."}, {"type", "string"}}},
				{"time", []kv{{"description", "Seconds. Only for `action=long_press` and `action=wait`."}, {"type", "number"}}},
				{"button", []kv{{"description", "Back goes to the previous screen, Home to the home screen, Menu opens the app's menu, Enter presses enter. Only for `action=system_button`."}, {"enum", []string{"Back", "Home", "Menu", "Enter"}}, {"type", "string"}}},
				{"status", status},
			}},
			{"required", []string{"action"}},
			{"type", "object"},
		}}}
	}
	desc := strings.Join([]string{
		"Operate a computer with its mouse and keyboard, looking at screenshots.",
		"* This is a desktop GUI without a terminal; start programs from their icons.",
		"* Programs may need time to open or react; wait and look at the next screenshot when they do.",
		res,
		"* Find an element's coordinates on the screenshot before moving the cursor to it.",
		"* If a click did not work, move the cursor so that its tip lies on the element and try again.",
		"* Click an element at its centre, not on its border.",
	}, "\n")
	actions := strings.Join([]string{
		"Which action to take:",
		"* `key`: press the `keys` in order, then release them in reverse order.",
		"* `type`: type `text` on the keyboard.",
		"* `mouse_move`: move the cursor to `coordinate`.",
		"* `left_click`: click the left button.",
		"* `left_click_drag`: press the left button and drag to `coordinate`.",
		"* `right_click`: click the right button.",
		"* `middle_click`: click the middle button.",
		"* `double_click`: double-click the left button.",
		"* `scroll`: turn the scroll wheel by `pixels`.",
		"* `wait`: wait `time` seconds for the screen to change.",
		"* `terminate`: end the task, with its `status`.",
	}, "\n")
	return []kv{{"name", "computer_use"}, {"description", desc}, {"parameters", []kv{
		{"properties", []kv{
			{"action", []kv{{"description", actions}, {"enum", []string{"key", "type", "mouse_move", "left_click", "left_click_drag", "right_click", "middle_click", "double_click", "scroll", "wait", "terminate"}}, {"type", "string"}}},
			{"keys", []kv{{"description", "Only for `action=key`."}, {"type", "array"}}},
			{"text", []kv{{"description", "Only for `action=type`."}, {"type", "string"}}},
			{"coordinate", xy("Only for `action=mouse_move` and `action=left_click_drag`.")},
			{"pixels", []kv{{"description", "How far to scroll: positive up, negative down. Only for `action=scroll`."}, {"type", "number"}}},
			{"time", []kv{{"description", "Seconds. Only for `action=wait`."}, {"type", "number"}}},
			{"status", status},
		}},
		{"required", []string{"action"}},
		{"type", "object"},
	}}}
}

// qwenSystem is the cookbook's system message: the default system text and
// qwen-agent's Nous function-calling block (nous_fncall_prompt.py), whose
// headings, tags and output format line are the interface.
func qwenSystem(tool []kv) string {
	return "You are a helpful assistant.\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n" +
		"You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n" +
		pyJSON([]kv{{"type", "function"}, {"function", tool}}) +
		"\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n" +
		"<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>"
}

// qwenCall writes a canonical action as the mobile_use / computer_use call
// the model would have made, in its own coordinates.
func qwenCall(a action.Action, desktop bool, grid gridFunc) string {
	name := "mobile_use"
	if desktop {
		name = "computer_use"
	}
	pt := func(x, y int) []int { gx, gy := grid(x, y); return []int{gx, gy} }
	secs := func(ms int) any { return float64(ms) / 1000 }
	var args []kv
	switch a.Type {
	case action.Tap, action.DoubleTap:
		act := "click"
		if desktop {
			act = map[bool]string{true: "double_click", false: "left_click"}[a.Type == action.DoubleTap]
		}
		args = []kv{{"action", act}, {"coordinate", pt(a.X, a.Y)}}
	case action.RightClick:
		args = []kv{{"action", "right_click"}, {"coordinate", pt(a.X, a.Y)}}
	case action.LongPress:
		args = []kv{{"action", "long_press"}, {"coordinate", pt(a.X, a.Y)}, {"time", secs(a.Ms)}}
	case action.Swipe:
		args = []kv{{"action", "swipe"}, {"coordinate", pt(a.X, a.Y)}, {"coordinate2", pt(a.X2, a.Y2)}}
	case action.Drag:
		args = []kv{{"action", "left_click_drag"}, {"coordinate", pt(a.X, a.Y)}, {"coordinate2", pt(a.X2, a.Y2)}}
	case action.Scroll:
		px := map[string]int{"up": 300, "left": 300}[a.Direction]
		if px == 0 {
			px = -300
		}
		args = []kv{{"action", "scroll"}, {"coordinate", pt(a.X, a.Y)}, {"pixels", px}}
	case action.TypeText:
		args = []kv{{"action", "type"}, {"text", a.Text}}
	case action.Key:
		if b, ok := map[string]string{"back": "Back", "home": "Home", "menu": "Menu", "enter": "Enter"}[strings.ToLower(a.Key)]; ok && !desktop {
			args = []kv{{"action", "system_button"}, {"button", b}}
		} else if desktop {
			args = []kv{{"action", "key"}, {"keys", []string{a.Key}}}
		} else {
			args = []kv{{"action", "key"}, {"text", a.Key}}
		}
	case action.Hotkey:
		args = []kv{{"action", "key"}, {"keys", a.Keys}}
	case action.Launch:
		args = []kv{{"action", "open"}, {"text", a.App}}
	case action.Wait:
		args = []kv{{"action", "wait"}, {"time", secs(a.Ms)}}
	case action.Finish:
		args = []kv{{"action", "terminate"}, {"status", "success"}}
	case action.Fail:
		args = []kv{{"action", "terminate"}, {"status", "failure"}}
	case action.AskUser, action.TakeOver:
		// Qwen's tool has no call for the person: written as Tandem's
		return gridAction(a, grid).String()
	default: // not a type (an old record's word): as Tandem writes it
		return gridAction(a, grid).String()
	}
	return pyJSON([]kv{{"name", name}, {"arguments", args}})
}

// qwenBuild is the cookbook's request: system message with the tool, then
// one user turn with the screenshot and the query. Tandem's own notes (the
// person's steps, hand-backs, the step limit, the UI tree when the profile
// reads it) follow the query in the model's coordinates.
func qwenBuild(in model.Input, shots []model.EncodedImage, compact string, grid gridFunc) model.Prompt {
	desktop := deviceWord(in.Supported) == "computer"
	img := lastSize(shots)
	if img.W == 0 {
		img = in.Observation.Screen
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The user query: %s\nTask progress (You have done the following operation on the current device): ", in.Goal)
	for _, s := range in.History {
		who := ""
		if s.ByPerson {
			who = " (done by the person, not by you)"
		}
		var calls []string
		for _, a := range s.Actions {
			calls = append(calls, qwenCall(a, desktop, grid))
		}
		fmt.Fprintf(&b, "Step %d%s: %s; ", s.N, who, strings.Join(calls, ", "))
		if s.ByPerson && s.Note != "" {
			fmt.Fprintf(&b, "(their note: %q) ", s.Note)
		}
		if r := s.Region; r != nil && s.ByPerson {
			x1, y1 := grid(r.Min.X, r.Min.Y)
			x2, y2 := grid(r.Max.X, r.Max.Y)
			fmt.Fprintf(&b, "(they marked the region (%d,%d)-(%d,%d)) ", x1, y1, x2, y2)
		}
		if !s.ByPerson && s.Result != "" && s.Result != "ok" {
			fmt.Fprintf(&b, "(result: %s) ", s.Result)
		}
	}
	text := strings.TrimRight(b.String(), " ") + " "
	for _, n := range in.Notes {
		text += "\nNote: " + n
	}
	if in.StepsLeft > 0 && in.StepsLeft <= 3 {
		text += fmt.Sprintf("\nSteps left before the limit (terminate, or say why you cannot): %d", in.StepsLeft)
	}
	if compact != "" {
		text += "\nUI state (elements by index, bounds in screen pixels):\n" + compact
	}
	user := model.Message{Role: model.User}
	if len(shots) == 0 {
		user.Text = text
	} else {
		// The cookbook's API request puts the screenshot before the query.
		s := shots[len(shots)-1]
		user.Parts = []model.Part{model.ImagePart(dataURLOf(s)), model.TextPart(text)}
	}
	return model.Prompt{Messages: []model.Message{
		{Role: model.System, Text: qwenSystem(qwenTool(desktop, img))}, user}}
}
