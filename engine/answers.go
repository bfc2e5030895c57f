package engine

// The one list of answers: for each kind of request a run waits on the
// person for (WaitingForUser), the answers it takes, with their words in
// English and Chinese and the whole words the command line takes for each.
// The command line's prompt (cli/run.go), the MCP elicitation form
// (mcpserver/ask.go) and the window's request dialog (RequestDialog.svelte,
// through the generated frontend/src/lib/gen/answers.ts) all read it, so
// no door offers an answer another does not know, or lacks one.

// Answer is one way to answer a request.
type Answer string

// The answers.
const (
	// AnswerStop stops the run.
	AnswerStop Answer = "stop"
	// AnswerDeny refuses the sensitive action, with an optional reason
	// told to the model (Run.Deny).
	AnswerDeny Answer = "deny"
	// AnswerAllow lets the sensitive action go ahead (Run.Confirm).
	AnswerAllow Answer = "allow"
	// AnswerReply answers the model's question with text (Run.Answer).
	AnswerReply Answer = "answer"
	// AnswerHandBack gives control back after the person did it, with an
	// optional note (Run.HandBack).
	AnswerHandBack Answer = "hand_back"
	// AnswerTakeOver: the person does it themselves (Run.TakeOver); then a
	// hand back.
	AnswerTakeOver Answer = "take_over"
	// AnswerHint goes on with the person's guidance (Run.Answer).
	AnswerHint Answer = "hint"
	// AnswerGoOn goes on as it was (Run.Resume).
	AnswerGoOn Answer = "continue"
)

// TextNeed says what text an answer carries.
type TextNeed string

// What text an answer carries.
const (
	TextNone     TextNeed = "none"
	TextOptional TextNeed = "optional"
	TextRequired TextNeed = "required"
)

// AnswerSpec is one answer a kind of request takes.
type AnswerSpec struct {
	Answer Answer   `json:"answer"`
	Text   TextNeed `json:"text"`
	En     string   `json:"en"` // its words, in English
	Zh     string   `json:"zh"` // and in Chinese
	// Typed are the whole words the command line takes for it, folded
	// (lower case, half width); a line that is none of them is the
	// kind's free text (FreeText).
	Typed []string `json:"typed,omitempty"`
	// Empty: an empty line at the command line means this answer.
	Empty bool `json:"empty,omitempty"`
}

// yes and no are the whole answers people type for yes and for no, in
// English and Chinese.
func yes() []string {
	return []string{"y", "yes", "yeah", "yep", "ok", "okay", "sure", "allow", "confirm",
		"是", "是的", "好", "好的", "确认", "确定", "可以", "同意", "允许", "行", "对"}
}

func no() []string {
	return []string{"n", "no", "nope", "nah", "deny", "cancel", "don't", "dont",
		"不", "否", "不要", "不行", "不可以", "不同意", "不允许", "拒绝", "取消", "别", "不用", "算了"}
}

// Answers lists the answers a kind of request takes, in the order the
// window shows them (the one that ends things first, the usual one last).
func Answers(k RequestKind) []AnswerSpec {
	stop := AnswerSpec{Answer: AnswerStop, Text: TextNone, En: "Stop the task", Zh: "停止任务", Empty: true}
	switch k {
	case AskConfirm:
		stop.Typed = []string{"stop", "停止"}
		return []AnswerSpec{stop,
			{Answer: AnswerDeny, Text: TextOptional, En: "Deny", Zh: "拒绝", Typed: no()},
			{Answer: AnswerAllow, Text: TextNone, En: "Allow", Zh: "允许", Typed: yes()}}
	case AskQuestion:
		return []AnswerSpec{stop,
			{Answer: AnswerReply, Text: TextRequired, En: "Answer", Zh: "回答"}}
	case AskTakeOver:
		stop.Typed, stop.Empty = []string{"stop", "停止"}, false
		return []AnswerSpec{stop,
			{Answer: AnswerHandBack, Text: TextOptional, En: "Hand back", Zh: "交还控制", Empty: true}}
	case AskLoop, AskBudget, AskModelError, AskDevice:
		return []AnswerSpec{stop,
			{Answer: AnswerTakeOver, Text: TextNone, En: "I’ll do it", Zh: "我来操作", Typed: []string{"t", "take over", "接管"}},
			{Answer: AnswerHint, Text: TextRequired, En: "Give a hint and continue", Zh: "给个提示并继续"},
			{Answer: AnswerGoOn, Text: TextNone, En: "Keep going", Zh: "继续", Typed: []string{"c", "continue", "继续"}}}
	}
	return []AnswerSpec{stop}
}

// FreeText is the answer a line of text means when it is none of the
// typed words (a refusal's reason, the answer, a note, a hint); "" when
// the kind takes no text.
func FreeText(k RequestKind) Answer {
	for _, a := range Answers(k) {
		if a.Text != TextNone {
			return a.Answer
		}
	}
	return ""
}

// RequestKinds lists every kind of request.
func RequestKinds() []RequestKind {
	return []RequestKind{AskConfirm, AskQuestion, AskTakeOver, AskLoop, AskBudget, AskModelError, AskDevice}
}
