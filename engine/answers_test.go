package engine

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// answersTypeScript is the list of answers as the page reads it
// (frontend/src/lib/gen/answers.ts).
func answersTypeScript(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("// Generated from engine.Answers (engine/answers.go) by TestAnswersTypeScriptGolden; do not edit.\n")
	b.WriteString("// What each kind of request takes; the request dialog offers exactly these.\n\n")
	b.WriteString("export type Answer = " + quoted(answerCodes()) + "\n\n")
	b.WriteString("export interface AnswerSpec {\n  answer: Answer\n  text: 'none' | 'optional' | 'required'\n  en: string\n  zh: string\n  typed?: readonly string[]\n  empty?: boolean\n}\n\n")
	b.WriteString("export const answers = {\n")
	for _, k := range RequestKinds() {
		raw, err := json.Marshal(Answers(k))
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("  " + string(k) + ": " + string(raw) + ",\n")
	}
	b.WriteString("} as const satisfies Record<string, readonly AnswerSpec[]>\n")
	return b.String()
}

// answerCodes is every answer some kind takes, in the table's order.
func answerCodes() []string {
	var out []string
	for _, k := range RequestKinds() {
		for _, a := range Answers(k) {
			if !slices.Contains(out, string(a.Answer)) {
				out = append(out, string(a.Answer))
			}
		}
	}
	return out
}

func quoted(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = "'" + s + "'"
	}
	return strings.Join(q, " | ")
}

func TestAnswersTypeScriptGolden(t *testing.T) {
	generatedTS(t, "answers.ts", answersTypeScript(t), "engine.Answers")
}

// The table holds together: every kind can be stopped, has one free text
// answer at most and one answer an empty line means; no typed word means
// two answers of a kind; every answer has words in both languages.
func TestEveryRequestKindHasItsAnswers(t *testing.T) {
	for _, k := range RequestKinds() {
		as := Answers(k)
		texts, empties, stops := 0, 0, 0
		typed := map[string]Answer{}
		for _, a := range as {
			if a.En == "" || a.Zh == "" {
				t.Errorf("%s/%s has no words", k, a.Answer)
			}
			if a.Text != TextNone {
				texts++
			}
			if a.Empty {
				empties++
			}
			if a.Answer == AnswerStop {
				stops++
			}
			for _, w := range a.Typed {
				if prev, ok := typed[w]; ok {
					t.Errorf("%s: %q means both %s and %s", k, w, prev, a.Answer)
				}
				typed[w] = a.Answer
			}
		}
		if texts > 1 || empties != 1 || stops != 1 {
			t.Errorf("%s: %d free text answers, %d for an empty line, %d stops", k, texts, empties, stops)
		}
	}
}
