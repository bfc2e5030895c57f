package cli

import "testing"

// What a person types at "allow?": the words for yes and no in English and
// Chinese, in any case, full-width letters too; anything else is a reason
// to refuse, never a yes.
func TestConfirmAnswer(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want answer
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
		if got := confirmAnswer(tc.in); got != tc.want {
			t.Errorf("confirmAnswer(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
