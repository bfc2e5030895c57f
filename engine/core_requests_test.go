package engine

import (
	"errors"
	"testing"

	"tandem/engine/action"
)

// What the person may answer to each request the run waits on: a
// confirmation takes confirm or deny, a question an answer, the others an
// answer or resume. Anything else is refused with an IllegalError and
// changes nothing (no effect, the same state). The random runs send every
// command at any moment but do not know what each request accepts; this
// does (make mutants: with confirm's guard deleted, a Confirm on a model
// error planned again from WaitingForUser).
func TestCoreRequestsTakeTheirAnswers(t *testing.T) {
	takes := map[RequestKind][]Trigger{
		AskConfirm:    {OnConfirm, OnDeny},
		AskQuestion:   {OnAnswer},
		AskLoop:       {OnAnswer, OnResume},
		AskBudget:     {OnAnswer, OnResume},
		AskModelError: {OnAnswer, OnResume},
		AskDevice:     {OnAnswer, OnResume},
	}
	for kind, ok := range takes {
		for _, on := range []Trigger{OnConfirm, OnDeny, OnAnswer, OnResume} {
			l := newCore(coreEnvForTest(), "buy the cheapest one")
			l.state, l.started = WaitingForUser, l.clock.Now()
			l.request = &Request{Kind: kind, Message: "?"}
			if kind == AskConfirm {
				l.current = &action.Action{Type: action.Tap, X: 300, Y: 150}
			}
			l.on = on
			err := l.turn(message{on: on, reply: make(chan error, 1), text: "hint"})
			fx := l.take()
			accepted := false
			for _, t := range ok {
				accepted = accepted || t == on
			}
			switch {
			case accepted && err != nil:
				t.Errorf("%s refused while waiting for %s: %v", on, kind, err)
			case !accepted && !errors.As(err, new(*IllegalError)):
				t.Errorf("%s accepted while waiting for %s (err %v, now %s)", on, kind, err, l.state)
			case !accepted && (len(fx) > 0 || l.state != WaitingForUser):
				t.Errorf("the refused %s changed the run waiting for %s: now %s, effects %s", on, kind, l.state, describeFx(fx))
			}
		}
	}
}
