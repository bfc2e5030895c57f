package dialect

import (
	"encoding/json"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"tandem/engine/action"
	"tandem/engine/model"
)

// requestCase is one golden request: a dialect and variant on a device
// kind, rendered at step 1 and at step 3 after the person handed back.
type requestCase struct {
	dialect, variant, model string
	kind                    string // "phone" or "desktop"
	source                  string // the official client the golden follows
}

func requestCases() []requestCase {
	const glm = "zai-org/Open-AutoGLM phone_agent/config/prompts_zh.py, prompts_en.py, agent.py (_execute_step), model/client.py (MessageBuilder, ModelConfig)"
	return []requestCase{
		{"autoglm", "", "autoglm-phone", "phone", glm},
		{"autoglm", "", "autoglm-phone-9b-multilingual", "phone", glm},
		{"uitars", "1.0", "ui-tars-7b-sft", "phone", "bytedance/UI-TARS README_v1.md (mobile template); UI-TARS-desktop packages/ui-tars/sdk/src/utils.ts, Model.ts"},
		{"uitars", "1.0", "ui-tars-7b-sft", "desktop", "bytedance/UI-TARS README_v1.md (computer template); UI-TARS-desktop packages/ui-tars/sdk/src/utils.ts, Model.ts"},
		{"uitars", "1.5", "ui-tars-1.5-7b", "phone", "bytedance/UI-TARS codes/prompts.py (MOBILE_USE, 6b315cc0), README_coordinates.md; UI-TARS-desktop packages/ui-tars/sdk/src/utils.ts, Model.ts"},
		{"uitars", "1.5", "ui-tars-1.5-7b", "desktop", "bytedance/UI-TARS-desktop apps/ui-tars/src/main/agent/prompts.ts (getSystemPromptV1_5), packages/ui-tars/sdk/src/utils.ts, Model.ts"},
		{"uitars", "doubao", "doubao-1.5-ui-tars-250328", "phone", "bytedance/UI-TARS codes/ui_tars/prompt.py (MOBILE_USE_DOUBAO); UI-TARS-desktop packages/ui-tars/sdk/src/utils.ts, Model.ts"},
		{"uitars", "doubao", "doubao-1.5-ui-tars-250328", "desktop", "bytedance/UI-TARS codes/ui_tars/prompt.py (COMPUTER_USE_DOUBAO); UI-TARS-desktop packages/ui-tars/sdk/src/utils.ts, Model.ts"},
		{"tools", "abs", "qwen2.5-vl-72b-instruct", "phone", "QwenLM/Qwen2.5-VL cookbooks/utils/agent_function_call.py (MobileUse: pixels of the resized image, resolution stated); cookbooks/mobile_agent.ipynb (system message with the Nous tool block, [screenshot, query] user turn, Step N: {call} history)"},
		{"tools", "abs", "qwen2.5-vl-72b-instruct", "desktop", "QwenLM/Qwen2.5-VL cookbooks/utils/agent_function_call.py (ComputerUse: pixels of the resized image, resolution stated); request laid out as cookbooks/mobile_agent.ipynb (computer_use.ipynb was not readable here)"},
		{"tools", "rel1000", "gpt-4o", "phone", "Tandem's own OpenAI tool-calling format (no official agent client)"},
		{"tools", "rel999", "qwen3-vl-plus", "phone", "QwenLM/Qwen3-VL cookbooks/mobile_agent.ipynb (0-999 grid)"},
		{"json", "abs", "qwen2.5vl:7b", "phone", "Tandem's own one-step JSON for small local models (no official client)"},
	}
}

var (
	phoneActions   = []action.Type{action.Tap, action.DoubleTap, action.LongPress, action.Swipe, action.TypeText, action.Key, action.Launch}
	desktopActions = []action.Type{action.Tap, action.DoubleTap, action.RightClick, action.Drag, action.Scroll, action.TypeText, action.Key, action.Hotkey}
	desktop        = action.Size{W: 1920, H: 1080}
)

// fakeShot stands for a prepared screenshot; goldens show its size and
// format, never its bytes.
func fakeShot(d model.Dialect, screen action.Size, n int) model.EncodedImage {
	return fakeShotFor(d, "", screen, n)
}

// fakeShotFor is fakeShot at the budget the planner uses for the model.
func fakeShotFor(d model.Dialect, modelName string, screen action.Size, n int) model.EncodedImage {
	b := model.BudgetFor(d, modelName)
	mime := "image/" + b.Format
	return model.EncodedImage{Data: []byte(fmt.Sprintf("shot-%d", n)), MIME: mime, Size: b.Fit(screen)}
}

// requestInputs are the two scenarios: step 1, and step 3 after the model
// launched the app (step 1) and the person took over and tapped (step 2).
func requestInputs(c requestCase, d model.Dialect) (step1, step3 model.Input, shots1, shots3 []model.EncodedImage) {
	screen, supported, app := phone, phoneActions, "微信"
	goal := "给文件传输助手发送“你好”"
	if c.kind == "desktop" {
		screen, supported, app = desktop, desktopActions, "Firefox"
	}
	if c.model == "autoglm-phone-9b-multilingual" {
		goal = "Send hello to File Transfer in WeChat"
	}
	now := time.Date(2026, 11, 23, 21, 0, 0, 0, time.UTC)
	step1 = model.Input{Goal: goal, Model: c.model, Now: now, Supported: supported,
		Observation: model.Observation{Screen: screen, App: ""}}
	launch := action.Action{Type: action.Launch, App: "微信"}
	tap := action.Action{Type: action.Tap, X: screen.W / 2, Y: screen.H / 4}
	step3 = step1
	step3.Observation.App = app
	step3.History = []model.Step{
		{N: 1, Thought: "先打开微信。", Actions: []action.Action{launch}, Result: "ok", Reply: replyFor(c), App: ""},
		{N: 1, Actions: []action.Action{tap}, Result: "done by the person", ByPerson: true, Note: "已登录",
			Region: &image.Rectangle{Min: image.Pt(0, screen.H/2), Max: image.Pt(screen.W, screen.H)}},
	}
	step3.Notes = []string{"The person took over control. They have handed control back to you: look at the current screen and continue."}
	// The planner sends earlier screenshots after a hand-back as on any
	// other step (chatPlanner.previousShots): the model's step-1 screen when
	// the dialect keeps more than one, an empty placeholder for the person's
	// step (dialects skip it), then the current screen.
	shots1 = []model.EncodedImage{fakeShotFor(d, c.model, screen, 1)}
	shots3 = []model.EncodedImage{fakeShotFor(d, c.model, screen, 3)}
	if model.BudgetFor(d, c.model).KeepLast > 1 {
		shots3 = []model.EncodedImage{shots1[0], {}, shots3[0]}
	}
	return
}

// replyFor is a reply of the model's own format that launches the app.
func replyFor(c requestCase) string {
	switch c.dialect {
	case "autoglm":
		return "<think>先打开微信。</think><answer>do(action=\"Launch\", app=\"微信\")</answer>"
	case "uitars":
		if c.variant == "doubao" && c.kind == "desktop" {
			return "Thought: 双击桌面上的微信图标打开它。\nAction: left_double(point='<point>27 81</point>')"
		}
		if c.variant == "doubao" {
			return "Thought: 先打开微信。\nAction: click(point='<point>111 358</point>')"
		}
		if c.kind == "desktop" {
			return "Thought: 双击桌面上的微信图标打开它。\nAction: left_double(start_box='<|box_start|>(52,88)<|box_end|>')"
		}
		return "Thought: 先打开微信。\nAction: click(start_box='<|box_start|>(120,860)<|box_end|>')"
	}
	return ""
}

var dataURL = regexp.MustCompile(`data:(image/[a-z]+);base64,[A-Za-z0-9+/=]+`)

// renderRequest is the prompt as the client sends it, with each image
// replaced by its format and pixel size.
func renderRequest(t *testing.T, p model.Prompt, shots []model.EncodedImage) string {
	t.Helper()
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	out := dataURL.ReplaceAllStringFunc(string(b), func(m string) string {
		sm := dataURL.FindStringSubmatch(m)
		size := "?"
		for i < len(shots) && len(shots[i].Data) == 0 {
			i++ // a placeholder: the dialect sends nothing for it
		}
		if i < len(shots) {
			size = shots[i].Size.String()
		}
		i++
		return fmt.Sprintf("<%s %s>", sm[1], size)
	})
	return strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(out)
}

// TestRequestGolden: the full request each dialect builds, compared with a
// golden file that names the official client it follows. -update rewrites.
func TestRequestGolden(t *testing.T) {
	compact := `[{"i":0,"text":"Search","b":[40,100,1040,220]}]`
	for _, c := range requestCases() {
		d, err := New(c.dialect, c.variant)
		if err != nil {
			t.Fatal(err)
		}
		in1, in3, s1, s3 := requestInputs(c, d)
		for _, st := range []struct {
			name  string
			in    model.Input
			shots []model.EncodedImage
		}{{"step1", in1, s1}, {"step3_after_handback", in3, s3}} {
			name := fmt.Sprintf("%s_%s_%s_%s_%s", c.dialect, orDefault(c.variant), c.model, c.kind, st.name)
			t.Run(name, func(t *testing.T) {
				got := "# source: " + c.source + "\n" + renderRequest(t, d.Build(st.in, st.shots, compact), st.shots) + "\n"
				file := filepath.Join("testdata", "requests", strings.ReplaceAll(name, "/", "-")+".txt")
				if *update {
					if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(file)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if string(want) != got {
					t.Errorf("request differs from %s:\n%s", file, got)
				}
			})
		}
	}
}

func orDefault(v string) string {
	if v == "" {
		return "default"
	}
	return v
}
