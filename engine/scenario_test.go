package engine

import (
	"context"
	"fmt"
	"image"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"tandem/engine/action"
	"tandem/internal/modeltest"
	"tandem/vphone"
)

// Scenarios end to end: the real ADB driver, a real adb server, the
// virtual phone, the real model client and tools dialect, and a real
// chat-completions server replying from a script. Each asserts what the
// phone ends up showing and what the run reported.

// formReplies is the form task's script: one reply queues every field and
// the submit; the second finishes.
func formReplies(g *rig) []modeltest.Reply {
	return []modeltest.Reply{
		tools("Fill in the three fields, then submit.",
			call("tap", g.at("name")), call("type", `{"text":"Ann"}`),
			call("tap", g.at("phone")), call("type", `{"text":"5550100"}`),
			call("tap", g.at("city")), call("type", `{"text":"Paris"}`),
			call("tap", g.at("submit"))),
		tools("", finishCall("The form is sent.")),
	}
}

// TestScenarioFormOnePlan: one reply queues every field of the form; the
// queue runs without further calls, then a second call finishes.
func TestScenarioFormOnePlan(t *testing.T) {
	t.Parallel()
	g := newRig(t)
	g.launch(vphone.PkgForm)
	srv := modeltest.New(t, formReplies(g)...)
	s := g.start(srv, "Fill the form: Ann, 5550100, Paris", Settings{}, plannerOpts{})
	res := s.wait()
	if want := (vphone.FormState{Name: "Ann", Phone: "5550100", City: "Paris", Submitted: true}); g.phone.State().Form != want {
		t.Fatalf("form %+v, want %+v; result %+v; requests %d: %s", g.phone.State().Form, want, res, len(srv.Requests()), srv.Requests()[len(srv.Requests())-1].Text())
	}
	if res.State != Done || !res.Success || res.Calls != 2 || res.Steps != 7 {
		t.Fatalf("result %+v", res)
	}
	if ca := float64(res.Calls) / float64(res.Steps); ca > 0.5 {
		t.Fatalf("calls/action %.2f", ca)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d model requests, want 2", n)
	}
	if !srv.Requests()[0].Chat.Stream {
		t.Fatal("the planner did not stream")
	}
	// The todo list showed the whole plan pending, then worked through it.
	full := false
	for _, e := range s.ev.kinds(KindPlan) {
		if len(e.Plan.Todo) == 7 && e.Plan.Todo[0].Status == TodoCurrent && e.Plan.Todo[6].Status == TodoPending {
			full = true
		}
	}
	if !full {
		t.Fatal("no plan event showed the seven queued actions")
	}
	if st := s.steps(); len(st) != 7 || st[1].Action.Text != "Ann" || st[6].Action.Type != action.Tap {
		t.Fatalf("steps %+v", st)
	}
}

// TestScenarioPayConfirm: tapping "Pay ¥99" waits for the person; a denial
// leaves it unpaid and is told to the model; a confirmation presses it.
func TestScenarioPayConfirm(t *testing.T) {
	t.Parallel()
	g := newRig(t)
	g.launch(vphone.PkgShop)
	pay := g.at("pay_button")
	g.phone.Key(3) // home: the model opens the shop itself
	srv := modeltest.New(t,
		tools("Open the shop.", call("launch", `{"app":"Shop"}`)),
		tools("Pay for the earbuds.", call("tap", pay)),
		tools("The person said no; ask again with the reason.", call("tap", pay)),
		tools("", finishCall("Paid ¥99.")))
	s := g.start(srv, "Buy the earbuds", Settings{UITree: true, Policy: DefaultPolicy()}, plannerOpts{})
	ctx := context.Background()

	s.ev.waitState(t, WaitingForUser)
	req := s.run.Snapshot().Request
	if req == nil || req.Kind != AskConfirm || !strings.Contains(req.Message, `"pay"`) {
		t.Fatalf("request %+v", req)
	}
	if g.phone.State().Paid {
		t.Fatal("paid before the person confirmed")
	}
	if err := s.run.Deny(ctx, "too expensive"); err != nil {
		t.Fatal(err)
	}
	mustContain(t, "the prompt after the denial", s.request(3).Text(), "did NOT allow", "too expensive")
	s.ev.waitStateN(t, WaitingForUser, 2)
	if g.phone.State().Paid {
		t.Fatal("the denied tap reached the phone")
	}
	for _, e := range g.phone.Events() {
		if e.Kind == "tap" || e.Kind == "motion_down" {
			t.Fatalf("a tap reached the phone while waiting: %+v", e)
		}
	}
	if err := s.run.Confirm(ctx); err != nil {
		t.Fatal(err)
	}
	res := s.wait()
	if res.State != Done || !g.phone.State().Paid || res.Steps != 2 {
		t.Fatalf("result %+v paid %v", res, g.phone.State().Paid)
	}
	if n := len(s.ev.kinds(KindRequest)); n != 2 {
		t.Fatalf("%d requests for the person, want 2", n)
	}
}

// TestScenarioCaptchaTakeOver: the model asks for the person at a captcha;
// the person types it through Tandem; on hand back the model is told what
// they did, their note and the region they marked.
func TestScenarioCaptchaTakeOver(t *testing.T) {
	t.Parallel()
	g := newRig(t, vphone.WithCaptcha("K7M2P"))
	g.launch(vphone.PkgLogin)
	srv := modeltest.New(t,
		tools("Enter the user name; the captcha needs the person.",
			call("tap", g.at("username")), call("type", `{"text":"ann"}`),
			call("take_over", `{"reason":"solve the captcha"}`)),
		tools("", finishCall("Logged in as ann.")))
	s := g.start(srv, "Log in as ann", Settings{}, plannerOpts{})
	ctx := context.Background()

	s.ev.waitState(t, Manual)
	if req := s.run.Snapshot().Request; req == nil || req.Kind != AskTakeOver || req.Message != "solve the captcha" {
		t.Fatalf("request %+v", req)
	}
	if st := g.phone.State(); st.Username != "ann" || st.LoggedIn {
		t.Fatalf("phone before the person %+v", st)
	}
	field := g.center("captcha_input")
	if err := s.run.Input(ctx, action.Action{Type: action.Tap, X: field.X, Y: field.Y}); err != nil {
		t.Fatal(err)
	}
	if err := s.run.Input(ctx, action.Action{Type: action.TypeText, Text: g.phone.CaptchaCode(), Submit: true}); err != nil {
		t.Fatal(err)
	}
	if !g.phone.State().LoggedIn {
		t.Fatalf("the person's code did not log in: %+v", g.phone.State())
	}
	region := &Region{X1: 20, Y1: 170, X2: 190, Y2: 240}
	if err := s.run.HandBack(ctx, "typed the code from the picture", region); err != nil {
		t.Fatal(err)
	}
	res := s.wait()
	if res.State != Done || !res.Success {
		t.Fatalf("result %+v", res)
	}
	// What the person did, their note and region reach the model in its
	// own grid (tools rel1000: 0-1000), never in device pixels.
	mustContain(t, "the prompt after hand back", s.request(2).Text(),
		fmt.Sprintf("tap(%d,%d)", field.X*1000/g.w, field.Y*1000/g.h), `type("K7M2P")`, "typed the code from the picture",
		fmt.Sprintf("(%d,%d)-(%d,%d)", 20*1000/g.w, 170*1000/g.h, 190*1000/g.w, 240*1000/g.h))
	// The region is drawn on the screenshot sent after the hand back, in
	// the image as the dialect sized it, and was on none before.
	outlined(t, "the screenshot after hand back", s.request(2), g.w, g.h, image.Rect(region.X1, region.Y1, region.X2, region.Y2), true)
	outlined(t, "the screenshot before", s.request(1), g.w, g.h, image.Rect(region.X1, region.Y1, region.X2, region.Y2), false)
	if m := s.ev.kinds(KindManual); len(m) != 2 || m[0].Manual.Before == "" || m[1].Manual.After == "" {
		t.Fatalf("manual events %+v", m)
	}
	byPerson := 0
	for _, st := range s.steps() {
		if st.ByPerson {
			byPerson++
		}
	}
	if byPerson != 2 {
		t.Fatalf("%d steps by the person, want 2", byPerson)
	}
}

// TestScenarioLoopNudgeEscalate: a tap that changes nothing, repeated, is
// first answered with a nudge in the next prompt, then escalated to the
// person with the reason; the person's hint goes back to the model.
func TestScenarioLoopNudgeEscalate(t *testing.T) {
	t.Parallel()
	g := newRig(t)
	g.launch(vphone.PkgCounter)
	dead := call("tap", `{"x":500,"y":900}`) // empty space below the buttons
	srv := modeltest.New(t,
		tools("Tap the count.", dead),
		tools("Tap the count again.", dead),
		tools("Once more.", dead),
		tools("", call("tap", g.at("+1"))),
		tools("", finishCall("The counter shows 1.")))
	s := g.start(srv, "Make the counter show 1", Settings{}, plannerOpts{})
	s.ev.waitState(t, WaitingForUser)
	mustContain(t, "the prompt after the repeat", s.request(3).Text(), "going round in circles", "did not change")
	if strings.Contains(s.request(2).Text(), "going round in circles") {
		t.Fatal("nudged after a single tap")
	}
	req := s.run.Snapshot().Request
	if req == nil || req.Kind != AskLoop || !strings.Contains(req.Message, "stuck") || !strings.Contains(req.Message, "did not change") {
		t.Fatalf("request %+v", req)
	}
	if st := g.phone.State(); st.Counter != 0 {
		t.Fatalf("counter %d", st.Counter)
	}
	if !slices.ContainsFunc(s.ev.kinds(KindState), func(e Event) bool {
		return e.State.State == WaitingForUser && strings.Contains(e.State.Reason, "did not change")
	}) {
		t.Fatal("no WaitingForUser state event carrying the reason")
	}
	if err := s.run.Answer(context.Background(), "use the +1 button"); err != nil {
		t.Fatal(err)
	}
	res := s.wait()
	mustContain(t, "the prompt after the hint", s.request(4).Text(), "use the +1 button")
	if res.State != Done || g.phone.State().Counter != 1 {
		t.Fatalf("result %+v counter %d", res, g.phone.State().Counter)
	}
}

// TestScenarioMalformedReply: a reply with no usable action gets one
// corrective retry saying what was wrong, and the run recovers.
func TestScenarioMalformedReply(t *testing.T) {
	t.Parallel()
	g := newRig(t)
	g.launch(vphone.PkgCounter)
	srv := modeltest.New(t,
		modeltest.Reply{Content: "I will now press the plus button."},
		tools("", call("tap", g.at("+1"))),
		tools("", finishCall("The counter shows 1.")))
	s := g.start(srv, "Make the counter show 1", Settings{}, plannerOpts{noStream: true})
	res := s.wait()
	if res.State != Done || g.phone.State().Counter != 1 {
		t.Fatalf("result %+v counter %d", res, g.phone.State().Counter)
	}
	if s.srv.Requests()[0].Chat.Stream {
		t.Fatal("streamed although NoStream")
	}
	mustContain(t, "the corrective prompt", s.request(2).Text(), "could not be used", "no tool call")
	if strings.Contains(s.request(3).Text(), "could not be used") {
		t.Fatal("the correction was repeated after a good reply")
	}
	if slices.Contains(s.ev.states(), WaitingForUser) {
		t.Fatalf("escalated: %v", s.ev.states())
	}
}

// TestScenarioRateLimitAndServerError: a 429 with Retry-After and a 500 are
// retried with backoff inside one planning step; the run goes on.
func TestScenarioRateLimitAndServerError(t *testing.T) {
	t.Parallel()
	g := newRig(t)
	g.launch(vphone.PkgCounter)
	srv := newTimedServer(t,
		modeltest.Reply{Status: 429, Message: "slow down", RetryAfter: "1"},
		modeltest.Reply{Status: 500, Message: "overloaded"},
		tools("", call("tap", g.at("+1"))),
		tools("", finishCall("The counter shows 1.")))
	s := g.start(srv.Server, "Make the counter show 1", Settings{}, plannerOpts{noStream: true})
	res := s.wait()
	if res.State != Done || g.phone.State().Counter != 1 || res.Calls != 2 {
		t.Fatalf("result %+v counter %d", res, g.phone.State().Counter)
	}
	at := srv.times()
	if len(at) != 4 {
		t.Fatalf("the server saw %d requests, want 4 (429, 500, reply, finish)", len(at))
	}
	// Retry-After (1 s, capped by MaxBackoff 200 ms) beats the 10 ms backoff.
	if d := at[1].Sub(at[0]); d < 150*time.Millisecond {
		t.Fatalf("retried %v after the 429, before its Retry-After", d)
	}
	if slices.Contains(s.ev.states(), WaitingForUser) {
		t.Fatalf("escalated: %v", s.ev.states())
	}
	// The person saw why the first call took long: each retry, with its status.
	retries := s.ev.kinds(KindRetry)
	if len(retries) != 2 || retries[0].Retry.Status != 429 || retries[0].Retry.Call != 1 || retries[1].Retry.Status != 500 {
		t.Fatalf("retry events %+v", retries)
	}
	ents, _, err := ReadRecord(s.run.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var recorded []string
	for _, e := range ents {
		if e.Kind == recRetry {
			recorded = append(recorded, e.Error)
		}
	}
	if len(recorded) != 2 || !strings.Contains(recorded[0], "slow down") || !strings.Contains(recorded[1], "overloaded") {
		t.Fatalf("recorded retries %q", recorded)
	}
}

// TestScenarioDeviceDropped: the phone drops off the adb server between a
// reply and its action; the run pauses with the reason, resumes by itself
// when the phone is back, and finishes.
func TestScenarioDeviceDropped(t *testing.T) {
	t.Parallel()
	g := newRig(t)
	g.launch(vphone.PkgCounter)
	plus := g.at("+1")
	var s *scenario
	srv := modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		switch r.Attempt {
		case 1:
			g.phone.SetOffline(true) // the cable is pulled while the model thinks
			return tools("", call("tap", plus))
		case 2:
			return tools("", call("tap", plus))
		}
		return tools("", finishCall("The counter shows 1."))
	})
	s = g.start(srv, "Make the counter show 1", Settings{}, plannerOpts{})
	s.ev.waitState(t, Paused)
	if snap := s.run.Snapshot(); !strings.Contains(snap.Reason, "device lost") {
		t.Fatalf("paused for %q", snap.Reason)
	}
	if g.phone.State().Counter != 0 {
		t.Fatal("the tap reached an offline phone")
	}
	g.phone.SetOffline(false)
	res := s.wait()
	if res.State != Done || g.phone.State().Counter != 1 {
		t.Fatalf("result %+v counter %d", res, g.phone.State().Counter)
	}
	mustContain(t, "the prompt after the phone came back", s.request(2).Text(), "disconnected")
	st := s.ev.states()
	if i := slices.Index(st, Paused); i < 0 || !slices.Contains(st[i:], Planning) {
		t.Fatalf("states %v", st)
	}
}

// TestScenarioCrashResume: a run "crashes" (its record is kept as it was
// while a model call was in flight); a new process resumes it from the
// record and finishes on the same phone.
func TestScenarioCrashResume(t *testing.T) {
	t.Parallel()
	g := newRig(t)
	g.launch(vphone.PkgCounter)
	plus := g.at("+1")
	srv := modeltest.New(t, tools("", call("tap", plus)), modeltest.Reply{Hold: true})
	s := g.start(srv, "Make the counter show 2", Settings{}, plannerOpts{noStream: true})
	s.request(2) // the second call is in flight: the first tap is done
	src := s.run.Dir()
	waitFor(t, "the record to hold the tap", func() bool {
		ents, _, err := ReadRecord(src)
		return err == nil && slices.ContainsFunc(ents, func(e Entry) bool { return e.Kind == recStable })
	})
	crash := filepath.Join(t.TempDir(), filepath.Base(src))
	CopyLive(t, src, crash)
	_ = s.run.Stop(context.Background())
	<-s.run.Done()
	if g.phone.State().Counter != 1 {
		t.Fatalf("counter %d before the crash", g.phone.State().Counter)
	}

	srv2 := modeltest.New(t, tools("", call("tap", plus)), tools("", finishCall("The counter shows 2.")))
	ev := newEvents()
	r, err := Resume(crash, Config{Device: g.open(), Planner: planner(t, srv2, plannerOpts{}), Emitter: ev})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(context.Background()); <-r.Done() })
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := r.Wait(ctx)
	if err != nil {
		t.Fatalf("%v; states %v", err, ev.states())
	}
	if res.State != Done || res.Steps != 2 || g.phone.State().Counter != 2 {
		t.Fatalf("result %+v counter %d", res, g.phone.State().Counter)
	}
	text := srv2.Requests()[0].Text()
	mustContain(t, "the first prompt after resuming", text, "Make the counter show 2", "resumed from its record")
	if r.Snapshot().Goal != "Make the counter show 2" {
		t.Fatalf("goal %q", r.Snapshot().Goal)
	}
	ents, _, err := ReadRecord(crash)
	if err != nil || ents[len(ents)-1].Kind != recEnd {
		t.Fatalf("resumed record does not end: %v", err)
	}
}

// TestScenarioTwoDevices: two phones on one adb server, two runs at once,
// each with its own model; neither touches the other's phone.
func TestScenarioTwoDevices(t *testing.T) {
	t.Parallel()
	a := newRig(t)
	b := a.addPhone()
	a.launch(vphone.PkgCounter)
	b.launch(vphone.PkgForm)
	srvA := modeltest.New(t, tools("", call("tap", a.at("+1")), call("tap", a.at("+1"))), tools("", finishCall("2")))
	srvB := modeltest.New(t, tools("", call("tap", b.at("name")), call("type", `{"text":"Bo"}`)), tools("", finishCall("typed")))
	sa := a.start(srvA, "Count to 2", Settings{}, plannerOpts{})
	sb := b.start(srvB, "Type Bo", Settings{}, plannerOpts{noStream: true})
	ra, rb := sa.wait(), sb.wait()
	if ra.State != Done || rb.State != Done {
		t.Fatalf("results %+v %+v", ra, rb)
	}
	if st := a.phone.State(); st.Counter != 2 || st.Form.Name != "" {
		t.Fatalf("phone A %+v", st)
	}
	if st := b.phone.State(); st.Counter != 0 || st.Form.Name != "Bo" {
		t.Fatalf("phone B %+v", st)
	}
	for _, e := range sa.ev.kinds(KindStep) {
		if e.Run != sa.run.ID() {
			t.Fatalf("run A got an event of %s", e.Run)
		}
	}
	if sa.run.ID() == sb.run.ID() || sa.run.Dir() == sb.run.Dir() {
		t.Fatal("the runs share an id or a record")
	}
}

// isShut reports whether Stop has shut the action gate.
func (g *gate) isShut() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.closed
}

// TestStopAfterReplyBeforeAction: the reply has arrived and the run is about
// to tap (it has announced Executing) when the person presses Stop. The tap
// must never reach the phone.
func TestStopAfterReplyBeforeAction(t *testing.T) {
	t.Parallel()
	g := newRig(t)
	g.launch(vphone.PkgCounter)
	srv := modeltest.New(t, tools("", call("tap", g.at("+1")), call("tap", g.at("+1"))))
	ev := newEvents()
	var r *Run
	stopped := make(chan error, 1)
	clicked := false
	ui := EmitterFunc(func(e Event) {
		ev.Emit(e)
		if e.Kind != KindState || e.State.State != Executing || clicked {
			return
		}
		clicked = true
		// The person clicks Stop as the step is announced, before the
		// action's worker has started.
		go func() { stopped <- r.Stop(context.Background()) }()
		// The loop is busy here (in this very call), so only a Stop that
		// acts before the loop reads its command closes the gate in time.
		deadline := time.Now().Add(5 * time.Second)
		for !r.gate.isShut() && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if !r.gate.isShut() {
			t.Error("Stop did not close the action gate while the loop was busy")
		}
	})
	var err error
	r, err = New(Config{Goal: "count", Device: g.open(), Planner: planner(t, srv, plannerOpts{}), Emitter: ui,
		Settings: Settings{Stability: fastStability}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("never stopped; states %v", ev.states())
	}
	<-r.Done()
	if res := r.Result(); res.State != Stopped || res.Steps != 0 {
		t.Fatalf("result %+v", res)
	}
	for _, e := range g.phone.Events() {
		if e.Kind == "tap" || e.Kind == "motion_down" {
			t.Fatalf("the tap reached the phone after Stop: %+v", e)
		}
	}
	if g.phone.State().Counter != 0 || len(ev.kinds(KindStep)) != 0 {
		t.Fatalf("counter %d, steps %v", g.phone.State().Counter, ev.kinds(KindStep))
	}
}

// TestScenarioStopRestoresKeyboard: typing Chinese switches the phone to
// ADB Keyboard; stopping the run gives the person's keyboard back.
func TestScenarioStopRestoresKeyboard(t *testing.T) {
	t.Parallel()
	g := newRig(t)
	g.launch(vphone.PkgNotes)
	before := g.phone.State().IME
	srv := modeltest.New(t,
		tools("Write the note.", call("tap", g.at("note_editor")), call("type", `{"text":"你好，世界"}`)),
		modeltest.Reply{Hold: true})
	s := g.start(srv, "Write 你好，世界 in a note", Settings{}, plannerOpts{})
	s.request(2)
	if err := s.run.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-s.run.Done()
	st := g.phone.State()
	if st.Note != "你好，世界" {
		t.Fatalf("note %q", st.Note)
	}
	if !slices.ContainsFunc(g.phone.Events(), func(e vphone.Event) bool { return e.Kind == "broadcast" }) {
		t.Fatal("the Chinese text did not go through ADB Keyboard")
	}
	if st.IME != before || st.IME == vphone.IMEADB {
		t.Fatalf("keyboard after the run %q, want the person's %q", st.IME, before)
	}
	if res := s.run.Result(); res.State != Stopped || res.Steps != 2 {
		t.Fatalf("result %+v", res)
	}
}
