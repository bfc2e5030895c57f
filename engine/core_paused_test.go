package engine

import (
	"image"
	"testing"

	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/engine/model"
)

// Paused's substate is one field, set on entry and cleared on every exit,
// so what the device coming back does depends only on why the run is
// paused now. The person's pause held for a lost device once outlived it:
// kept as a flag through a take over and a hand back, it held the run
// paused when the device was lost again, later, with no pause of the
// person's ("still paused as you asked").
func TestCoreHeldPauseEndsWithItsLostDevice(t *testing.T) {
	l := newCore(coreEnvForTest(), "add one")
	send := func(m message) {
		t.Helper()
		l.on = m.on
		if m.on.IsCommand() {
			m.reply = make(chan error, 1)
		}
		if err := l.turn(m); err != nil {
			t.Fatalf("%s in %s: %v", m.on, l.state, err)
		}
		l.take()
	}
	frame := image.NewGray(image.Rect(0, 0, 16, 32))
	planned := func() message {
		p := &planResult{info: &device.Info{Screen: coreScreen}, frame: frame, print: FingerprintOf(frame),
			tree: coreTree, app: otherPkg, obs: model.Observation{Screen: coreScreen}}
		p.plan.Actions = []action.Action{{Type: action.Tap, X: 300, Y: 150}}
		return message{on: OnPlanned, gen: l.gen, planned: p}
	}
	steps := []struct {
		m    func() message
		want State
	}{
		{func() message { return message{on: OnStart} }, Planning},
		{planned, Executing},
		{func() message { return message{on: OnPause} }, Executing},
		// the device goes away under the action: paused, held by the person
		{func() message { return message{on: OnActionDone, gen: l.gen, acted: &actResult{err: device.ErrGone}} }, Paused},
		{func() message { return message{on: OnTakeOver} }, Manual},
		{func() message { return message{on: OnHandBack, text: "done"} }, Planning},
		// lost again, no pause of the person's this time
		{func() message { return message{on: OnDeviceLost, gen: l.gen, err: device.ErrGone} }, Paused},
		{func() message { return message{on: OnDeviceBack, gen: l.gen} }, Planning},
	}
	for i, s := range steps {
		m := s.m()
		send(m)
		if l.state != s.want {
			t.Fatalf("step %d, %s: in %s, want %s", i, m.on, l.state, s.want)
		}
	}
}

// The model hands the device to the person; a budget used up by then is
// asked about when they hand back, and the hand-over is not an action
// left to run (after: a call that would come next is not the current
// action's).
func TestCoreBudgetAfterAHandBackQueuesNothing(t *testing.T) {
	env := coreEnvForTest()
	env.settings.Budget = Budget{Tokens: 100}
	l := newCore(env, "add one")
	frame := image.NewGray(image.Rect(0, 0, 16, 32))
	p := &planResult{info: &device.Info{Screen: coreScreen}, frame: frame, print: FingerprintOf(frame),
		tree: coreTree, app: otherPkg, obs: model.Observation{Screen: coreScreen}}
	p.plan.Actions = []action.Action{{Type: action.TakeOver, Reason: "log in"}}
	p.plan.Usage = model.Usage{PromptTokens: 500}
	for _, m := range []message{{on: OnStart}, {on: OnPlanned, planned: p}, {on: OnHandBack, text: "logged in"}} {
		if m.on == OnPlanned {
			m.gen = l.gen
		}
		l.on = m.on
		if err := l.turn(m); err != nil {
			t.Fatalf("%s in %s: %v", m.on, l.state, err)
		}
		l.take()
	}
	if l.state != WaitingForUser || l.request == nil || l.request.Kind != AskBudget || len(l.queue) > 0 {
		t.Fatalf("in %s, request %+v, queue %v", l.state, l.request, l.queue)
	}
}
