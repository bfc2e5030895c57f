package cli

import (
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/width"

	"tandem/engine"
)

// readAnswer is what the person meant by a line typed at a request of kind
// k, read from the one list of answers (engine.Answers): a whole word one
// answer takes, in either language, in any case and width ("ＹＥＳ", "Ok",
// "好的！"); an empty line the kind's answer for Enter; anything else the
// kind's free text (a refusal's reason, the answer, a note, a hint), with
// the line. Only a plain yes allows: "yes but use the other card" refuses,
// with that reason, as a careful payer means.
func readAnswer(k engine.RequestKind, line string) (engine.Answer, string) {
	text := strings.TrimSpace(line)
	folded := fold(text)
	for _, a := range engine.Answers(k) {
		switch {
		case text == "" && a.Empty:
			return a.Answer, ""
		case folded != "" && slices.Contains(a.Typed, folded):
			return a.Answer, ""
		}
	}
	return engine.FreeText(k), text
}

// fold is a line as the typed words are written: lower case, half width,
// no spaces or punctuation around it.
func fold(line string) string {
	t := strings.ToLower(width.Fold.String(line))
	return strings.TrimFunc(t, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) })
}

// prompt is what the terminal asks at a request of kind k: its question,
// then each answer and how to give it.
func prompt(k engine.RequestKind) string {
	lead := map[engine.RequestKind]string{engine.AskConfirm: "allow?", engine.AskQuestion: "your answer",
		engine.AskTakeOver: "do it on the device, then"}[k]
	if lead == "" {
		lead = "go on?"
	}
	free := engine.FreeText(k)
	line := map[engine.Answer]string{engine.AnswerDeny: "a reason", engine.AnswerHandBack: "a note", engine.AnswerHint: "a hint"}[free]
	if line == "" {
		line = "a line"
	}
	var ways []string
	as := engine.Answers(k)
	for i := range as { // the usual answer first
		a := as[len(as)-1-i]
		var how []string
		if len(a.Typed) > 0 {
			how = append(how, a.Typed[0])
		}
		if a.Answer == free {
			how = append(how, line)
		}
		if a.Empty {
			how = append([]string{"Enter"}, how...)
		}
		if len(how) > 0 {
			ways = append(ways, strings.Join(how, " or ")+" = "+strings.ReplaceAll(string(a.Answer), "_", " "))
		}
	}
	return lead + " [" + strings.Join(ways, ", ") + "] "
}
