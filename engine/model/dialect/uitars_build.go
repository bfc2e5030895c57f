package dialect

import (
	"encoding/base64"
	"fmt"
	"strings"

	"tandem/engine/action"
	"tandem/engine/model"
)

// UI-TARS's request follows bytedance/UI-TARS-desktop
// packages/ui-tars/sdk/src (GUIAgent.ts, utils.ts toVlmModelFormat,
// processVlmParams, convertToOpenAIMessages):
//   - no system message: the template, ending in "## User Instruction",
//     followed by the task is the first user message;
//   - each screenshot is a user message of its own (PNG, image only), each
//     reply an assistant message with the model's own text (its Reflection
//     removed, as getSummary does);
//   - only the newest MAX_IMAGE_LENGTH = 5 screenshots are sent.
// Tandem's notes (a failed action, what the person did, in the model's own
// coordinates) are user text just before the screenshot they lead to.

// tarsTemplate picks the template by variant and device kind.
func (u UITARS) tarsTemplate(computer bool) string {
	switch {
	case u.Variant == "doubao" && computer:
		return tarsComputerDoubao
	case u.Variant == "doubao":
		return tarsPhoneDoubao
	case computer && u.Variant == "1.0":
		return tarsComputer10
	case computer:
		return tarsComputer15
	case u.Variant == "1.0":
		return tarsPhone10
	}
	return tarsPhone15
}

// tarsSummary drops each "Reflection:" block up to the next
// "Action_Summary:" or "Action:" (the SDK's getSummary).
func tarsSummary(r string) string {
	for {
		i := strings.Index(r, "Reflection:")
		if i < 0 {
			return strings.TrimSpace(r)
		}
		rest := r[i:]
		end := len(rest)
		for _, m := range []string{"Action_Summary:", "Action:"} {
			if j := strings.Index(rest, m); j >= 0 && j < end {
				end = j
			}
		}
		r = r[:i] + rest[end:]
	}
}

// Build implements model.Dialect. The compact UI tree is not sent: UI-TARS
// reads screenshots only.
func (u UITARS) Build(in model.Input, shots []model.EncodedImage, _ string) model.Prompt {
	computer := deviceWord(in.Supported) == "computer"
	lang := "English"
	if hasCJK(in.Goal) {
		lang = "Chinese"
	}
	msgs := []model.Message{{Role: model.User, Text: fmt.Sprintf(u.tarsTemplate(computer), lang) + in.Goal}}
	g := u.grid(in.Observation.Screen, shots)
	var pending []string
	flush := func() {
		if len(pending) > 0 {
			msgs = append(msgs, model.Message{Role: model.User, Text: strings.Join(pending, "\n")})
			pending = nil
		}
	}
	image := func(s model.EncodedImage) {
		if len(s.Data) == 0 { // the person's step: no screenshot of its own
			return
		}
		flush()
		msgs = append(msgs, model.Message{Role: model.User, Parts: []model.Part{
			model.ImagePart("data:" + s.MIME + ";base64," + base64.StdEncoding.EncodeToString(s.Data))}})
	}
	n := len(in.History)
	for i, s := range in.History {
		// shots[len(shots)-1-k] is the screen History[n-k] was decided on.
		if j := len(shots) - 1 - (n - i); j >= 0 {
			image(shots[j])
		}
		if s.ByPerson {
			pending = append(pending, "Tandem: "+g.personNote(s))
			continue
		}
		flush()
		msgs = append(msgs, model.Message{Role: model.Assistant, Text: g.replay(s)})
		if s.Result != "" && s.Result != "ok" {
			pending = append(pending, "Tandem: that action did not work: "+s.Result)
		}
	}
	for _, note := range in.Notes {
		pending = append(pending, "Tandem: "+note)
	}
	if len(shots) > 0 {
		image(shots[len(shots)-1])
	}
	flush()
	return model.Prompt{Messages: msgs}
}

// tarsGrid writes device-pixel actions in a UI-TARS variant's own forms.
type tarsGrid struct {
	screen, model action.Size // the model's space: 1000x1000, or the resized image
	doubao        bool
	// swipeScroll writes a swipe as scroll(start_box, end_box), as 1.0's
	// phone template does; the other spaces have drag for it.
	swipeScroll bool
}

func (u UITARS) grid(screen action.Size, shots []model.EncodedImage) tarsGrid {
	g := tarsGrid{screen: screen, model: action.Size{W: 1000, H: 1000}, doubao: u.Variant == "doubao", swipeScroll: u.Variant == "1.0"}
	if u.Variant == "1.5" {
		img := screen
		if len(shots) > 0 {
			img = shots[len(shots)-1].Size
		}
		if h, w, err := model.SmartResize(img.H, img.W, tarsFactor, tarsMinPixels, tarsMaxPixels); err == nil {
			g.model = action.Size{W: w, H: h}
		}
	}
	return g
}

func (g tarsGrid) xy(x, y int) (int, int) {
	if g.screen.W <= 0 || g.screen.H <= 0 {
		return x, y
	}
	return x * g.model.W / g.screen.W, y * g.model.H / g.screen.H
}

// pt is one point argument: start_box='<|box_start|>(x,y)<|box_end|>' or
// point='<point>x y</point>' (start_point / end_point when which is set).
func (g tarsGrid) pt(which string, x, y int) string {
	mx, my := g.xy(x, y)
	if g.doubao {
		key := "point"
		if which != "" {
			key = which + "_point"
		}
		return fmt.Sprintf("%s='<point>%d %d</point>'", key, mx, my)
	}
	key := "start_box"
	if which == "end" {
		key = "end_box"
	}
	return fmt.Sprintf("%s='<|box_start|>(%d,%d)<|box_end|>'", key, mx, my)
}

func tarsQuote(s string) string {
	return strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`).Replace(s)
}

// call writes one canonical action as the variant's action call.
func (g tarsGrid) call(a action.Action) string {
	start := func() string {
		if g.doubao {
			return g.pt("start", a.X, a.Y)
		}
		return g.pt("", a.X, a.Y)
	}
	switch a.Type {
	case action.Tap:
		return "click(" + g.pt("", a.X, a.Y) + ")"
	case action.DoubleTap:
		return "left_double(" + g.pt("", a.X, a.Y) + ")"
	case action.RightClick:
		return "right_single(" + g.pt("", a.X, a.Y) + ")"
	case action.LongPress:
		return "long_press(" + g.pt("", a.X, a.Y) + ")"
	case action.Swipe, action.Drag:
		if g.swipeScroll && a.Type == action.Swipe {
			return "scroll(" + start() + ", " + g.pt("end", a.X2, a.Y2) + ")"
		}
		return "drag(" + start() + ", " + g.pt("end", a.X2, a.Y2) + ")"
	case action.Scroll:
		return "scroll(" + g.pt("", a.X, a.Y) + ", direction='" + a.Direction + "')"
	case action.TypeText:
		t := a.Text
		if a.Submit {
			t += "\n"
		}
		return "type(content='" + tarsQuote(t) + "')"
	case action.Key:
		switch a.Key {
		case "back":
			return "press_back()"
		case "home":
			return "press_home()"
		}
		return "hotkey(key='" + a.Key + "')"
	case action.Hotkey:
		return "hotkey(key='" + strings.Join(a.Keys, " ") + "')"
	case action.Launch:
		return "open_app(app_name='" + tarsQuote(a.App) + "')"
	case action.Wait:
		return "wait()"
	case action.Finish:
		return "finished(content='" + tarsQuote(a.Summary) + "')"
	case action.AskUser, action.TakeOver:
		return "call_user()"
	case action.Fail:
		// UI-TARS has no call for failure: written as Tandem's
	}
	return a.String()
}

// replay is a past step as the assistant turn: the model's own reply
// without its Reflection, else rewritten from the step's actions.
func (g tarsGrid) replay(s model.Step) string {
	if r := strings.TrimSpace(s.Reply); r != "" {
		return tarsSummary(r)
	}
	var calls []string
	for _, a := range s.Actions {
		calls = append(calls, g.call(a))
	}
	return "Thought: " + strings.TrimSpace(s.Thought) + "\nAction: " + strings.Join(calls, "\n\n")
}

func (g tarsGrid) personNote(s model.Step) string {
	out := "the person took over the device and made no input."
	if len(s.Actions) > 0 {
		var calls []string
		for _, a := range s.Actions {
			calls = append(calls, g.call(a))
		}
		out = "the person took over the device and did: " + strings.Join(calls, "; ")
	}
	if s.Note != "" {
		out += " Their note: " + s.Note
	}
	if r := s.Region; r != nil {
		x1, y1 := g.xy(r.Min.X, r.Min.Y)
		x2, y2 := g.xy(r.Max.X, r.Max.Y)
		if g.doubao {
			out += fmt.Sprintf(" They marked the region <bbox>%d %d %d %d</bbox>", x1, y1, x2, y2)
		} else {
			out += fmt.Sprintf(" They marked the region (%d,%d,%d,%d)", x1, y1, x2, y2)
		}
	}
	return out
}
