package cli

import (
	"strings"
	"unicode"

	"golang.org/x/text/width"
)

// answer is what the person meant at "allow?".
type answer int

const (
	answerReason answer = iota // refuse, and tell the model why (the text)
	answerYes                  // allow
	answerNo                   // refuse, with no reason given
)

// yesWords and noWords are the whole answers people type for yes and for
// no, in English and Chinese, folded as confirmAnswer folds the line.
var (
	yesWords = words("y", "yes", "yeah", "yep", "ok", "okay", "sure", "allow", "confirm",
		"是", "是的", "好", "好的", "确认", "确定", "可以", "同意", "允许", "行", "对")
	noWords = words("n", "no", "nope", "nah", "deny", "cancel", "don't", "dont",
		"不", "否", "不要", "不行", "不可以", "不同意", "不允许", "拒绝", "取消", "别", "不用", "算了")
)

func words(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// confirmAnswer reads a line typed at "allow?": a whole word for yes or no
// in either language, in any case and width ("ＹＥＳ", "Ok", "好的！");
// anything else is a reason to refuse. Only a plain yes allows: "yes but
// use the other card" refuses, with that reason, as a careful payer means.
func confirmAnswer(line string) answer {
	t := strings.ToLower(width.Fold.String(line))
	t = strings.TrimFunc(t, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) })
	switch {
	case yesWords[t]:
		return answerYes
	case noWords[t]:
		return answerNo
	}
	return answerReason
}
