package cli

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/text/width"

	"tandem/engine"
	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// What a person types at "allow?": the words for yes and no in English and
// Chinese, in any case, full-width letters too; anything else is a reason
// to refuse, never a yes.
func TestConfirmAnswer(t *testing.T) {
	const (
		answerYes, answerNo, answerReason = string(engine.AnswerAllow), "no", "reason"
	)
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"y", answerYes}, {"Y", answerYes}, {"yes", answerYes}, {"YES", answerYes}, {" Yes ", answerYes},
		{"ok", answerYes}, {"OK", answerYes}, {"okay", answerYes}, {"sure", answerYes}, {"allow", answerYes},
		{"ｙｅｓ", answerYes}, {"ＯＫ", answerYes}, {"Ｙ", answerYes}, {"yes!", answerYes}, {"ok.", answerYes},
		{"是", answerYes}, {"是的", answerYes}, {"好", answerYes}, {"好的", answerYes}, {"确认", answerYes},
		{"确定", answerYes}, {"可以", answerYes}, {"同意", answerYes}, {"允许", answerYes}, {"行", answerYes},
		{"好的！", answerYes}, {"　是　", answerYes},
		{"n", answerNo}, {"N", answerNo}, {"no", answerNo}, {"NO", answerNo}, {"nope", answerNo}, {"deny", answerNo},
		{"ｎｏ", answerNo}, {"Ｎ", answerNo}, {"no!", answerNo}, {"cancel", answerNo},
		{"不", answerNo}, {"否", answerNo}, {"不要", answerNo}, {"拒绝", answerNo}, {"不行", answerNo},
		{"不可以", answerNo}, {"不同意", answerNo}, {"取消", answerNo}, {"别", answerNo}, {"不。", answerNo},
		// A reason refuses and goes to the model; so does a yes with
		// conditions: only a plain yes lets a payment through.
		{"not that card", answerReason}, {"yes but use the other card", answerReason},
		{"no, use the other card", answerReason}, {"好的但是换一张卡", answerReason},
		{"用另一张卡", answerReason}, {"yess", answerReason}, {"not", answerReason}, {"?", answerReason},
	} {
		a, text := readAnswer(engine.AskConfirm, tc.in)
		got := string(a)
		switch {
		case a == engine.AnswerDeny && text == "":
			got = answerNo
		case a == engine.AnswerDeny && text == strings.TrimSpace(tc.in):
			got = answerReason
		}
		if got != string(tc.want) {
			t.Errorf("readAnswer(confirm, %q) = %v %q, want %v", tc.in, a, text, tc.want)
		}
	}
}

// The command line takes every answer of the one list, for every kind:
// each of its typed words (as typed, in capitals, full width), an empty
// line for the kind's Enter answer, and a line of text for its free one;
// and its prompt names every answer.
func TestTheCommandLineTakesEveryAnswerOfTheList(t *testing.T) {
	for _, k := range engine.RequestKinds() {
		offered := map[engine.Answer]bool{}
		for _, a := range engine.Answers(k) {
			for _, w := range a.Typed {
				for _, typed := range []string{w, strings.ToUpper(w), width.Widen.String(w), " " + w + "!"} {
					if got, _ := readAnswer(k, typed); got != a.Answer {
						t.Errorf("%s: %q is read as %s, want %s", k, typed, got, a.Answer)
					}
				}
				offered[a.Answer] = true
			}
			if got, _ := readAnswer(k, ""); a.Empty && got != a.Answer {
				t.Errorf("%s: an empty line is %s, want %s", k, got, a.Answer)
			}
			offered[a.Answer] = offered[a.Answer] || a.Empty
			if !strings.Contains(prompt(k), strings.ReplaceAll(string(a.Answer), "_", " ")) {
				t.Errorf("%s: the prompt %q does not offer %s", k, prompt(k), a.Answer)
			}
		}
		free := engine.FreeText(k)
		if got, text := readAnswer(k, "  the blue one  "); got != free || text != "the blue one" {
			t.Errorf("%s: a line of text is %s %q, want %s", k, got, text, free)
		}
		offered[free] = true
		for _, a := range engine.Answers(k) {
			if !offered[a.Answer] {
				t.Errorf("%s: the command line has no way to give %s", k, a.Answer)
			}
		}
	}
}

// From the terminal, at a budget's question: "t" takes over (the list's
// take_over), Enter then hands back, Enter at the next question stops;
// the record says each came from the command line.
func TestTheTerminalTakesOverHandsBackAndStopsFromTheList(t *testing.T) {
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	if err := phone.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	plus := centre(t, phone, "+1")
	srv := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply { return toolReply("Tap +1.", "tap", plus) })
	data := t.TempDir()
	t.Setenv("TANDEM_CONFIG_DIR", t.TempDir())
	t.Setenv("TANDEM_DATA_DIR", data)
	code, out, errOut := runCLI([]string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial,
		"--goal", "Count for ever", "--max-steps", "1", "--base-url", srv.URL}, "t\n\n\n")
	if code == ExitOK || !strings.Contains(errOut, "go on? [c = continue") || !strings.Contains(errOut, "do it on the device, then [") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	entries, _, err := engine.ReadRecord(filepath.Join(data, "runs", newestRun(t, data)))
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]string{}
	for _, e := range entries {
		if e.Kind == engine.EntryPerson && e.Command != "" {
			by[e.Command] = e.Via
		} else if e.By != "" && by[e.By] == "" {
			by[e.By] = e.Via
		}
	}
	const terminal = "the person, at the command line"
	for _, c := range []string{"take_over", "hand_back", "stop"} {
		if by[c] != terminal {
			t.Errorf("%s was given by %q, want %q (record: %v)", c, by[c], terminal, by)
		}
	}
}
