package dialect

import (
	"strings"
	"testing"

	"tandem/engine/action"
	"tandem/engine/model"
)

// mobileUse15 is UI-TARS 1.5's phone action space, each call as its
// template writes it (the part before any comment): MOBILE_USE in
// bytedance/UI-TARS codes/prompts.py (6b315cc0, the 1.5 README's "Prompt
// Usage Guide"; later moved to codes/ui_tars/prompt.py).
var mobileUse15 = []string{
	"click(start_box='<|box_start|>(x1,y1)<|box_end|>')",
	"long_press(start_box='<|box_start|>(x1,y1)<|box_end|>')",
	"type(content='')",
	"scroll(start_box='<|box_start|>(x1,y1)<|box_end|>', direction='down or up or right or left')",
	"open_app(app_name='')",
	"drag(start_box='<|box_start|>(x1,y1)<|box_end|>', end_box='<|box_start|>(x3,y3)<|box_end|>')",
	"press_home()",
	"press_back()",
	"finished(content='xxx')",
}

// actionSpace is the calls a template lists between "## Action Space" and
// "## Note", comments cut off.
func actionSpace(t *testing.T, prompt string) []string {
	t.Helper()
	i, j := strings.Index(prompt, "## Action Space"), strings.Index(prompt, "## Note")
	if i < 0 || j < i {
		t.Fatalf("no action space in %q", prompt)
	}
	var calls []string
	for _, line := range strings.Split(prompt[i+len("## Action Space"):j], "\n") {
		if k := strings.Index(line, " #"); k >= 0 {
			line = line[:k]
		}
		if line = strings.TrimSpace(line); line != "" {
			calls = append(calls, line)
		}
	}
	return calls
}

// UI-TARS 1.5 on a phone is sent the phone template it was trained on (not
// 1.0's), and reads back every action of it.
func TestUITARS15PhoneSpeaksMobileUse(t *testing.T) {
	d := UITARS{Variant: "1.5"}
	in := model.Input{Goal: "打开设置", Supported: phoneActions, Observation: model.Observation{Screen: phone}}
	shots := []model.EncodedImage{fakeShot(d, phone, 1)}
	p := d.Build(in, shots, "")
	if got := actionSpace(t, p.Messages[0].Text); strings.Join(got, "\n") != strings.Join(mobileUse15, "\n") {
		t.Fatalf("the 1.5 phone action space is\n%s\nwant MOBILE_USE's\n%s", strings.Join(got, "\n"), strings.Join(mobileUse15, "\n"))
	}
	// 1.5 answers in pixels of the image it saw (1092x2408 for 1080x2400).
	g := model.Geometry{Screen: phone, Image: shots[0].Size}
	for _, tc := range []struct{ reply, want string }{
		{"click(start_box='<|box_start|>(546,1204)<|box_end|>')", "tap(540,1200)"},
		{"long_press(start_box='<|box_start|>(546,1204)<|box_end|>')", "long_press(540,1200"},
		{"type(content='你好\\n')", `type("你好"`},
		{"scroll(start_box='<|box_start|>(546,1204)<|box_end|>', direction='down')", "scroll(540,1200,down)"},
		{"open_app(app_name='设置')", "launch(设置)"},
		{"drag(start_box='<|box_start|>(546,1806)<|box_end|>', end_box='<|box_start|>(546,602)<|box_end|>')", "drag(540,1800→540,600"},
		{"press_home()", "key(home)"},
		{"press_back()", "key(back)"},
		{"finished(content='设置已打开')", `finish("设置已打开")`},
	} {
		parsed, err := d.Parse(model.Reply{Content: "Thought: 下一步。\nAction: " + tc.reply}, g)
		if err != nil {
			t.Errorf("%s: %v", tc.reply, err)
			continue
		}
		if got := parsed.Actions[0].String(); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: read as %s, want %s…", tc.reply, got, tc.want)
		}
	}
	// A swipe in the history (the person's) is written in that space too.
	in.History = []model.Step{{N: 1, ByPerson: true, Result: "ok",
		Actions: []action.Action{{Type: action.Swipe, X: 540, Y: 1800, X2: 540, Y2: 600, Ms: 300}}}}
	p = d.Build(in, []model.EncodedImage{{}, fakeShot(d, phone, 2)}, "")
	var told string
	for _, m := range p.Messages[1:] {
		told += m.Text
	}
	if !strings.Contains(told, "drag(start_box='<|box_start|>(546,1806)<|box_end|>', end_box='<|box_start|>(546,602)<|box_end|>')") {
		t.Fatalf("the person's swipe is not a drag of the 1.5 phone space: %s", told)
	}
}
