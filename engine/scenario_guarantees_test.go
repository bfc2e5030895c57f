package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"tandem/engine/action"
	"tandem/internal/modeltest"
	"tandem/vphone"
)

// The person's guarantees (issue 19) on the virtual phone through the real
// adb server, with the real model client: each pins a defect that the
// simulation (engine/sim) found first and a fixture test in
// guarantees_test.go pins on a fake device.

// slowStability leaves the person time to act between one step and the
// next, however busy the machine: at least three frames 200 ms apart.
var slowStability = StabilityConfig{Interval: 200 * time.Millisecond, StableFrames: 3, Max: 5 * time.Second}

// onFirstExecuting returns an emitter that records events in ev and runs do
// in a goroutine when the run first announces Executing: the person acts as
// the first step starts.
func onFirstExecuting(ev *events, do func()) Emitter {
	fired := false
	return EmitterFunc(func(e Event) {
		ev.Emit(e)
		if e.Kind == KindState && e.State.State == Executing && !fired {
			fired = true
			go do()
		}
	})
}

// taps counts the taps that reached the phone.
func taps(p *vphone.Phone) int {
	n := 0
	for _, e := range p.Events() {
		if e.Kind == "tap" {
			n++
		}
	}
	return n
}

// A Pay tap queued behind a harmless one waits for the person: the queued
// action is checked against the settled screen's labels (sim seed 23: the
// tree was dropped after the stability wait and Pay went through).
func TestScenarioQueuedPayAsks(t *testing.T) {
	t.Parallel()
	g := newRig(t)
	g.launch(vphone.PkgShop)
	srv := modeltest.New(t,
		tools("Look at the item, then pay.", call("tap", g.at("item_name")), call("tap", g.at("pay_button"))),
		tools("", finishCall("Paid.")))
	s := g.start(srv, "Buy the earbuds", Settings{UITree: true, Policy: DefaultPolicy()}, plannerOpts{})
	s.ev.waitState(t, WaitingForUser)
	req := s.run.Snapshot().Request
	if req == nil || req.Kind != AskConfirm || req.Why == nil || req.Why.By != "word" || req.Why.Detail != "pay" {
		t.Fatalf("request %+v", req)
	}
	if g.phone.State().Paid || taps(g.phone) != 1 {
		t.Fatalf("paid %v after %d taps, before the person confirmed", g.phone.State().Paid, taps(g.phone))
	}
	if err := s.run.Confirm(context.Background()); err != nil {
		t.Fatal(err)
	}
	if res := s.wait(); res.State != Done || !g.phone.State().Paid {
		t.Fatalf("result %+v paid %v", res, g.phone.State().Paid)
	}
}

// A screen whose labels cannot be read (uiautomator fails on every try)
// is never taken for a harmless one: the tap waits for the person, saying
// why.
func TestScenarioUnreadScreenAsks(t *testing.T) {
	t.Parallel()
	g := newRig(t)
	g.launch(vphone.PkgShop)
	g.phone.SetIdleError(true)
	srv := modeltest.New(t, tools("Pay.", call("tap", g.at("pay_button"))))
	s := g.start(srv, "Buy the earbuds", Settings{UITree: true, Policy: DefaultPolicy()}, plannerOpts{})
	s.ev.waitState(t, WaitingForUser)
	req := s.run.Snapshot().Request
	if req == nil || req.Kind != AskConfirm || req.Why == nil || req.Why.By != "unread" {
		t.Fatalf("request %+v", req)
	}
	// It says which reading failed and the phone's words for why.
	if c := req.Cause; c == nil || c.Code != CauseLabelsUnread || !strings.Contains(c.Detail, "idle state") {
		t.Fatalf("the request's cause %+v", c)
	}
	if g.phone.State().Paid || taps(g.phone) != 0 {
		t.Fatal("the tap reached the phone unconfirmed")
	}
}

// An app on the person's list asks before every action inside that app, by
// the name the person knows it by, not only when it is launched (issue 19:
// the rule compared against the device's name).
func TestScenarioAppRuleInsideTheApp(t *testing.T) {
	t.Parallel()
	g := newRig(t)
	g.launch(vphone.PkgShop)
	srv := modeltest.New(t, tools("Look at the item.", call("tap", g.at("item_name"))))
	s := g.start(srv, "Look at the earbuds", Settings{Policy: Policy{Apps: []string{"shop"}}}, plannerOpts{})
	s.ev.waitState(t, WaitingForUser)
	req := s.run.Snapshot().Request
	if req == nil || req.Kind != AskConfirm || req.Why == nil || req.Why.By != "app" {
		t.Fatalf("request %+v", req)
	}
	if taps(g.phone) != 0 {
		t.Fatal("the tap inside the listed app reached the phone unconfirmed")
	}
}

// A secure screen (FLAG_SECURE: screencap shows nothing) is said to the
// model in words, and no blank picture is sent as if it were the screen
// (sim seed 41).
func TestScenarioSecureScreenToldToModel(t *testing.T) {
	t.Parallel()
	g := newRig(t)
	g.launch(vphone.PkgCounter)
	g.phone.SetSecure(true)
	srv := modeltest.New(t, tools("", finishCall("The screen is secure; stopping.")))
	s := g.start(srv, "Count to three", Settings{}, plannerOpts{})
	if res := s.wait(); res.State != Done {
		t.Fatalf("result %+v", res)
	}
	req := s.request(1)
	if n := len(req.Images()); n != 0 {
		t.Fatalf("%d pictures sent of a secure screen", n)
	}
	mustContain(t, "the prompt of a secure screen", req.Text(), "secure")
}

// Steps the person edits while paused are what runs next, with the goal
// edited at the same time: removed steps never run, the edited one does,
// and no model call stands in between (sim seeds 13, 419).
func TestScenarioPauseEditsRunNext(t *testing.T) {
	t.Parallel()
	g := newRig(t)
	g.launch(vphone.PkgCounter)
	plus := g.at("+1")
	srv := modeltest.New(t,
		tools("Three times +1.", call("tap", plus), call("tap", plus), call("tap", plus)),
		tools("", finishCall("Done.")))
	ev := newEvents()
	ctx := context.Background()
	var s *scenario
	started := make(chan struct{}) // s is set
	paused := make(chan error, 1)
	s = g.startWith(srv, "Count to three", Settings{Stability: slowStability}, plannerOpts{}, ev,
		onFirstExecuting(ev, func() { <-started; paused <- s.run.Pause(ctx) }))
	close(started)
	if err := <-paused; err != nil {
		t.Fatal(err)
	}
	s.ev.waitState(t, Paused)
	c0 := g.phone.State().Counter
	if c0 == 3 {
		t.Fatal("the pause came after every step had run")
	}
	minus := g.center("-1")
	if err := s.run.EditPending(ctx, []action.Action{{Type: action.Tap, X: minus.X, Y: minus.Y}}); err != nil {
		t.Fatal(err)
	}
	if err := s.run.EditGoal(ctx, "Count, then take one away"); err != nil {
		t.Fatal(err)
	}
	if err := s.run.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	res := s.wait()
	if got := g.phone.State().Counter; res.State != Done || got != c0-1 {
		t.Fatalf("result %+v counter %d, want %d (paused at %d, then the edited -1)", res, got, c0-1, c0)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d model requests, want 2 (the edited step ran without one)", n)
	}
	mustContain(t, "the prompt after the edits", s.request(2).Text(), "Count, then take one away")
}

// "Stop after this step" stops after the step under way, not one later
// (issue 19).
func TestScenarioStopAfterThisStep(t *testing.T) {
	t.Parallel()
	g := newRig(t)
	g.launch(vphone.PkgCounter)
	plus := g.at("+1")
	srv := modeltest.New(t, tools("Three times +1.", call("tap", plus), call("tap", plus), call("tap", plus)))
	ev := newEvents()
	var s *scenario
	started := make(chan struct{}) // s is set
	asked := make(chan error, 1)
	s = g.startWith(srv, "Count to three", Settings{Stability: slowStability}, plannerOpts{}, ev,
		onFirstExecuting(ev, func() { <-started; asked <- s.run.StopGracefully(context.Background(), 1) }))
	close(started)
	if err := <-asked; err != nil {
		t.Fatal(err)
	}
	res := s.wait()
	if got := g.phone.State().Counter; res.State != Stopped || got != 1 || res.Steps != 1 {
		t.Fatalf("result %+v counter %d, want stopped after the first step", res, got)
	}
}

// Counting up in small digits is not a loop: a tap that changes a few
// pixels of the screen has changed it (issue 19: the second and third +1
// changed no fingerprint cell by more than 8/255, so the run was nudged,
// then stopped to ask the person).
func TestScenarioSmallDigitsAreNotALoop(t *testing.T) {
	t.Parallel()
	g := newRig(t, vphone.WithCounterText(40))
	g.launch(vphone.PkgCounter)
	plus := g.at("+1")
	var replies []modeltest.Reply
	for range 4 {
		replies = append(replies, tools("+1", call("tap", plus)))
	}
	srv := modeltest.New(t, append(replies, tools("", finishCall("Four.")))...)
	s := g.start(srv, "Count to four, one tap per look", Settings{}, plannerOpts{})
	res := s.wait()
	if got := g.phone.State().Counter; res.State != Done || got != 4 {
		t.Fatalf("result %+v counter %d, requests for the person %+v", res, got, s.ev.kinds(KindRequest))
	}
	for i, r := range srv.Requests() {
		if txt := r.Text(); strings.Contains(txt, "round in circles") || strings.Contains(txt, "did not change") {
			t.Fatalf("request %d called a loop on a screen that changed:\n%s", i+1, txt)
		}
	}
}

// A screen whose app in front cannot be read (the phone refuses `dumpsys
// window`) asks before a tap with the app rule on, and the request says
// which reading failed and why (issue 49 item 16).
func TestScenarioUnreadAppSaysWhy(t *testing.T) {
	t.Parallel()
	g := newRig(t)
	g.launch(vphone.PkgShop)
	g.phone.SetWindowDumpDenied(true)
	srv := modeltest.New(t, tools("Look.", call("tap", g.at("item_name"))))
	s := g.start(srv, "Look at the earbuds", Settings{UITree: true, Policy: Policy{Apps: []string{"bank"}}}, plannerOpts{})
	s.ev.waitState(t, WaitingForUser)
	req := s.run.Snapshot().Request
	if req == nil || req.Kind != AskConfirm || req.Why == nil || req.Why.What != "app" ||
		req.Cause == nil || req.Cause.Code != CauseAppUnread || !strings.Contains(req.Cause.Detail, "Permission Denial") {
		t.Fatalf("request %+v (cause %+v)", req, req.Cause)
	}
	if !strings.Contains(req.Message, "Permission Denial") || taps(g.phone) != 0 {
		t.Fatalf("message %q, %d taps", req.Message, taps(g.phone))
	}
	t.Logf("cause: %s", req.Cause)
}
