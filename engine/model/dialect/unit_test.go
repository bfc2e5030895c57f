package dialect

import (
	"errors"
	"strings"
	"testing"

	"tandem/engine/action"
	"tandem/engine/model"
)

func TestSmartResize(t *testing.T) {
	// Values computed with qwen_vl_utils.smart_resize (factor 28,
	// min 100·28², max 16384·28²) and by hand for the other bounds.
	tests := []struct{ h, w, min, max, wantH, wantW int }{
		{2400, 1080, tarsMinPixels, tarsMaxPixels, 2408, 1092},
		{1280, 720, tarsMinPixels, tarsMaxPixels, 1288, 728},
		{1080, 1920, tarsMinPixels, tarsMaxPixels, 1092, 1932},
		{2400, 1080, tarsMinPixels, 1280 * 28 * 28, 1484, 672}, // scaled down, floored to 28
		{100, 100, tarsMinPixels, tarsMaxPixels, 280, 280},     // scaled up, ceiled to 28
		{14, 42, 0, tarsMaxPixels, 28, 56},                     // half to even: 0.5 → 0 (then factor), 1.5 → 2
	}
	for _, tc := range tests {
		h, w, err := model.SmartResize(tc.h, tc.w, 28, tc.min, tc.max)
		if err != nil || h != tc.wantH || w != tc.wantW {
			t.Errorf("SmartResize(%d,%d) = %d,%d,%v; want %d,%d", tc.h, tc.w, h, w, err, tc.wantH, tc.wantW)
		}
	}
	if _, _, err := model.SmartResize(10, 3000, 28, 0, tarsMaxPixels); err == nil {
		t.Error("aspect ratio 300 accepted")
	}
}

func TestCheckSupported(t *testing.T) {
	phoneTypes := []action.Type{action.Tap, action.Swipe, action.TypeText, action.Key, action.Launch}
	ok := []action.Action{{Type: action.Tap}, {Type: action.Finish, Summary: "x"}, {Type: action.Wait}}
	if err := model.CheckSupported(ok, phoneTypes); err != nil {
		t.Fatal(err)
	}
	err := model.CheckSupported([]action.Action{{Type: action.Tap}, {Type: action.Hotkey, Keys: []string{"ctrl", "c"}}}, phoneTypes)
	var ue *model.UnsupportedError
	if !errors.As(err, &ue) || ue.Action != action.Hotkey || !strings.Contains(ue.Reason, "cannot do hotkey") {
		t.Fatalf("got %v", err)
	}
}

func TestParseCases(t *testing.T) {
	g := model.Geometry{Screen: phone}
	tests := []struct {
		name, dialect, variant string
		reply                  model.Reply
		want                   string // actions as strings joined by " | ", or "error: substring"
	}{
		{"glm tap sensitive", "autoglm", "", model.Reply{Content: `<think>付款</think><answer>do(action="Tap", element=[500,500], message="重要操作")</answer>`}, "tap(540,1200)"},
		{"glm thought quotes a call", "autoglm", "", model.Reply{Content: `<think>不要 finish(message="x")，先点</think><answer>do(action="Back")</answer>`}, "key(back)"},
		{"glm box tokens and missing paren", "autoglm", "", model.Reply{Content: `<|begin_of_box|>do(action="Home"<|end_of_box|>`}, "key(home)"},
		{"glm swipe", "autoglm", "", model.Reply{Content: `do(action="Swipe", start=[500,800], end=[500,200])`}, "swipe(540,1920→540,480)"},
		{"glm wait", "autoglm", "", model.Reply{Content: `do(action="Wait", duration="3 seconds")`}, "wait(3000ms)"},
		{"glm take over", "autoglm", "", model.Reply{Content: `do(action="Take_over", message="请登录")`}, `take_over("请登录")`},
		{"glm interact", "autoglm", "", model.Reply{Content: `<think>有两个张三</think><answer>do(action="Interact")`}, `ask_user("有两个张三")`},
		{"glm note", "autoglm", "", model.Reply{Content: `do(action="Note", message="价格 99 元")`}, "wait(0ms)"},
		{"glm long press, double tap", "autoglm", "", model.Reply{Content: `do(action="Long Press", element=[10,10])`}, "long_press(10,24,3000ms)"},
		{"glm wait without duration", "autoglm", "", model.Reply{Content: `do(action="Wait")`}, "wait(1000ms)"},
		{"glm placeholder", "autoglm", "", model.Reply{Content: `do(action="Tap", element=[x,y])`}, "error: element must be [x,y]"},
		{"glm only thinking", "autoglm", "", model.Reply{Content: `<think>我不能登录</think>`}, "error: no action"},
		{"glm unknown", "autoglm", "", model.Reply{Content: `do(action="Fly")`}, "error: unknown action Fly"},
		{"tars hotkey and escaped type", "uitars", "1.0", model.Reply{Content: "Thought: t\nAction：hotkey(key='ctrl c')\n\ntype(content='a\\'b\\n')"}, `hotkey(ctrl+c) | type("a'b")`},
		{"tars drag", "uitars", "1.0", model.Reply{Content: "Action: drag(start_box='(100,100)', end_box='(200,200)')"}, "drag(108,240→216,480)"},
		{"tars phone keys", "uitars", "1.0", model.Reply{Content: "Action: press_back()\n\npress_home()\n\nopen_app(app_name='微信')"}, "key(back) | key(home) | launch(微信)"},
		{"tars call_user", "uitars", "1.0", model.Reply{Content: "Thought: 需要验证码\nAction: call_user()"}, `ask_user("需要验证码")`},
		{"tars junk", "uitars", "1.0", model.Reply{Content: "Action: click(start_box='(1,1)') and then more"}, "error: cannot read the action text"},
		{"tools args string", "tools", "", model.Reply{ToolCalls: []model.ToolCall{{Name: "tap", Arguments: `{"x":500,"y":500}`}}}, "tap(540,1200)"},
		{"tools finish needs summary", "tools", "", model.Reply{ToolCalls: []model.ToolCall{{Name: "finish", Arguments: `{}`}}}, "finish: a summary is required"},
		{"tools no call", "tools", "", model.Reply{Content: "I am done"}, "error: no tool call"},
		{"tools computer_use key", "tools", "", model.Reply{Content: `<tool_call>{"name":"computer_use","arguments":{"action":"key","keys":["ctrl","a"]}}</tool_call>`}, "hotkey(ctrl+a)"},
		{"tools system_button", "tools", "", model.Reply{Content: `<tool_call>{"name":"mobile_use","arguments":"{\"action\":\"system_button\",\"button\":\"Back\"}"}</tool_call>`}, "key(back)"},
		{"tools finish stops queue", "tools", "", model.Reply{ToolCalls: []model.ToolCall{
			{Name: "finish", Arguments: `{"summary":"ok"}`},
			{Name: "tap", Arguments: `{"x":1,"y":1}`}}}, `finish("ok")`},
		{"json not json", "json", "", model.Reply{Content: "click the button"}, "not a JSON object"},
		{"json bad index", "json", "", model.Reply{Content: `{"action":"click","params":{"index":7}}`}, "error: element 7 is not in the UI state"},
		{"json input at index", "json", "", model.Reply{Content: `{"action":"input","params":{"text":"hi","index":1}}`}, `tap(540,400) | type("hi")`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := New(tc.dialect, tc.variant)
			if err != nil {
				t.Fatal(err)
			}
			gg := g
			if tc.dialect == "json" {
				gg.Elements = jsonElements
			}
			p, err := d.Parse(tc.reply, gg)
			got := ""
			if err != nil {
				var pe *model.ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("error %T", err)
				}
				got = "error: " + pe.Reason
			} else {
				var s []string
				for _, a := range p.Actions {
					s = append(s, a.String())
				}
				got = strings.Join(s, " | ")
			}
			if !strings.Contains(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestBuild(t *testing.T) {
	in := model.Input{Goal: "打开微信", History: []model.Step{{N: 1, Actions: []action.Action{{Type: action.Tap, X: 1, Y: 2}}, Result: "ok"}},
		Supported: []action.Type{action.Tap, action.Swipe}}
	shot := []model.EncodedImage{{Data: []byte{1, 2}, MIME: "image/jpeg", Size: action.Size{W: 1092, H: 2408}}}
	for _, name := range Names {
		if name == "autoglm" || name == "uitars" {
			continue // replay turns as their reference clients do: TestRequestGolden
		}
		d, _ := New(name, "")
		p := d.Build(in, shot, `{"elements":[]}`)
		if len(p.Messages) != 2 || p.Messages[0].Role != model.System || len(p.Messages[1].Parts) != 2 {
			t.Fatalf("%s: messages %+v", name, p.Messages)
		}
		if !strings.Contains(p.Messages[1].Parts[0].Text, "打开微信") || !strings.Contains(p.Messages[1].Parts[0].Text, "tap(1,2)") {
			t.Fatalf("%s: user text %q", name, p.Messages[1].Parts[0].Text)
		}
		if name == "tools" {
			var names []string
			for _, tl := range p.Tools {
				names = append(names, tl.Name)
			}
			if got := strings.Join(names, ","); got != "tap,swipe,wait,finish,fail,ask_user,take_over" {
				t.Fatalf("tools %s", got)
			}
		}
	}
}

// TestGLMSwipeDuration: AutoGLM's swipes last as the reference client makes
// them (Open-AutoGLM phone_agent/adb/device.py swipe): the squared distance
// in device pixels over 1000, in milliseconds, held within 1000–2000 ms.
func TestGLMSwipeDuration(t *testing.T) {
	tests := []struct {
		reply string
		ms    int
	}{
		{`do(action="Swipe", start=[500,500], end=[500,520])`, 1000}, // 48 px: short swipes last 1 s
		{`do(action="Swipe", start=[500,800], end=[500,200])`, 2000}, // 1440 px: 2073 ms, held at 2 s
		{`do(action="Swipe", start=[200,500], end=[800,500])`, 1000}, // 648 px: 419 ms, raised to 1 s
		{`do(action="Swipe", start=[500,700], end=[500,200])`, 1440}, // 1200 px: 1440 ms
	}
	for _, tc := range tests {
		p, err := AutoGLM{}.Parse(model.Reply{Content: tc.reply}, model.Geometry{Screen: phone})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Actions[0].Ms; got != tc.ms {
			t.Errorf("%s: %d ms, want %d", tc.reply, got, tc.ms)
		}
	}
}

// TestParserAdditions: forms the official and popular parsers read
// (UI-TARS-desktop packages/ui-tars/action-parser, Qwen's mobile_use, the
// AutoGLM clients). A reply read by repairing its form says so (Salvaged).
func TestParserAdditions(t *testing.T) {
	desk := action.Size{W: 1920, H: 1080}
	tests := []struct {
		name, dialect, variant string
		screen, image          action.Size
		reply                  string
		want                   string // actions, or "error: …"
		thought                string // when non-empty, the thought read
		salvaged               bool
	}{
		{"tars Action after text on the same line", "uitars", "1.0", desk, action.Size{},
			"Thought: 点击搜索框。 Action: click(start_box='(500,500)')", "tap(960,540)", "点击搜索框。", true},
		{"tars code fence", "uitars", "1.0", desk, action.Size{},
			"```\nThought: open it\nAction: click(start_box='(100,100)')\n```", "tap(192,108)", "open it", true},
		{"tars type(text=) alias", "uitars", "1.0", desk, action.Size{},
			"Thought: type\nAction: type(text='hello')", `type("hello")`, "", true},
		{"tars O1 Thought block", "uitars", "1.0", desk, action.Size{},
			"<Thought>The button is at the top.</Thought>\nAction_Summary: click it\nAction: click(start_box='(100,100)')\n</Output>", "tap(192,108)", "The button is at the top.", false},
		{"tars upper edge clamps", "uitars", "1.0", desk, action.Size{},
			"Action: click(start_box='(1000,1000)')", "tap(1919,1079)", "", false},
		{"tools bare JSON action", "tools", "abs", phone, action.Size{W: 1092, H: 2408},
			`{"action":"click","coordinate":[546,1204]}`, "tap(540,1200)", "", true},
		{"tools fenced bare JSON", "tools", "abs", phone, action.Size{W: 1092, H: 2408},
			"I will go back.\n```json\n{\"action\": \"system_button\", \"button\": \"Back\"}\n```", "key(back)", "I will go back.", true},
		{"tools bare mobile_use call", "tools", "abs", phone, action.Size{W: 1092, H: 2408},
			`{"name": "mobile_use", "arguments": {"action": "type", "text": "你好"}}`, `type("你好")`, "", true},
		{"tools abs upper edge clamps", "tools", "abs", phone, action.Size{W: 1092, H: 2408},
			`<tool_call>{"name":"mobile_use","arguments":{"action":"click","coordinate":[1092,2408]}}</tool_call>`, "tap(1079,2399)", "", false},
		{"glm code fence", "autoglm", "", phone, action.Size{},
			"```\ndo(action=\"Back\")\n```", "key(back)", "", true},
		{"glm upper edge clamps", "autoglm", "", phone, action.Size{},
			`do(action="Tap", element=[1000,1000])`, "tap(1079,2399)", "", false},
		{"glm past the edge is refused", "autoglm", "", phone, action.Size{},
			`do(action="Tap", element=[1001,10])`, "is outside the 0–1000 grid", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := New(tc.dialect, tc.variant)
			if err != nil {
				t.Fatal(err)
			}
			p, err := d.Parse(model.Reply{Content: tc.reply}, model.Geometry{Screen: tc.screen, Image: tc.image})
			got := ""
			if err != nil {
				got = "error: " + err.Error()
			} else {
				var s []string
				for _, a := range p.Actions {
					s = append(s, a.String())
				}
				got = strings.Join(s, " | ")
			}
			if !strings.Contains(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if err != nil {
				return
			}
			if tc.thought != "" && p.Thought != tc.thought {
				t.Errorf("thought %q, want %q", p.Thought, tc.thought)
			}
			if (p.Salvaged != "") != tc.salvaged {
				t.Errorf("salvaged %q, want salvaged=%v", p.Salvaged, tc.salvaged)
			}
		})
	}
}

// TestGLMTypeClears: AutoGLM's prompt tells it a Type replaces the field's
// text, so its Type asks the device to clear the field first.
func TestGLMTypeClears(t *testing.T) {
	for _, r := range []string{`do(action="Type", text="你好")`, `do(action="Type_Name", text="张三")`} {
		p, err := AutoGLM{}.Parse(model.Reply{Content: r}, model.Geometry{Screen: phone})
		if err != nil || !p.Actions[0].Clear {
			t.Errorf("%s: %+v %v", r, p.Actions, err)
		}
	}
}
