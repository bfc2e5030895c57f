package engine

import (
	"context"
	"image"
	"strings"
	"testing"

	"tandem/engine/action"
)

func TestTakeOverHandBackTellsModel(t *testing.T) {
	f := newFixture(t, Settings{}, reply(action.Action{Type: action.TakeOver, Reason: "solve the captcha"}), reply(finish("done after the person")))
	f.start()
	f.ev.waitState(t, Manual)
	req := f.run.Snapshot().Request
	if req == nil || req.Kind != AskTakeOver || req.Message != "solve the captcha" {
		t.Fatalf("request %+v", req)
	}
	ctx := context.Background()
	if err := f.run.Input(ctx, tapPlus); err != nil {
		t.Fatal(err)
	}
	if err := f.run.Input(ctx, action.Action{Type: action.TypeText, Text: "x7k"}); err != nil {
		t.Fatal(err)
	}
	if err := f.run.HandBack(ctx, "captcha solved", &Region{X1: 10, Y1: 20, X2: 100, Y2: 200}); err != nil {
		t.Fatal(err)
	}
	res := f.wait()
	if res.State != Done {
		t.Fatalf("result %+v", res)
	}
	in := f.plan.calls()
	notes := strings.Join(in[1].Notes, " ")
	if !strings.Contains(notes, "solve the captcha") || strings.Contains(notes, "180") {
		t.Errorf("hand-back note (framing only, no device pixels): %s", notes)
	}
	// What the person did, their note and region are structured data the
	// dialect writes in the model's own grid.
	last := in[1].History[len(in[1].History)-1]
	if !last.ByPerson || len(last.Actions) != 2 || last.Actions[0].X != tapPlus.X || last.Note != "captcha solved" ||
		last.Region == nil || *last.Region != image.Rect(10, 20, 100, 200) {
		t.Errorf("history %+v", last)
	}
	man := f.ev.kinds(KindManual)
	if len(man) != 2 || man[0].Manual.Before == "" || man[0].Manual.After == "" {
		t.Fatalf("manual events %+v", man)
	}
}

// A live touch already went to the phone: InputDone records it (and tells
// the model) without doing it again.
func TestInputDoneIsRecordedNotRepeated(t *testing.T) {
	f := newFixture(t, Settings{}, reply(action.Action{Type: action.TakeOver, Reason: "drag the slider"}), reply(finish("ok")))
	f.start()
	f.ev.waitState(t, Manual)
	ctx := context.Background()
	swipe := action.Action{Type: action.Swipe, X: 50, Y: 400, X2: 300, Y2: 400, Ms: 300}
	if err := f.run.InputDone(ctx, swipe); err != nil {
		t.Fatal(err)
	}
	if err := f.run.HandBack(ctx, "", nil); err != nil {
		t.Fatal(err)
	}
	if res := f.wait(); res.State != Done {
		t.Fatalf("result %+v", res)
	}
	if _, _, _, did := f.phone.get(); len(did) != 0 {
		t.Fatalf("the device was made to do %v again", did)
	}
	// The model is told of the swipe through the person's history step
	// (each dialect writes it in its own grid).
	if h := f.plan.calls()[1].History; len(h) == 0 || !h[len(h)-1].ByPerson || len(h[len(h)-1].Actions) != 1 ||
		h[len(h)-1].Actions[0].Type != action.Swipe {
		t.Errorf("the model was not told of the swipe: %+v", h)
	}
	if st := f.ev.kinds(KindStep); len(st) != 1 || !st[0].Step.ByPerson || st[0].Step.Action.Type != action.Swipe {
		t.Fatalf("steps %+v", st)
	}
}

func TestTakeOverFromPlanning(t *testing.T) {
	f := newFixture(t, Settings{}, blockUntilCancel, reply(finish("ok")))
	f.plan.started = make(chan int, 4)
	f.start()
	<-f.plan.started
	if err := f.run.TakeOver(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := f.run.Snapshot().State; s != Manual {
		t.Fatalf("state %s", s)
	}
	if err := f.run.HandBack(context.Background(), "", nil); err != nil {
		t.Fatal(err)
	}
	f.wait()
	if notes := strings.Join(f.plan.calls()[1].Notes, " "); !strings.Contains(notes, "made no input") {
		t.Errorf("notes %s", notes)
	}
}

func TestSensitiveDenyThenConfirm(t *testing.T) {
	f := newFixture(t, Settings{Policy: DefaultPolicy(), UITree: true},
		reply(tapPay), reply(tapPay), reply(finish("paid")))
	f.start()
	f.ev.waitState(t, WaitingForUser)
	req := f.run.Snapshot().Request
	if req == nil || req.Kind != AskConfirm || req.Action == nil || !strings.Contains(req.Message, `"pay"`) {
		t.Fatalf("request %+v", req)
	}
	if req.Frame == "" {
		t.Error("the confirmation does not name the screen the agent saw")
	}
	if req.Why == nil || req.Why.By != "word" || req.Why.Detail != "pay" {
		t.Errorf("the confirmation's rule is %+v, want the word pay", req.Why)
	}
	if err := f.run.Deny(context.Background(), "not today"); err != nil {
		t.Fatal(err)
	}
	f.ev.waitStateN(t, WaitingForUser, 2)
	if _, _, paid, _ := f.phone.get(); paid {
		t.Fatal("paid although denied")
	}
	notes := strings.Join(f.plan.calls()[1].Notes, " ")
	if !strings.Contains(notes, "did NOT allow tap(180,700)") || !strings.Contains(notes, "not today") {
		t.Fatalf("denial not told: %s", notes)
	}
	if err := f.run.Confirm(context.Background()); err != nil {
		t.Fatal(err)
	}
	res := f.wait()
	if _, _, paid, _ := f.phone.get(); !paid || res.State != Done {
		t.Fatalf("paid %v result %+v", paid, res)
	}
	// Each answer keeps what it answered: the Steps list and the report say
	// "Allowed: Press “Pay”", the words the dialog showed, not a point.
	if req.Label == "" {
		t.Fatal("the confirmation names no element: this test would prove nothing")
	}
	var answers []string
	for _, ev := range f.ev.kinds(KindPerson) {
		p := ev.Person
		if p.Command != "deny" && p.Command != "confirm" {
			continue
		}
		answers = append(answers, p.Command)
		// And the screen it was decided on, the dialog's picture: a denied
		// action is no step, and its screen would be nowhere else.
		if p.Asked == nil || p.Asked.Kind != AskConfirm || p.Asked.Label != req.Label || p.Asked.Why == nil || p.Asked.Frame == "" {
			t.Errorf("the person's %s keeps %+v of what was asked, want its kind, label %q, rule and screen", p.Command, p.Asked, req.Label)
		}
		if p.Command == "deny" && p.Asked != nil && p.Asked.Frame != req.Frame {
			t.Errorf("the denial keeps the screen %q, the dialog showed %q", p.Asked.Frame, req.Frame)
		}
	}
	if strings.Join(answers, " ") != "deny confirm" {
		t.Fatalf("the person's answers: %v", answers)
	}
}

// The policy reads the words under a tap from the UI tree; after the first
// step the screen comes from the stability wait, and the tree must be read
// for it too, or a Pay button on any later screen would go unasked.
func TestSensitiveOnALaterStepStillAsks(t *testing.T) {
	f := newFixture(t, Settings{Policy: DefaultPolicy(), UITree: true},
		reply(tapPlus), reply(tapPay), reply(finish("paid")))
	f.start()
	f.ev.waitState(t, WaitingForUser)
	if req := f.run.Snapshot().Request; req == nil || req.Kind != AskConfirm {
		t.Fatalf("request %+v", req)
	}
	if _, _, paid, _ := f.phone.get(); paid {
		t.Fatal("paid without asking")
	}
	// The mirror can outline what the agent wants to press.
	var el *Element
	for _, ev := range f.ev.kinds(KindPlan) {
		for _, it := range ev.Plan.Todo {
			if it.Status == TodoCurrent && it.Element != nil {
				el = it.Element
			}
		}
	}
	if el == nil || !strings.Contains(strings.ToLower(el.Label), "pay") {
		t.Fatalf("the current item's element is %+v", el)
	}
}

// Chinese text on a phone without ADB Keyboard cannot be typed; the model
// cannot fix that, so the person is asked, with what to install.
func TestTypingWithoutKeyboardAsksThePerson(t *testing.T) {
	f := newFixture(t, Settings{}, reply(action.Action{Type: action.TypeText, Text: "你好"}), reply(finish("typed")))
	f.phone.asciiOnly = true
	f.start()
	f.ev.waitState(t, WaitingForUser)
	req := f.run.Snapshot().Request
	if req == nil || req.Kind != AskDevice || !strings.Contains(req.Message, "ADB Keyboard") ||
		req.Cause.Code != CauseActionFailed || !strings.Contains(req.Cause.Detail, "ADB Keyboard") || req.Action == nil || req.Action.Text != "你好" {
		t.Fatalf("request %+v", req)
	}
	if _, text, _, _ := f.phone.get(); text != "" {
		t.Fatalf("typed %q", text)
	}
}

func TestModelFlagAsksConfirmation(t *testing.T) {
	a := tapPlus
	a.Sensitive = "sends a message"
	f := newFixture(t, Settings{}, reply(a), reply(finish("ok")))
	f.start()
	f.ev.waitState(t, WaitingForUser)
	if req := f.run.Snapshot().Request; req == nil || !strings.Contains(req.Message, "sends a message") {
		t.Fatalf("request %+v", req)
	}
	var ill *IllegalError
	if err := f.run.Answer(context.Background(), "hm"); err == nil || !asIllegal(err, &ill) {
		t.Fatalf("answer to a confirmation: %v", err)
	}
	if err := f.run.Confirm(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.wait()
	if c, _, _, _ := f.phone.get(); c != 1 {
		t.Fatal("not pressed after confirm")
	}
}

func TestAskUserAnswerContinuesSameRun(t *testing.T) {
	f := newFixture(t, Settings{}, reply(action.Action{Type: action.AskUser, Question: "how many?"}), reply(tapPlus, finish("ok")))
	f.start()
	f.ev.waitState(t, WaitingForUser)
	if err := f.run.Answer(context.Background(), "just one"); err != nil {
		t.Fatal(err)
	}
	f.wait()
	notes := strings.Join(f.plan.calls()[1].Notes, " ")
	if !strings.Contains(notes, `"how many?"`) || !strings.Contains(notes, `"just one"`) {
		t.Fatalf("notes %s", notes)
	}
}

func TestLoopNudgeThenEscalate(t *testing.T) {
	f := newFixture(t, Settings{LoopK: 3}, reply(tapDead), reply(tapDead), reply(tapDead), reply(tapDead), reply(finish("gave up")))
	f.start()
	f.ev.waitState(t, WaitingForUser)
	in := f.plan.calls()
	if len(in) != 3 {
		t.Fatalf("%d calls before escalation, want 3", len(in))
	}
	if !strings.Contains(strings.Join(in[2].Notes, " "), "going round in circles") {
		t.Fatalf("no nudge: %q", in[2].Notes)
	}
	req := f.run.Snapshot().Request
	if req == nil || req.Kind != AskLoop || !strings.Contains(req.Message, "did not change") || req.Cause.Code != CauseLoopRepeat || req.Action == nil {
		t.Fatalf("request %+v", req)
	}
	if err := f.run.Answer(context.Background(), "tap the counter instead"); err != nil {
		t.Fatal(err)
	}
	if res := f.wait(); res.State != Done {
		t.Fatalf("%+v", res)
	}
}

func TestDeviceLostPausesAndResumes(t *testing.T) {
	f := newFixture(t, Settings{}, reply(tapPlus), reply(tapPlus, finish("two")))
	block := make(chan struct{})
	f.phone.block = block
	f.phone.doStarted = make(chan struct{}, 4)
	f.start()
	<-f.phone.doStarted
	f.phone.setGone(true)
	close(block)
	f.ev.waitState(t, Paused)
	if s := f.run.Snapshot(); !strings.Contains(s.Reason, "device lost") {
		t.Fatalf("reason %q", s.Reason)
	}
	f.phone.mu.Lock()
	f.phone.block = nil
	f.phone.mu.Unlock()
	f.phone.setGone(false)
	res := f.wait()
	if res.State != Done {
		t.Fatalf("%+v", res)
	}
	if c, _, _, _ := f.phone.get(); c != 1 {
		t.Fatalf("counter %d", c)
	}
}

func TestEditGoalAndPending(t *testing.T) {
	f := newFixture(t, Settings{}, reply(tapPlus, tapPlus, tapPlus), reply(finish("new goal done")))
	block := make(chan struct{})
	f.phone.block = block
	f.phone.doStarted = make(chan struct{}, 8)
	f.start()
	<-f.phone.doStarted
	ctx := context.Background()
	if err := f.run.EditPending(ctx, []action.Action{{Type: action.TypeText, Text: "hi"}}); err != nil {
		t.Fatal(err)
	}
	if err := f.run.EditPending(ctx, []action.Action{{Type: action.Tap, X: -1, Y: 5}}); err == nil {
		t.Fatal("an off-screen pending action was accepted")
	}
	close(block)
	f.ev.waitStateN(t, Planning, 2)
	res := f.wait()
	counter, text, _, _ := f.phone.get()
	if res.State != Done || counter != 1 || text != "hi" {
		t.Fatalf("%+v counter %d text %q", res, counter, text)
	}

	g := newFixture(t, Settings{}, blockUntilCancel, reply(finish("ok")))
	g.plan.started = make(chan int, 4)
	g.start()
	<-g.plan.started
	if err := g.run.EditGoal(ctx, "count to five"); err != nil {
		t.Fatal(err)
	}
	g.wait()
	in := g.plan.calls()
	if len(in) != 2 || in[1].Goal != "count to five" || g.run.Snapshot().Goal != "count to five" {
		t.Fatalf("calls %d goal %q", len(in), in[len(in)-1].Goal)
	}
}

// A door that reads the run when it hears WaitingForUser (MCP's get_run,
// the desktop's tests, a CLI printing the question) finds the question
// there: the request is a later event of the same turn, and the snapshot
// is never read in the middle of a turn. A reader polls the snapshot
// throughout each run; on 0f63472 it saw WaitingForUser without its
// request (in CI: "asked <nil>").
func TestSnapshotHoldsTheRequestOfItsState(t *testing.T) {
	for i := range 40 {
		f := newFixture(t, Settings{Policy: DefaultPolicy(), UITree: true}, reply(tapPay))
		torn := make(chan Snapshot, 1)
		stop := make(chan struct{})
		go func() {
			for {
				select {
				case <-stop:
					close(torn)
					return
				default:
				}
				if s := f.run.Snapshot(); s.State == WaitingForUser && s.Request == nil {
					torn <- s
					<-stop
					close(torn)
					return
				}
			}
		}()
		f.start()
		f.ev.waitFor(t, "the request", func(e Event) bool { return e.Kind == KindRequest })
		close(stop)
		if s, ok := <-torn; ok {
			t.Fatalf("run %d: a snapshot reads %s without its request (reason %q)", i, s.State, s.Reason)
		}
	}
}
