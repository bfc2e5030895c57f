package cli

import (
	"strings"
	"testing"

	"tandem/engine"
	"tandem/engine/action"
)

// Every line tandem run prints of a run is capped (issue 49 item 17: a
// 3 MB reply printed a 3.1 MB line): whatever text an event carries, from
// the model, the device or the person, no line passes maxLine characters
// and a short note.
func TestEveryProgressLineIsCapped(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	no := false
	for _, e := range []engine.Event{
		{Kind: engine.KindState, State: &engine.StateEvent{State: engine.WaitingForUser, Reason: big}},
		{Kind: engine.KindPlan, Plan: &engine.PlanEvent{Thought: big}},
		{Kind: engine.KindStep, Step: &engine.StepEvent{N: 1, Action: action.Action{Type: action.TypeText, Text: big}, Result: big, Target: big}},
		{Kind: engine.KindRequest, Request: &engine.Request{Kind: engine.AskQuestion, Message: big}},
		{Kind: engine.KindRequest, Request: &engine.Request{Kind: engine.AskConfirm, Message: big, Label: big}},
		{Kind: engine.KindDone, Done: &engine.Result{State: engine.Done, Success: true, Summary: big, Pending: []string{big}}},
		{Kind: engine.KindDone, Done: &engine.Result{State: engine.Failed, Success: no, Reason: big}},
	} {
		var out syncBuffer
		p := &progress{env: Env{Stdout: &out}}
		p.print(e)
		for _, line := range strings.Split(out.String(), "\n") {
			if n := len([]rune(line)); n > 3*maxLine {
				t.Errorf("%s: a line of %d characters", e.Kind, n)
			}
		}
	}
}
