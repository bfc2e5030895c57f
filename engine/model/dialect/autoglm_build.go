package dialect

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"tandem/engine/action"
	"tandem/engine/model"
)

// AutoGLM's request follows zai-org/Open-AutoGLM phone_agent/agent.py
// (_execute_step) and phone_agent/model/client.py (MessageBuilder):
//   - a system message: the dated prompt in the model's language;
//   - per step a user message, image part first then text: the task and the
//     screen info on the first step, "** Screen Info **" and the screen info
//     on later ones; the screen info is {"current_app": "<app name>"};
//   - the model's reply as an assistant message
//     "<think>{thinking}</think><answer>{action}</answer>";
//   - only the newest user message keeps its screenshot (PNG); no UI tree.
// Tandem's own notes (a failed action, what the person did, a denial) are
// added to the next user message's text, coordinates on the model's grid.

// glmChinese reports whether model gets the Chinese prompt: everything but
// AutoGLM-Phone-9B-Multilingual, which was trained on the English one
// (Open-AutoGLM README: "autoglm-phone-multilingual" with --lang en).
func glmChinese(modelName string) bool {
	return !strings.Contains(strings.ToLower(modelName), "multilingual")
}

var zhWeekdays = [...]string{"星期日", "星期一", "星期二", "星期三", "星期四", "星期五", "星期六"}

// glmSystem is the system prompt for the day of now.
func glmSystem(now time.Time, zh bool) string {
	if zh {
		return fmt.Sprintf(glmZH, now.Format("2006年01月02日")+" "+zhWeekdays[now.Weekday()])
	}
	return fmt.Sprintf(glmEN, now.Format("2006-01-02, Monday"))
}

// glmScreenInfo is MessageBuilder.build_screen_info: Python's json.dumps
// with ensure_ascii=False. An unknown app is "System Home", as the
// reference's get_current_app says when the package is not in its table.
func glmScreenInfo(app string) string {
	if strings.TrimSpace(app) == "" {
		app = "System Home"
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(app)
	return `{"current_app": ` + strings.TrimSpace(b.String()) + `}`
}

// Build implements model.Dialect. The compact UI tree is not sent: the
// model was trained on the screenshot and current_app alone.
func (AutoGLM) Build(in model.Input, shots []model.EncodedImage, _ string) model.Prompt {
	zh := glmChinese(in.Model)
	screen := in.Observation.Screen
	msgs := []model.Message{{Role: model.System, Text: glmSystem(in.Now, zh)}}
	first := true
	var pending []string
	user := func(app string, shot *model.EncodedImage) {
		text := "** Screen Info **\n\n" + glmScreenInfo(app)
		if first {
			text = in.Goal + "\n\n" + glmScreenInfo(app)
			first = false
		}
		if len(pending) > 0 {
			text += "\n\n" + strings.Join(pending, "\n")
			pending = nil
		}
		var parts []model.Part
		if shot != nil {
			parts = append(parts, model.ImagePart("data:"+shot.MIME+";base64,"+base64.StdEncoding.EncodeToString(shot.Data)))
		}
		parts = append(parts, model.TextPart(text))
		msgs = append(msgs, model.Message{Role: model.User, Parts: parts})
	}
	for _, s := range in.History {
		if s.ByPerson {
			pending = append(pending, glmPersonNote(s, screen, zh))
			continue
		}
		user(s.App, nil)
		msgs = append(msgs, model.Message{Role: model.Assistant, Text: glmReplay(s, screen)})
		if s.Result != "" && s.Result != "ok" {
			pending = append(pending, pick(zh, "Tandem: that action did not work: ", "Tandem：上一步操作没有成功：")+s.Result)
		}
	}
	for _, n := range in.Notes {
		pending = append(pending, pick(zh, "Tandem: ", "Tandem：")+n)
	}
	var cur *model.EncodedImage
	if len(shots) > 0 {
		cur = &shots[len(shots)-1]
	}
	user(in.Observation.App, cur)
	return model.Prompt{Messages: msgs}
}

func pick(zh bool, en, cn string) string {
	if zh {
		return cn
	}
	return en
}

// glmReplay is a past step as the reference keeps it in context: the
// reply's thinking and action, in the model's own words and coordinates.
// Steps recorded without the reply are rewritten from their actions.
func glmReplay(s model.Step, screen action.Size) string {
	thought, act := s.Thought, ""
	if s.Reply != "" {
		t, a, ok := glmSplit(s.Reply)
		if ok {
			thought, act = t, a
		}
	}
	if act == "" && len(s.Actions) > 0 {
		act = glmCall(s.Actions[0], screen)
	}
	return "<think>" + strings.TrimSpace(thought) + "</think><answer>" + act + "</answer>"
}

// glmSplit splits a reply into its thinking and its action call, without
// the tags and special tokens around them.
func glmSplit(reply string) (thought, act string, ok bool) {
	s := boxTokens.Replace(reply)
	m := glmCallRe.FindStringSubmatchIndex(s)
	if m == nil {
		return "", "", false
	}
	tags := strings.NewReplacer("<think>", "", "</think>", "", "<answer>", "", "</answer>", "")
	return strings.TrimSpace(tags.Replace(s[:m[2]])), strings.TrimSpace(tags.Replace(s[m[2]:])), true
}

// glmPoint maps device pixels to the 0–999 grid (the inverse of the
// reference's x/1000·width).
func glmPoint(x, y int, screen action.Size) string {
	if screen.W <= 0 || screen.H <= 0 {
		return fmt.Sprintf("[%d,%d]", x, y)
	}
	return fmt.Sprintf("[%d,%d]", min(999, x*1000/screen.W), min(999, y*1000/screen.H))
}

// glmCall writes a canonical action as AutoGLM's own call.
func glmCall(a action.Action, screen action.Size) string {
	q := func(s string) string { return strings.ReplaceAll(s, `"`, `\"`) }
	switch a.Type {
	case action.Tap:
		return `do(action="Tap", element=` + glmPoint(a.X, a.Y, screen) + `)`
	case action.DoubleTap:
		return `do(action="Double Tap", element=` + glmPoint(a.X, a.Y, screen) + `)`
	case action.LongPress:
		return `do(action="Long Press", element=` + glmPoint(a.X, a.Y, screen) + `)`
	case action.Swipe, action.Drag:
		return `do(action="Swipe", start=` + glmPoint(a.X, a.Y, screen) + `, end=` + glmPoint(a.X2, a.Y2, screen) + `)`
	case action.TypeText:
		return `do(action="Type", text="` + q(a.Text) + `")`
	case action.Launch:
		return `do(action="Launch", app="` + q(a.App) + `")`
	case action.Key:
		switch a.Key {
		case "back":
			return `do(action="Back")`
		case "home":
			return `do(action="Home")`
		}
	case action.Wait:
		return fmt.Sprintf(`do(action="Wait", duration="%g seconds")`, float64(a.Ms)/1000)
	case action.TakeOver:
		return `do(action="Take_over", message="` + q(a.Reason) + `")`
	case action.AskUser:
		return `do(action="Interact")`
	case action.Finish:
		return `finish(message="` + q(a.Summary) + `")`
	case action.RightClick, action.Scroll, action.Hotkey, action.Fail:
		// AutoGLM has no call for these: written as Tandem's
	}
	return a.String()
}

// glmPersonNote tells the model what the person did while in control, as
// AutoGLM calls on its own grid.
func glmPersonNote(s model.Step, screen action.Size, zh bool) string {
	var calls []string
	for _, a := range s.Actions {
		calls = append(calls, glmCall(a, screen))
	}
	out := pick(zh, "Tandem: the person took over the phone and made no input.", "Tandem：用户接管了手机，没有进行操作。")
	if len(calls) > 0 {
		out = pick(zh, "Tandem: the person took over the phone and did: ", "Tandem：用户接管了手机，执行了：") + strings.Join(calls, pick(zh, "; ", "；"))
	}
	if s.Note != "" {
		out += pick(zh, " Their note: ", " 用户备注：") + s.Note
	}
	if r := s.Region; r != nil {
		out += pick(zh, " They marked the region from ", " 用户标出的区域：从 ") + glmPoint(r.Min.X, r.Min.Y, screen) +
			pick(zh, " to ", " 到 ") + glmPoint(r.Max.X, r.Max.Y, screen)
	}
	return out
}
