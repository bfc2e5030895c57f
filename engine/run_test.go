package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tandem/engine/action"
	"tandem/engine/model"
)

func TestCounterOneCallQueuedPlan(t *testing.T) {
	f := newFixture(t, Settings{}, reply(tapPlus, tapPlus, tapPlus, finish("counted to three")))
	f.start()
	res := f.wait()
	counter, _, _, did := f.phone.get()
	if res.State != Done || !res.Success || counter != 3 || len(did) != 3 {
		t.Fatalf("result %+v counter %d did %v", res, counter, did)
	}
	if res.Calls != 1 || res.Steps != 3 {
		t.Fatalf("calls %d steps %d, want 1 and 3", res.Calls, res.Steps)
	}
	// The todo list went done/current/pending.
	var sawCurrent bool
	for _, ev := range f.ev.kinds(KindPlan) {
		for _, it := range ev.Plan.Todo {
			if it.Status == TodoCurrent {
				sawCurrent = true
			}
		}
	}
	if !sawCurrent {
		t.Error("no plan event showed a current item")
	}
	if got := f.ev.kinds(KindDone); len(got) != 1 || got[0].Done.Summary != "counted to three" {
		t.Fatalf("done events %+v", got)
	}
	if !f.phone.closed {
		t.Error("device not closed (restored) at the end")
	}
	// Each step names its call and the recorded screen it was chosen on; the
	// call's cost is shown once, on its first step.
	steps := f.ev.kinds(KindStep)
	for i, ev := range steps {
		st := ev.Step
		if st.Call != 1 || st.Frame == "" || (st.Usage != nil) != (i == 0) {
			t.Fatalf("step %d: call %d frame %q usage %v", i, st.Call, st.Frame, st.Usage)
		}
		if _, err := os.Stat(filepath.Join(f.dir, "run1", st.Frame)); err != nil {
			t.Fatalf("step %d's frame is not in the record: %v", i, err)
		}
	}
}

func TestFirstFinishEndsAndLaterActionsDropped(t *testing.T) {
	f := newFixture(t, Settings{}, reply(tapPlus, finish("one is enough"), tapPlus, tapPlus))
	f.start()
	res := f.wait()
	counter, _, _, _ := f.phone.get()
	if res.State != Done || counter != 1 {
		t.Fatalf("result %+v counter %d", res, counter)
	}
}

func TestFinishNeedsSummaryCorrectiveRetry(t *testing.T) {
	f := newFixture(t, Settings{},
		reply(action.Action{Type: action.Finish}), // no summary: invalid
		reply(finish("done, with a summary")))
	f.start()
	res := f.wait()
	if res.State != Done || res.Summary != "done, with a summary" {
		t.Fatalf("result %+v", res)
	}
	in := f.plan.calls()
	if len(in) != 2 || !strings.Contains(strings.Join(in[1].Notes, " "), "summary is required") {
		t.Fatalf("second call notes %q", in[len(in)-1].Notes)
	}
}

func TestParseErrorRetryThenEscalate(t *testing.T) {
	f := newFixture(t, Settings{}, parseFail("no action found"), reply(tapPlus), parseFail("bad json"), parseFail("still bad"), reply(finish("ok")))
	f.start()
	f.ev.waitState(t, WaitingForUser)
	in := f.plan.calls()
	if len(in) != 4 {
		t.Fatalf("%d calls before escalation, want 4", len(in))
	}
	if !strings.Contains(strings.Join(in[1].Notes, " "), "no action found") {
		t.Errorf("corrective retry not told the reason: %q", in[1].Notes)
	}
	req := f.run.Snapshot().Request
	if req == nil || req.Kind != AskModelError || req.Cause == nil || req.Cause.Code != CauseModelUnusable || req.Cause.Detail == "" {
		t.Fatalf("request %+v", req)
	}
	if err := f.run.Resume(context.Background()); err != nil {
		t.Fatal(err)
	}
	if res := f.wait(); res.State != Done {
		t.Fatalf("result %+v", res)
	}
}

func TestPendingIssuesFromSummary(t *testing.T) {
	f := newFixture(t, Settings{}, reply(finish("Counter set.\nPending: confirm the e-mail\n待办：付款")))
	f.start()
	res := f.wait()
	if len(res.Pending) != 2 || res.Pending[0] != "confirm the e-mail" || res.Pending[1] != "付款" {
		t.Fatalf("pending %q", res.Pending)
	}
}

func TestReminderNearStepLimitAndBudget(t *testing.T) {
	f := newFixture(t, Settings{Budget: Budget{Steps: 4}, RemindAt: 2},
		reply(tapPlus), reply(tapPlus), reply(tapPlus), reply(tapPlus), reply(tapPlus), reply(finish("five")))
	f.start()
	f.ev.waitState(t, WaitingForUser)
	req := f.run.Snapshot().Request
	if req == nil || req.Kind != AskBudget || *req.Cause != (Cause{Code: CauseBudgetSteps, N: "4"}) || !strings.Contains(req.Message, "step limit (4)") {
		t.Fatalf("request %+v", req)
	}
	in := f.plan.calls()
	if len(in) != 4 {
		t.Fatalf("%d calls, want 4", len(in))
	}
	if strings.Contains(strings.Join(in[1].Notes, " "), "step(s) are left") || !strings.Contains(strings.Join(in[2].Notes, " "), "Only 2 step(s) are left") {
		t.Errorf("reminders: %q / %q", in[1].Notes, in[2].Notes)
	}
	if in[3].StepsLeft != 1 {
		t.Errorf("steps left %d", in[3].StepsLeft)
	}
	if err := f.run.Resume(context.Background()); err != nil {
		t.Fatal(err)
	}
	res := f.wait()
	if res.State != Done || res.Steps != 5 {
		t.Fatalf("result %+v", res)
	}
}

func TestUnexpectedScreenFlushesQueue(t *testing.T) {
	f := newFixture(t, Settings{}, reply(tapNav, tapPlus, tapPlus), reply(finish("re-planned")))
	f.start()
	res := f.wait()
	counter, _, _, did := f.phone.get()
	if res.State != Done || counter != 0 || len(did) != 1 {
		t.Fatalf("result %+v counter %d did %v", res, counter, did)
	}
	in := f.plan.calls()
	if !strings.Contains(strings.Join(in[1].Notes, " "), "Not done: tap(180,100), tap(180,100)") {
		t.Fatalf("model not told of the dropped plan: %q", in[1].Notes)
	}
}

func TestStopDuringModelCall(t *testing.T) {
	f := newFixture(t, Settings{}, blockUntilCancel)
	f.plan.started = make(chan int, 4)
	f.start()
	<-f.plan.started
	// The model call blocks until cancelled, so Stop returning at all shows
	// it cancelled the call; how fast is BenchmarkStopLatency's figure.
	if err := f.run.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := f.run.Snapshot().State; s != Stopped {
		t.Fatalf("state %s after Stop returned", s)
	}
	res := f.wait()
	if res.State != Stopped || !f.phone.closed {
		t.Fatalf("result %+v closed %v", res, f.phone.closed)
	}
}

// A stop for a reason of the caller's (a time limit) is not put down to the
// person: not in the result, the state event, the person's acts or the
// record.
func TestStopForNamesItsCause(t *testing.T) {
	f := newFixture(t, Settings{}, blockUntilCancel)
	f.plan.started = make(chan int, 4)
	f.start()
	<-f.plan.started
	if err := f.run.StopFor(context.Background(), Cause{Code: CauseTimeLimit, N: "10m0s"}); err != nil {
		t.Fatal(err)
	}
	res := f.wait()
	if res.State != Stopped || res.Reason != "the time limit (10m0s) was reached" {
		t.Fatalf("result %+v", res)
	}
	if acts := f.ev.kinds(KindPerson); len(acts) != 0 {
		t.Fatalf("the person is said to have acted: %+v", acts[0].Person)
	}
	for _, e := range f.ev.kinds(KindState) {
		if e.State.By == "stop" {
			t.Fatalf("the state event puts the stop down to the person: %+v", e.State)
		}
	}
	entries, _, err := ReadRecord(f.run.Dir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.By == "stop" || e.Command == "stop" || strings.Contains(e.Reason, "person") {
			t.Fatalf("the record puts the stop down to the person: %+v", e)
		}
	}
}

// TestNoActionAfterStop hammers the window between a reply and its action:
// once Stop returns, the device must never see another action.
func TestNoActionAfterStop(t *testing.T) {
	for i := 0; i < 20; i++ {
		acts := []action.Action{}
		for j := 0; j < 20; j++ {
			acts = append(acts, tapPlus)
		}
		f := newFixture(t, Settings{}, reply(acts...))
		var stopped atomic.Bool
		f.phone.guard = &stopped
		f.start()
		time.Sleep(time.Duration(i%8) * time.Millisecond) // vary where Stop lands
		if err := f.run.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		stopped.Store(true)
		f.wait()
		if v := f.phone.violation.Load(); v != 0 {
			t.Fatalf("iteration %d: %d action(s) started after Stop returned", i, v)
		}
	}
}

func TestPauseDuringPlanningAndResume(t *testing.T) {
	f := newFixture(t, Settings{}, blockUntilCancel, reply(tapPlus, finish("done")))
	f.plan.started = make(chan int, 4)
	f.start()
	<-f.plan.started
	shots := f.phone.shots
	// As with Stop: the call blocks until cancelled, so Pause returning shows
	// it was cancelled; BenchmarkPauseLatency measures how fast.
	if err := f.run.Pause(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := f.run.Snapshot(); s.State != Paused || s.By != "pause" {
		t.Fatalf("state %s by %q, want Paused by pause", s.State, s.By)
	}
	if err := f.run.Resume(context.Background()); err != nil {
		t.Fatal(err)
	}
	res := f.wait()
	if res.State != Done {
		t.Fatalf("result %+v", res)
	}
	f.phone.mu.Lock()
	again := f.phone.shots > shots
	f.phone.mu.Unlock()
	if !again {
		t.Error("resume did not look at the screen again")
	}
	if len(f.plan.calls()) != 2 {
		t.Errorf("calls %d", len(f.plan.calls()))
	}
}

func TestPauseWaitsForAtomicAction(t *testing.T) {
	f := newFixture(t, Settings{}, reply(tapPlus, tapPlus), reply(finish("done")))
	block := make(chan struct{})
	f.phone.block = block
	f.phone.doStarted = make(chan struct{}, 4)
	f.start()
	<-f.phone.doStarted
	paused := make(chan error, 1)
	go func() { paused <- f.run.Pause(context.Background()) }()
	select {
	case err := <-paused:
		t.Fatalf("pause returned (%v) while the action was still running", err)
	case <-time.After(30 * time.Millisecond):
	}
	close(block)
	if err := <-paused; err != nil {
		t.Fatal(err)
	}
	counter, _, _, _ := f.phone.get()
	if s := f.run.Snapshot().State; s != Paused || counter != 1 {
		t.Fatalf("state %s counter %d", s, counter)
	}
	// The queued second tap was not run; resume re-plans and tells the model.
	if err := f.run.Resume(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.wait()
	in := f.plan.calls()
	if counter, _, _, _ := f.phone.get(); counter != 1 || !strings.Contains(strings.Join(in[1].Notes, " "), "paused before these planned actions") {
		t.Fatalf("counter %d notes %q", counter, in[1].Notes)
	}
}

func TestStopGracefully(t *testing.T) {
	acts := []action.Action{}
	for j := 0; j < 10; j++ {
		acts = append(acts, tapPlus)
	}
	f := newFixture(t, Settings{}, reply(acts...))
	block := make(chan struct{})
	f.phone.block = block
	f.phone.doStarted = make(chan struct{}, 16)
	f.start()
	<-f.phone.doStarted
	if err := f.run.StopGracefully(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	close(block)
	res := f.wait()
	counter, _, _, _ := f.phone.get()
	// The tap under way is one of the two (issue 19: "stop after this
	// step" ran one step more than its name said).
	if res.State != Stopped || counter != 2 {
		t.Fatalf("result %+v counter %d (want the running tap + 1)", res, counter)
	}
}

func TestSubscribeSnapshotFirst(t *testing.T) {
	f := newFixture(t, Settings{}, reply(tapPlus, finish("ok")))
	f.start()
	f.wait()
	ev := newEvents()
	cancel := f.run.Subscribe(ev)
	defer cancel()
	if len(ev.all) != 1 || ev.all[0].Kind != KindSnapshot {
		t.Fatalf("first events %+v", ev.all)
	}
	s := ev.all[0].Snapshot
	if s.State != Done || s.Result == nil || len(s.Steps) != 1 || s.Usage.Calls != 1 {
		t.Fatalf("snapshot %+v", s)
	}
	// The configured emitter also got a snapshot first.
	if f.ev.all[0].Kind != KindSnapshot {
		t.Errorf("first event %s", f.ev.all[0].Kind)
	}
	// The snapshot carries the number of the last event it includes and
	// takes none of its own: the first subscriber's numbering has no gap.
	last := f.ev.all[len(f.ev.all)-1].Seq
	if ev.all[0].Seq != last || s.Seq != last || f.run.Snapshot().Seq != last {
		t.Errorf("snapshot seq %d/%d, last event %d", ev.all[0].Seq, s.Seq, last)
	}
	for i, e := range f.ev.all[1:] {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i+1, e.Seq)
		}
	}
}

func TestSnapshotTodoIsAList(t *testing.T) {
	f := newFixture(t, Settings{}, reply(finish("ok")))
	b, err := json.Marshal(f.run.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"todo":[]`) {
		t.Errorf("a fresh run's snapshot: %s", b)
	}
}

func TestTwoRunsAtOnce(t *testing.T) {
	a := newFixture(t, Settings{}, reply(tapPlus, tapPlus, finish("a")))
	b := newFixture(t, Settings{}, reply(tapPlus, tapPlus, tapPlus, tapPlus, finish("b")))
	a.start()
	b.start()
	ra, rb := a.wait(), b.wait()
	ca, _, _, _ := a.phone.get()
	cb, _, _, _ := b.phone.get()
	if ra.State != Done || rb.State != Done || ca != 2 || cb != 4 {
		t.Fatalf("a %+v %d, b %+v %d", ra, ca, rb, cb)
	}
}

func TestModelErrorEscalates(t *testing.T) {
	f := newFixture(t, Settings{}, func(ctx context.Context, in model.Input) (model.Plan, error) {
		return model.Plan{}, &model.APIError{Status: 500, Message: "boom"}
	}, reply(finish("ok")))
	f.start()
	f.ev.waitState(t, WaitingForUser)
	if req := f.run.Snapshot().Request; req == nil || req.Kind != AskModelError || !strings.Contains(req.Message, "500") {
		t.Fatalf("%+v", req)
	}
	if err := f.run.Resume(context.Background()); err != nil {
		t.Fatal(err)
	}
	if res := f.wait(); res.State != Done {
		t.Fatalf("%+v", res)
	}
}

func asIllegal(err error, target **IllegalError) bool { return errors.As(err, target) }

// TestModelCause: a failed model call is named by what the person can do
// about it.
func TestModelCause(t *testing.T) {
	auth := func(status int) error {
		return &model.AuthError{APIError: model.APIError{Status: status, Message: "nope"}, BaseURL: "https://api.example/v1", Model: "vlm-x"}
	}
	for _, c := range []struct {
		err  error
		want Cause
	}{
		{auth(401), Cause{Code: CauseModelKey, Detail: "nope"}},
		{auth(403), Cause{Code: CauseModelForbidden, Detail: "nope"}},
		{auth(404), Cause{Code: CauseModelNotFound, N: "vlm-x", Detail: "https://api.example/v1"}},
		{fmt.Errorf("after 4 tries: %w", &model.APIError{Status: 429, Message: "quota"}), Cause{Code: CauseModelRateLimited, Detail: "quota"}},
		{&model.APIError{Status: 500, Message: "boom"}, Cause{Code: CauseModelFailed, Detail: "model API error 500: boom"}},
		{&model.NetError{Msg: "connection refused"}, Cause{Code: CauseModelFailed, Detail: (&model.NetError{Msg: "connection refused"}).Error()}},
		{&model.NetError{Msg: "dial tcp 127.0.0.1:1: connect: connection refused", Down: true, BaseURL: "http://127.0.0.1:1/v1"}, Cause{Code: CauseModelUnreachable, Detail: "http://127.0.0.1:1/v1"}},
	} {
		if got := modelCause(c.err); got != c.want {
			t.Errorf("%v: got %+v, want %+v", c.err, got, c.want)
		}
	}
}

// A stop on its way (Config.Interrupted: Ctrl+C the process has received
// before the code that calls Stop has woken) keeps the replied action off
// the device and ends the run stopped by the person, though nobody has
// called Stop yet; the action the device took before it is on the record.
func TestInterruptedKeepsTheRepliedActionOff(t *testing.T) {
	var interrupted atomic.Bool
	phone := newFakePhone()
	second := func(ctx context.Context, in model.Input) (model.Plan, error) {
		interrupted.Store(true) // Ctrl+C as the second reply is written
		return model.Plan{Thought: "scripted", Actions: []action.Action{tapPlus}, Raw: "raw"}, nil
	}
	res := runToEnd(t, Config{ID: "run1", Goal: "count to three", Device: phone, DataDir: t.TempDir(),
		Planner:     &fakePlanner{script: []step{reply(tapPlus), second, reply(tapPlus)}},
		Settings:    Settings{Stability: StabilityConfig{Interval: 10 * time.Millisecond, StableFrames: 2, Max: time.Second}},
		Interrupted: interrupted.Load})
	phone.mu.Lock()
	did := len(phone.did)
	phone.mu.Unlock()
	if res.State != Stopped || res.Reason != "stopped by the person" || did != 1 || res.Steps != 1 {
		t.Fatalf("result %+v after %d action(s) on the device; want Stopped by the person after 1", res, did)
	}
}
