package sim

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"

	"tandem/engine/action"
	"tandem/engine/model"
)

// scripted is the simulated model: each call draws a random reply from the
// seed, valid (one to four actions, sensitive ones at any position, finish,
// fail, a question, a take-over request) or not (garbage, an error, a slow
// answer a pause or stop must cut). It checks what the engine tells it:
// step numbers unique in the history, a secure screen said in words.
type scripted struct {
	chk *checker

	mu    sync.Mutex
	rng   *rand.Rand
	calls int
}

func newModel(seed uint64, chk *checker) *scripted {
	return &scripted{chk: chk, rng: rand.New(rand.NewPCG(seed, 0x30de1))}
}

func (m *scripted) Plan(ctx context.Context, in model.Input, onThought func(string)) (model.Plan, error) {
	seq := m.chk.hbSeq.Load()
	m.mu.Lock()
	m.calls++
	reply := m.draw()
	slow := m.rng.IntN(10) == 0
	m.mu.Unlock()
	m.checkInput(in)
	if ctx.Err() == nil {
		// A worker cancelled before the person took over may still reach
		// the model with what it was told then; only a live call is the
		// one after the hand back.
		m.chk.modelCall(in, seq)
	}
	if slow {
		for i := 0; i < 50 && ctx.Err() == nil; i++ {
			runtime.Gosched()
		}
	}
	if err := ctx.Err(); err != nil {
		return model.Plan{}, err
	}
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
	switch k := r.IntN(100); {
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
	if r.IntN(6) == 0 {
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
