package dialect

import (
	"encoding/base64"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"

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
// state as the text of the user turn.
func userText(in model.Input, compact string, zh bool) string {
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
				acts = append(acts, a.String())
			}
			who := ""
			if s.ByPerson {
				who = label(" (by the person)", "（由用户操作）")
			}
			fmt.Fprintf(&b, "%d.%s %s -> %s\n", s.N, who, strings.Join(acts, "; "), s.Result)
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

// messages builds system + one user turn carrying the text and the images.
func messages(system, text string, shots []model.EncodedImage) []openai.ChatCompletionMessage {
	user := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser}
	if len(shots) == 0 {
		user.Content = text
	} else {
		user.MultiContent = []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: text}}
		for _, s := range shots {
			user.MultiContent = append(user.MultiContent, openai.ChatMessagePart{
				Type:     openai.ChatMessagePartTypeImageURL,
				ImageURL: &openai.ChatMessageImageURL{URL: "data:" + s.MIME + ";base64," + base64.StdEncoding.EncodeToString(s.Data)},
			})
		}
	}
	return []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: system}, user}
}

// Build implements model.Dialect.
func (t Tools) Build(in model.Input, shots []model.EncodedImage, compact string) model.Prompt {
	sys := "You operate a " + deviceWord(in.Supported) + " for a person, one step at a time, by calling the tools. " +
		"Look at the newest screenshot, then call the tool for the next action. Call finish with a summary when the task is done, " +
		"fail when it cannot be done, ask_user when only the person can decide, take_over for log-ins and captchas. " +
		"Set sensitive on any step that pays, sends, deletes, installs or grants a permission."
	if t.Coords == Abs && len(shots) > 0 {
		last := shots[len(shots)-1].Size
		sys += fmt.Sprintf(" The screen's resolution is %dx%d; coordinates are pixels of it.", last.W, last.H)
	}
	return model.Prompt{Messages: messages(sys, userText(in, compact, false), shots),
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
	return model.Prompt{Messages: messages(sys, userText(in, compact, zh), shots)}
}
