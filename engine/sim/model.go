package sim

import (
	"context"
	"errors"
	"strings"

	"tandem/engine/action"
	"tandem/engine/model"
)

// scripted is the simulated model: each call draws a random reply from the
// seed, valid (one to four actions, sensitive ones at any position, finish,
// fail, a question, a take-over request) or not (garbage, an error). A
// slow answer is the scheduler running the call's result late, after a
// pause or stop has cut it. It checks what the engine tells it: step
// numbers unique in the history, a secure screen said in words.
type scripted struct {
	chk   *checker
	rng   *tape
	calls int
}

func newModel(t *tape, chk *checker) *scripted {
	return &scripted{chk: chk, rng: t}
}

func (m *scripted) Plan(ctx context.Context, in model.Input, onThought func(string)) (model.Plan, error) {
	seq := m.chk.hbSeq.Load()
	m.calls++
	reply := m.draw()
	m.checkInput(in)
	if err := ctx.Err(); err != nil {
		// A call cancelled before it began still carries what it was told
		// then; only a live call is the one after a hand back.
		return model.Plan{}, err
	}
	m.chk.modelCall(in, seq)
	return reply()
}

func (m *scripted) checkInput(in model.Input) {
	seen := map[int]bool{}
	for _, s := range in.History {
		m.chk.check(!seen[s.N], "step numbers: step %d appears twice in the history the model is told", s.N)
		seen[s.N] = true
	}
	if in.Observation.Secure || in.Observation.Screenshot == nil || in.Observation.Screenshot.Bounds().Dx() < 16 {
		told := false
		for _, n := range in.Notes {
			if strings.Contains(strings.ToLower(n), "secure") {
				told = true
			}
		}
		m.chk.check(told, "secure screen: the model got no picture and no sentence saying the screen is secure")
	}
}

// draw picks the next reply.
func (m *scripted) draw() func() (model.Plan, error) {
	r := m.rng
	// 99 - k: the plainest choice (0, as a shrunk tape ends) is a plan of
	// device actions.
	switch k := 99 - r.IntN(100); {
	case k < 4:
		return func() (model.Plan, error) {
			return model.Plan{}, &model.ParseError{Reason: "no action found", Raw: "¿"}
		}
	case k < 7:
		return func() (model.Plan, error) { return model.Plan{}, errors.New("sim: 500 internal server error") }
	case k < 10:
		return one(action.Action{Type: action.Finish, Summary: "done"})
	case k < 12:
		return one(action.Action{Type: action.Fail, Reason: "cannot"})
	case k < 15:
		return one(action.Action{Type: action.AskUser, Question: "which account?"})
	case k < 18:
		return one(action.Action{Type: action.TakeOver, Reason: "a captcha"})
	}
	n := 1 + r.IntN(4)
	acts := make([]action.Action, 0, n)
	for range n {
		acts = append(acts, m.step())
	}
	if r.IntN(6) == 5 {
		acts = append(acts, action.Action{Type: action.Finish, Summary: "done"})
	}
	return func() (model.Plan, error) { return model.Plan{Thought: "sim", Actions: acts, Raw: "sim"}, nil }
}

// step draws one device action; the Pay button and the bank app are as
// likely anywhere in a plan as at its head.
func (m *scripted) step() action.Action {
	r := m.rng
	switch r.IntN(9) {
	case 0, 1:
		x, y := inThird(r, 0)
		return action.Action{Type: action.Tap, X: x, Y: y} // +1
	case 2:
		x, y := inThird(r, 2)
		return action.Action{Type: action.Tap, X: x, Y: y} // Pay now
	case 3:
		x, y := inThird(r, 1)
		return action.Action{Type: action.Tap, X: x, Y: y} // nothing
	case 4:
		return action.Action{Type: action.Launch, App: bankApp}
	case 5:
		return action.Action{Type: action.Key, Key: "home"}
	case 6:
		return action.Action{Type: action.TypeText, Text: "hello"}
	case 7:
		return action.Action{Type: action.Swipe, X: screenW / 2, Y: screenH * 3 / 4, X2: screenW / 2, Y2: screenH / 5}
	}
	return action.Action{Type: action.Tap, X: screenW / 4, Y: screenH / 8, Sensitive: "the model thinks so"}
}

func one(a action.Action) func() (model.Plan, error) {
	return func() (model.Plan, error) {
		return model.Plan{Thought: "sim", Actions: []action.Action{a}, Raw: "sim"}, nil
	}
}
