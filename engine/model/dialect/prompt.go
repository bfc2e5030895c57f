package dialect

import (
	"encoding/base64"
	"fmt"
	"math"
	"strings"

	"tandem/engine/action"
	"tandem/engine/model"
)

// hasCJK reports whether the goal is written in Chinese or Japanese, so the
// prompt can be given in Chinese (AutoGLM is trained on both).
func hasCJK(s string) bool {
	for _, r := range s {
		if r >= 0x4E00 && r <= 0x9FFF {
			return true
		}
	}
	return false
}

// userText renders the goal, the history, the engine's notes and the compact
// state as the text of the user turn. Actions are written in the model's
// own coordinates (toGrid), never in device pixels.
func userText(in model.Input, compact string, zh bool, grid gridFunc) string {
	var b strings.Builder
	label := func(en, cn string) string {
		if zh {
			return cn
		}
		return en
	}
	fmt.Fprintf(&b, "%s\n%s\n", label("Task:", "任务："), in.Goal)
	if len(in.History) > 0 {
		b.WriteString("\n" + label("Previous steps:", "已执行的步骤：") + "\n")
		for _, s := range in.History {
			var acts []string
			for _, a := range s.Actions {
				acts = append(acts, gridAction(a, grid).String())
			}
			who := ""
			if s.ByPerson {
				who = label(" (by the person)", "（由用户操作）")
			}
			fmt.Fprintf(&b, "%d.%s %s -> %s", s.N, who, strings.Join(acts, "; "), s.Result)
			if s.Note != "" {
				fmt.Fprintf(&b, label(" (their note: %q)", "（用户备注：%q）"), s.Note)
			}
			if r := s.Region; r != nil {
				x1, y1 := grid(r.Min.X, r.Min.Y)
				x2, y2 := grid(r.Max.X, r.Max.Y)
				fmt.Fprintf(&b, label(" (they marked the region (%d,%d)-(%d,%d))", "（用户标出的区域 (%d,%d)-(%d,%d)）"), x1, y1, x2, y2)
			}
			b.WriteString("\n")
		}
	}
	for _, n := range in.Notes {
		b.WriteString("\n" + label("Note: ", "注意：") + n + "\n")
	}
	if in.StepsLeft > 0 && in.StepsLeft <= 3 {
		fmt.Fprintf(&b, "\n%s %d\n", label("Steps left before the limit (finish, or say why you cannot):", "剩余步数（请完成任务或说明原因）："), in.StepsLeft)
	}
	if compact != "" {
		b.WriteString("\n" + label("UI state (elements by index, bounds in screen pixels):", "界面状态（元素索引与屏幕像素边界）：") + "\n" + compact + "\n")
	}
	return b.String()
}

// gridFunc maps a device pixel to the model's coordinates.
type gridFunc func(x, y int) (int, int)

// toGrid is the inverse of the parsers' mapping for a coordinate space:
// device pixels to what the model would write. img is the size of the image
// the model sees (abs); zero sizes leave points as they are.
func toGrid(s Space, screen, img action.Size) gridFunc {
	return func(x, y int) (int, int) {
		if screen.W <= 0 || screen.H <= 0 {
			return x, y
		}
		switch s {
		case Rel999:
			return int(math.Round(float64(x) * 999 / float64(screen.W))), int(math.Round(float64(y) * 999 / float64(screen.H)))
		case Abs:
			if img.W <= 0 || img.H <= 0 {
				return x, y
			}
			return x * img.W / screen.W, y * img.H / screen.H
		case Rel1000: // below
		default: // not a space (a dialect made without New): as rel1000
		}
		return x * 1000 / screen.W, y * 1000 / screen.H
	}
}

// gridAction is a with its points in the model's coordinates.
func gridAction(a action.Action, grid gridFunc) action.Action {
	switch a.Type {
	case action.Tap, action.DoubleTap, action.LongPress, action.RightClick, action.Scroll, action.Swipe, action.Drag:
		a.X, a.Y = grid(a.X, a.Y)
		if a.Type == action.Swipe || a.Type == action.Drag {
			a.X2, a.Y2 = grid(a.X2, a.Y2)
		}
	case action.TypeText, action.Key, action.Hotkey, action.Launch, action.Wait, action.Finish, action.Fail, action.AskUser, action.TakeOver:
		// not at a point
	}
	return a
}

// lastSize is the size of the newest screenshot (zero when none).
func lastSize(shots []model.EncodedImage) action.Size {
	if len(shots) == 0 {
		return action.Size{}
	}
	return shots[len(shots)-1].Size
}

// messages builds system + one user turn carrying the text and the images.
func messages(system, text string, shots []model.EncodedImage) []model.Message {
	user := model.Message{Role: model.User}
	if len(shots) == 0 {
		user.Text = text
	} else {
		user.Parts = []model.Part{model.TextPart(text)}
		for _, s := range shots {
			if len(s.Data) == 0 { // the person's step: no screenshot of its own
				continue
			}
			user.Parts = append(user.Parts, model.ImagePart(dataURLOf(s)))
		}
	}
	return []model.Message{{Role: model.System, Text: system}, user}
}

// dataURLOf is a screenshot as a data: URL.
func dataURLOf(s model.EncodedImage) string {
	return "data:" + s.MIME + ";base64," + base64.StdEncoding.EncodeToString(s.Data)
}

// Build implements model.Dialect. A Qwen2.5-VL model in abs gets Qwen's own
// agent tool and request (qwen.go).
func (t Tools) Build(in model.Input, shots []model.EncodedImage, compact string) model.Prompt {
	if qwenNative(t.Coords, in.Model) {
		return qwenBuild(in, shots, compact, toGrid(t.Coords, in.Observation.Screen, lastSize(shots)))
	}
	sys := "You operate a " + deviceWord(in.Supported) + " for a person, one step at a time, by calling the tools. " +
		"Look at the newest screenshot, then call the tool for the next action. Call finish with a summary when the task is done, " +
		"fail when it cannot be done, ask_user when only the person can decide, take_over for log-ins and captchas. " +
		"Set sensitive on any step that pays, sends, deletes, installs or grants a permission."
	if t.Coords == Abs && len(shots) > 0 {
		last := shots[len(shots)-1].Size
		sys += fmt.Sprintf(" The screen's resolution is %dx%d; coordinates are pixels of it.", last.W, last.H)
	}
	grid := toGrid(t.Coords, in.Observation.Screen, lastSize(shots))
	return model.Prompt{Messages: messages(sys, userText(in, compact, false, grid), shots),
		Tools: toolDefs(in.Supported, t.Coords), ToolChoice: "required"}
}

func deviceWord(supported []action.Type) string {
	for _, t := range supported {
		if t == action.RightClick || t == action.Hotkey {
			return "computer"
		}
	}
	return "phone"
}

// Build implements model.Dialect with seed 003's prompt.
func (j JSON) Build(in model.Input, shots []model.EncodedImage, compact string) model.Prompt {
	zh := hasCJK(in.Goal)
	sys := `You operate a phone for a person. Reply with ONE JSON object and nothing else:
{"thought": "one short sentence", "action": "click|long_press|swipe|input|back|home|launch|wait|finish|fail|ask_user", "params": {...}}
Prefer element indexes from the UI state: {"index": 3}. swipe: {"direction": "up|down|left|right"}. input: {"text": "...", "index": N}.
launch: {"app": "name"}. finish: {"summary": "what was done"}. fail: {"reason": "..."}. ask_user: {"question": "..."}.`
	if zh {
		sys = `你是手机操作助手。每次只返回一个 JSON 对象，不要输出其他内容：
{"thought": "一句话思考", "action": "click|long_press|swipe|input|back|home|launch|wait|finish|fail|ask_user", "params": {...}}
优先使用界面状态中的元素索引：{"index": 3}。swipe：{"direction": "up|down|left|right"}。input：{"text": "...", "index": N}。
launch：{"app": "应用名"}。finish：{"summary": "完成情况"}。fail：{"reason": "..."}。ask_user：{"question": "..."}。`
	}
	return model.Prompt{Messages: messages(sys, userText(in, compact, zh, toGrid(j.Coords, in.Observation.Screen, lastSize(shots))), shots)}
}
