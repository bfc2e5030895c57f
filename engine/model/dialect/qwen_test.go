package dialect

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"tandem/engine/action"
	"tandem/engine/model"
)

// qwenToolFromSystem reads the one function Qwen's Nous-style tool block
// lists between <tools> and </tools> in the system message.
func qwenToolFromSystem(t *testing.T, sys string) map[string]any {
	t.Helper()
	i, j := strings.Index(sys, "<tools>\n"), strings.Index(sys, "\n</tools>")
	if i < 0 || j < i {
		t.Fatalf("no <tools> block in the system message:\n%s", sys)
	}
	var tool struct {
		Type     string         `json:"type"`
		Function map[string]any `json:"function"`
	}
	if err := json.Unmarshal([]byte(sys[i+len("<tools>\n"):j]), &tool); err != nil {
		t.Fatalf("tool line is not JSON: %v", err)
	}
	if tool.Type != "function" {
		t.Errorf("tool type %q", tool.Type)
	}
	return tool.Function
}

func strs(v any) []string {
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(string))
	}
	return out
}

// TestQwenToolSchema: a Qwen2.5-VL model in the abs tools dialect gets
// Qwen's own mobile_use / computer_use tool (QwenLM/Qwen2.5-VL
// cookbooks/utils/agent_function_call.py) in the system message, the
// resolution of the image it is sent, and the cookbook's user turn.
func TestQwenToolSchema(t *testing.T) {
	d := Tools{Coords: Abs}
	for _, c := range []struct {
		kind, name string
		supported  []action.Type
		screen     action.Size
		enum       []string
		params     []string
	}{
		{"phone", "mobile_use", phoneActions, phone,
			[]string{"key", "click", "long_press", "swipe", "type", "system_button", "open", "wait", "terminate"},
			[]string{"action", "button", "coordinate", "coordinate2", "status", "text", "time"}},
		{"desktop", "computer_use", desktopActions, desktop,
			[]string{"key", "type", "mouse_move", "left_click", "left_click_drag", "right_click", "middle_click", "double_click", "scroll", "wait", "terminate"},
			[]string{"action", "coordinate", "keys", "pixels", "status", "text", "time"}},
	} {
		t.Run(c.kind, func(t *testing.T) {
			shot := fakeShot(d, c.screen, 1)
			in := model.Input{Goal: "open settings", Model: "qwen2.5-vl-72b-instruct", Supported: c.supported,
				Observation: model.Observation{Screen: c.screen}}
			p := d.Build(in, []model.EncodedImage{shot}, "")
			if len(p.Tools) != 0 || p.ToolChoice != "" {
				t.Errorf("the tool goes in the system message as the cookbook does, not as OpenAI tools: %v %v", p.Tools, p.ToolChoice)
			}
			sys := p.Messages[0]
			if sys.Role != model.System || !strings.HasPrefix(sys.Text, "You are a helpful assistant.\n\n# Tools\n") {
				t.Fatalf("system message: %q", sys.Text)
			}
			if !strings.Contains(sys.Text, "<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>") {
				t.Errorf("no output format line in %q", sys.Text)
			}
			fn := qwenToolFromSystem(t, sys.Text)
			if fn["name"] != c.name {
				t.Errorf("name %v, want %s", fn["name"], c.name)
			}
			res := "The screen's resolution is " + shot.Size.String() + "."
			if !strings.Contains(fn["description"].(string), res) {
				t.Errorf("description does not state %q: %q", res, fn["description"])
			}
			params := fn["parameters"].(map[string]any)
			props := params["properties"].(map[string]any)
			var names []string
			for k := range props {
				names = append(names, k)
			}
			if !sameSet(names, c.params) {
				t.Errorf("parameters %v, want %v", names, c.params)
			}
			if got := strs(props["action"].(map[string]any)["enum"]); !reflect.DeepEqual(got, c.enum) {
				t.Errorf("action enum %v, want %v", got, c.enum)
			}
			if got := strs(params["required"]); !reflect.DeepEqual(got, []string{"action"}) {
				t.Errorf("required %v", got)
			}
			if got := strs(props["status"].(map[string]any)["enum"]); !reflect.DeepEqual(got, []string{"success", "failure"}) {
				t.Errorf("status enum %v", got)
			}
			if c.kind == "phone" {
				if got := strs(props["button"].(map[string]any)["enum"]); !reflect.DeepEqual(got, []string{"Back", "Home", "Menu", "Enter"}) {
					t.Errorf("button enum %v", got)
				}
			}
			u := p.Messages[1]
			if len(u.Parts) != 2 || u.Parts[0].ImageURL == "" ||
				!strings.HasPrefix(u.Parts[1].Text, "The user query: open settings\n") {
				t.Errorf("user turn is not [screenshot, query]: %+v", u.Parts)
			}
		})
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]bool{}
	for _, s := range a {
		m[s] = true
	}
	for _, s := range b {
		if !m[s] {
			return false
		}
	}
	return true
}

// TestQwenHistoryAsCalls: earlier steps go in the query as the cookbook's
// "Step N: {call}; " list, in pixels of the image sent.
func TestQwenHistoryAsCalls(t *testing.T) {
	d := Tools{Coords: Abs}
	shot := fakeShot(d, phone, 1)
	in := model.Input{Goal: "g", Model: "qwen-vl-max", Supported: phoneActions, Observation: model.Observation{Screen: phone},
		History: []model.Step{
			{N: 1, Actions: []action.Action{{Type: action.Launch, App: "File Manager"}}, Result: "ok"},
			{N: 2, Actions: []action.Action{{Type: action.Tap, X: phone.W / 2, Y: phone.H / 2}}, Result: "ok"},
			{N: 3, Actions: []action.Action{{Type: action.Key, Key: "back"}}, Result: "ok"},
		}}
	p := d.Build(in, []model.EncodedImage{shot}, "")
	text := p.Messages[1].Parts[1].Text
	for _, want := range []string{
		"Task progress (You have done the following operation on the current device): ",
		`Step 1: {"name": "mobile_use", "arguments": {"action": "open", "text": "File Manager"}}; `,
		`Step 2: {"name": "mobile_use", "arguments": {"action": "click", "coordinate": [` + num(float64(shot.Size.W/2)) + ", " + num(float64(shot.Size.H/2)) + `]}}; `,
		`Step 3: {"name": "mobile_use", "arguments": {"action": "system_button", "button": "Back"}}; `,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("query lacks %q:\n%s", want, text)
		}
	}
}

// TestQwenParseForms: Qwen's replies, as <tool_call> text and as OpenAI
// tool calls, become canonical actions in device pixels.
func TestQwenParseForms(t *testing.T) {
	img := action.Size{W: 540, H: 1200} // half the phone
	g := model.Geometry{Screen: phone, Image: img}
	dimg := action.Size{W: 960, H: 540}
	dg := model.Geometry{Screen: desktop, Image: dimg}
	yes := true
	cases := []struct {
		name, tool, args string
		g                model.Geometry
		want             []action.Action
	}{
		{"click", "mobile_use", `{"action":"click","coordinate":[100,200]}`, g, []action.Action{{Type: action.Tap, X: 200, Y: 400}}},
		{"long_press", "mobile_use", `{"action":"long_press","coordinate":[100,200],"time":2}`, g, []action.Action{{Type: action.LongPress, X: 200, Y: 400, Ms: 2000}}},
		{"swipe", "mobile_use", `{"action":"swipe","coordinate":[270,900],"coordinate2":[270,300]}`, g, []action.Action{{Type: action.Swipe, X: 540, Y: 1800, X2: 540, Y2: 600, Ms: swipeMs}}},
		{"type", "mobile_use", `{"action":"type","text":"hello"}`, g, []action.Action{{Type: action.TypeText, Text: "hello"}}},
		{"key", "mobile_use", `{"action":"key","text":"volume_up"}`, g, []action.Action{{Type: action.Key, Key: keyName("volume_up")}}},
		{"back", "mobile_use", `{"action":"system_button","button":"Back"}`, g, []action.Action{{Type: action.Key, Key: "back"}}},
		{"home", "mobile_use", `{"action":"system_button","button":"Home"}`, g, []action.Action{{Type: action.Key, Key: "home"}}},
		{"menu", "mobile_use", `{"action":"system_button","button":"Menu"}`, g, []action.Action{{Type: action.Key, Key: keyName("Menu")}}},
		{"enter", "mobile_use", `{"action":"system_button","button":"Enter"}`, g, []action.Action{{Type: action.Key, Key: "enter"}}},
		{"open", "mobile_use", `{"action":"open","text":"File Manager"}`, g, []action.Action{{Type: action.Launch, App: "File Manager"}}},
		{"wait", "mobile_use", `{"action":"wait","time":3}`, g, []action.Action{{Type: action.Wait, Ms: 3000}}},
		{"terminate success", "mobile_use", `{"action":"terminate","status":"success"}`, g, []action.Action{{Type: action.Finish, Summary: "done", Success: &yes}}},
		{"terminate failure", "mobile_use", `{"action":"terminate","status":"failure"}`, g, []action.Action{{Type: action.Fail, Reason: "done"}}},
		{"answer", "mobile_use", `{"action":"answer","text":"42"}`, g, []action.Action{{Type: action.Finish, Summary: "42", Success: &yes}}},
		{"left_click", "computer_use", `{"action":"left_click","coordinate":[480,270]}`, dg, []action.Action{{Type: action.Tap, X: 960, Y: 540}}},
		{"right_click", "computer_use", `{"action":"right_click","coordinate":[10,20]}`, dg, []action.Action{{Type: action.RightClick, X: 20, Y: 40}}},
		{"double_click", "computer_use", `{"action":"double_click","coordinate":[10,20]}`, dg, []action.Action{{Type: action.DoubleTap, X: 20, Y: 40}}},
		{"drag", "computer_use", `{"action":"left_click_drag","coordinate":[100,100],"coordinate2":[200,100]}`, dg, []action.Action{{Type: action.Drag, X: 200, Y: 200, X2: 400, Y2: 200, Ms: dragMs}}},
		{"scroll down", "computer_use", `{"action":"scroll","pixels":-300}`, dg, []action.Action{{Type: action.Scroll, X: 960, Y: 540, Direction: "down"}}},
		{"scroll up", "computer_use", `{"action":"scroll","pixels":300,"coordinate":[10,20]}`, dg, []action.Action{{Type: action.Scroll, X: 20, Y: 40, Direction: "up"}}},
		{"hotkey", "computer_use", `{"action":"key","keys":["ctrl","c"]}`, dg, []action.Action{{Type: action.Hotkey, Keys: []string{keyName("ctrl"), keyName("c")}}}},
		{"desktop type", "computer_use", `{"action":"type","text":"hi"}`, dg, []action.Action{{Type: action.TypeText, Text: "hi"}}},
		{"desktop wait", "computer_use", `{"action":"wait","time":1}`, dg, []action.Action{{Type: action.Wait, Ms: 1000}}},
	}
	for _, c := range cases {
		for _, form := range []string{"text", "tool_calls"} {
			t.Run(c.name+"/"+form, func(t *testing.T) {
				r := model.Reply{}
				if form == "text" {
					r.Content = "done\n<tool_call>\n{\"name\": \"" + c.tool + "\", \"arguments\": " + c.args + "}\n</tool_call>"
				} else {
					r.Content = "done"
					r.ToolCalls = []model.ToolCall{{ID: "call_0", Name: c.tool, Arguments: c.args}}
				}
				p, err := Tools{Coords: Abs}.Parse(r, c.g)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(p.Actions, c.want) {
					t.Errorf("got %+v\nwant %+v", p.Actions, c.want)
				}
			})
		}
	}
}

// TestQwenCursor: computer_use clicks and drags without a coordinate act
// at the cursor, which mouse_move (or the last pointed action) placed.
func TestQwenCursor(t *testing.T) {
	d, err := New("tools", "abs")
	if err != nil {
		t.Fatal(err)
	}
	dg := model.Geometry{Screen: desktop, Image: action.Size{W: 960, H: 540}}
	call := func(args string) (model.Parsed, error) {
		return d.Parse(model.Reply{Content: "<tool_call>\n{\"name\": \"computer_use\", \"arguments\": " + args + "}\n</tool_call>"}, dg)
	}
	if _, err := call(`{"action":"left_click"}`); err == nil {
		t.Error("a left_click with no coordinate and no cursor yet must be an error")
	}
	p, err := call(`{"action":"mouse_move","coordinate":[100,100]}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Actions) != 1 || p.Actions[0].Type != action.Wait {
		t.Errorf("mouse_move: %+v", p.Actions)
	}
	p, err = call(`{"action":"left_click"}`)
	if err != nil {
		t.Fatal(err)
	}
	if want := []action.Action{{Type: action.Tap, X: 200, Y: 200}}; !reflect.DeepEqual(p.Actions, want) {
		t.Errorf("left_click at the cursor: %+v", p.Actions)
	}
	p, err = call(`{"action":"left_click_drag","coordinate":[300,100]}`)
	if err != nil {
		t.Fatal(err)
	}
	if want := []action.Action{{Type: action.Drag, X: 200, Y: 200, X2: 600, Y2: 200, Ms: dragMs}}; !reflect.DeepEqual(p.Actions, want) {
		t.Errorf("left_click_drag from the cursor: %+v", p.Actions)
	}
	p, err = call(`{"action":"right_click"}`)
	if err != nil {
		t.Fatal(err)
	}
	if want := []action.Action{{Type: action.RightClick, X: 600, Y: 200}}; !reflect.DeepEqual(p.Actions, want) {
		t.Errorf("right_click at the cursor after the drag: %+v", p.Actions)
	}
	if _, err := call(`{"action":"middle_click","coordinate":[1,1]}`); err == nil {
		t.Error("middle_click: Tandem has no middle button; want an error the model is told")
	}
}
