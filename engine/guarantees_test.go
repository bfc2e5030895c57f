package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/engine/action"
)

// Tests of the person's guarantees (issue 19) and of device faults (issue
// 16). Each pins a defect the simulation in engine/sim found first.

// A Pay tap queued behind another action is checked against the settled
// screen's labels, not waved through because the tree was dropped after
// the stability wait (sim seed 23).
func TestQueuedPayAfterStabilityAsks(t *testing.T) {
	f := newFixture(t, Settings{UITree: true, Policy: DefaultPolicy()}, reply(tapPlus, tapPay))
	f.start()
	f.ev.waitState(t, WaitingForUser)
	req := f.run.Snapshot().Request
	if _, _, paid, _ := f.phone.get(); paid || req == nil || req.Kind != AskConfirm || req.Why == nil || req.Why.By != "word" {
		t.Fatalf("paid %v, request %+v", paid, req)
	}
}

// The steps the model is told have unique numbers, a hand back included
// (sim seed 1).
func TestHistoryStepNumbersUnique(t *testing.T) {
	f := newFixture(t, Settings{}, reply(tapPlus, action.Action{Type: action.TakeOver, Reason: "captcha"}), reply(finish("done")))
	f.start()
	f.ev.waitState(t, Manual)
	if err := f.run.HandBack(context.Background(), "", nil); err != nil {
		t.Fatal(err)
	}
	f.wait()
	in := f.plan.calls()
	seen := map[int]bool{}
	for _, s := range in[len(in)-1].History {
		if seen[s.N] {
			t.Fatalf("step %d twice in %+v", s.N, in[len(in)-1].History)
		}
		seen[s.N] = true
	}
}

// A secure screen is said to the model in a sentence (sim seed 41).
func TestSecureScreenToldToModel(t *testing.T) {
	f := newFixture(t, Settings{}, reply(finish("done")))
	f.phone.secure = true
	f.start()
	f.wait()
	in := f.plan.calls()[0]
	if in.Observation.Screenshot != nil || !in.Observation.Secure || !strings.Contains(strings.Join(in.Notes, " "), "secure") {
		t.Fatalf("observation %+v notes %q", in.Observation, in.Notes)
	}
}

// Steps the person edits while paused are what runs next; the goal edited
// with them does not throw them away (sim seeds 13, 419).
func TestPauseEditsRunNext(t *testing.T) {
	f := newFixture(t, Settings{}, reply(tapPlus, tapPlus, tapPlus), reply(finish("done")))
	f.start()
	f.ev.waitState(t, WaitingForStability)
	ctx := context.Background()
	if err := f.run.Pause(ctx); err != nil {
		t.Fatal(err)
	}
	edited := tap(200, 420) // the text area: no change
	if err := f.run.EditPending(ctx, []action.Action{edited}); err != nil {
		t.Fatal(err)
	}
	if err := f.run.EditGoal(ctx, "count to one"); err != nil {
		t.Fatal(err)
	}
	if err := f.run.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	f.wait()
	_, _, _, did := f.phone.get()
	if len(did) < 2 || did[1].String() != edited.String() {
		t.Fatalf("did %v, want the edited %v second", did, edited)
	}
	if n := len(f.plan.calls()); n != 2 {
		t.Fatalf("%d model calls, want 2 (the edited step ran without one)", n)
	}
}

// The person's edited steps run next even when the goal edit reaches the
// engine after the run resumed and is looking at the screen before running
// them (the pause panel sends both; a device coming back resumes the run
// in between). The goal edit is told to the model at its next call; it
// does not start one (sim seed 5163).
func TestGoalEditWhileLookingBeforeEditedStepsKeepsThem(t *testing.T) {
	f := newFixture(t, Settings{}, reply(tapPlus, tapPlus, tapPlus), reply(finish("done")))
	f.start()
	f.ev.waitState(t, WaitingForStability)
	ctx := context.Background()
	if err := f.run.Pause(ctx); err != nil {
		t.Fatal(err)
	}
	edited := tap(200, 420)
	if err := f.run.EditPending(ctx, []action.Action{edited}); err != nil {
		t.Fatal(err)
	}
	release, entered := make(chan struct{}), make(chan struct{}, 1)
	f.phone.mu.Lock()
	f.phone.shotBlock, f.phone.shotEnter = release, entered
	f.phone.mu.Unlock()
	if err := f.run.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-entered: // the run looks at the screen before the edited step
	case <-time.After(30 * time.Second):
		t.Fatal("the resumed run never looked at the screen")
	}
	if err := f.run.EditGoal(ctx, "count to one"); err != nil {
		t.Fatal(err)
	}
	f.phone.mu.Lock()
	f.phone.shotBlock = nil
	f.phone.mu.Unlock()
	close(release)
	f.wait()
	_, _, _, did := f.phone.get()
	if len(did) < 2 || did[1].String() != edited.String() {
		t.Fatalf("did %v, want the edited %v second", did, edited)
	}
	calls := f.plan.calls()
	if len(calls) != 2 {
		t.Fatalf("%d model calls, want 2 (the edited step ran without one)", len(calls))
	}
	if notes := strings.Join(calls[1].Notes, " "); !strings.Contains(notes, "count to one") {
		t.Errorf("the next call was not told the new goal: %s", notes)
	}
}

// A Pause asked for while an action runs is kept when the device drops out
// under that action: once the device is back the run stays paused, as the
// person asked, instead of resuming by itself (sim seed 3955).
func TestPauseDuringActionSurvivesADeviceBlip(t *testing.T) {
	f := newFixture(t, Settings{}, reply(tapPlus, tapPlus), reply(finish("done")))
	release, started := make(chan struct{}), make(chan struct{}, 4)
	f.phone.mu.Lock()
	f.phone.block, f.phone.doStarted = release, started
	f.phone.mu.Unlock()
	f.start()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("no action started")
	}
	ctx := context.Background()
	paused := make(chan error, 1)
	go func() { paused <- f.run.Pause(ctx) }()
	f.ev.waitPerson(t, "pause") // the pause is waiting for the action
	f.phone.mu.Lock()
	f.phone.gone, f.phone.block = true, nil
	f.phone.mu.Unlock()
	close(release)
	if err := <-paused; err != nil {
		t.Fatal(err)
	}
	f.phone.mu.Lock()
	f.phone.gone = false
	f.phone.mu.Unlock()
	f.ev.waitReason(t, "the device is back")
	if st := f.run.Snapshot().State; st != Paused {
		t.Fatalf("after the device came back the run is %s, want Paused (the person paused it)", st)
	}
	if err := f.run.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	if res := f.wait(); res.State != Done {
		t.Fatalf("%+v", res)
	}
}

// Stop waits for a tap already on its way: Stopped means nothing more
// will reach the phone (sim seed 169).
func TestStopWaitsForTheTapOnItsWay(t *testing.T) {
	f := newFixture(t, Settings{}, reply(tapPlus))
	block := make(chan struct{})
	f.phone.block = block
	f.phone.doStarted = make(chan struct{}, 4)
	f.start()
	<-f.phone.doStarted
	stopped := make(chan error, 1)
	go func() { stopped <- f.run.Stop(context.Background()) }()
	// Until the tap is let through Stop must not return; give it every
	// chance to (an absence cannot be waited for by a condition).
	for range 200 {
		runtime.Gosched()
	}
	select {
	case err := <-stopped:
		t.Fatalf("Stop returned (%v) while the tap was still on its way", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(block)
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	if counter, _, _, _ := f.phone.get(); counter != 1 {
		t.Fatalf("counter %d: the tap did not land before Stop returned", counter)
	}
}

// A screenshot that keeps failing while the phone answers asks the person
// with the cause instead of pausing and resuming for ever (issue 16).
func TestRepeatedDeviceFaultsEscalate(t *testing.T) {
	f := newFixture(t, Settings{}, reply(finish("never")))
	f.phone.shotsGone = true
	f.start()
	f.ev.waitState(t, WaitingForUser)
	req := f.run.Snapshot().Request
	if req == nil || req.Kind != AskDevice || req.Cause == nil || req.Cause.Code != CauseDeviceRepeated {
		t.Fatalf("request %+v", req)
	}
	if n := len(f.plan.calls()); n != 0 {
		t.Fatalf("%d model calls on a screen never seen", n)
	}
}

// sleepersClock is virtual time for tests with several sleepers: time moves
// on to the earliest wake-up once the expected number of sleepers all
// wait (or, should fewer ever sleep, after a few real milliseconds), so a
// watch polling every 250 ms sees every second a 1 s timer sees, however
// the goroutines are scheduled.
type sleepersClock struct {
	mu      sync.Mutex
	ns      int64
	sleeper int // how many sleepers time waits for
	waits   []*sleeperWait
}

type sleeperWait struct {
	at   int64
	wake chan struct{}
}

func newSleepersClock(t *testing.T, sleepers int) *sleepersClock {
	c := &sleepersClock{sleeper: sleepers}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go func() { // the fallback: fewer sleepers than expected
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				c.mu.Lock()
				c.advance(1)
				c.mu.Unlock()
			}
		}
	}()
	return c
}

func (c *sleepersClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Unix(0, c.ns)
}

func (c *sleepersClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	w := &sleeperWait{at: c.ns + int64(max(d, 0)), wake: make(chan struct{})}
	c.waits = append(c.waits, w)
	c.advance(c.sleeper)
	c.mu.Unlock()
	select {
	case <-w.wake:
		return ctx.Err()
	case <-ctx.Done():
		c.mu.Lock()
		c.waits = slices.DeleteFunc(c.waits, func(x *sleeperWait) bool { return x == w })
		c.mu.Unlock()
		return ctx.Err()
	}
}

// advance moves time to the earliest wake-up and wakes who is due, when
// at least n sleep (c.mu held).
func (c *sleepersClock) advance(n int) {
	if len(c.waits) < n || len(c.waits) == 0 {
		return
	}
	first := slices.MinFunc(c.waits, func(a, b *sleeperWait) int { return cmp.Compare(a.at, b.at) })
	c.ns = max(c.ns, first.at)
	c.waits = slices.DeleteFunc(c.waits, func(w *sleeperWait) bool {
		if w.at <= c.ns {
			close(w.wake)
			return true
		}
		return false
	})
}

// A device that stays away is waited for with a countdown, then the run
// ends Failed with its record readable (issue 16). Two sleep on the run's
// clock meanwhile: the watch on the device and Paused.DeviceAway's timer.
func TestDeviceAwayCountsDownThenFails(t *testing.T) {
	ph := newFakePhone()
	ev := newEvents()
	dir := t.TempDir()
	r, err := New(Config{ID: "away", Goal: "g", Device: ph, Planner: &fakePlanner{script: []step{reply(finish("x"))}},
		DataDir: dir, Emitter: ev, Clock: newSleepersClock(t, 2), Settings: Settings{DeviceAwayMax: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	ph.gone = true
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	res, err := r.Wait(ctx)
	if err != nil || res.State != Failed || !strings.Contains(res.Reason, "stayed away") {
		t.Fatalf("result %+v, %v", res, err)
	}
	ticks := 0
	for _, e := range ev.kinds(KindState) {
		if e.State.By == "device_away" && strings.Contains(e.State.Reason, "s more") {
			ticks++
		}
	}
	if ticks < 3 {
		t.Fatalf("%d countdown ticks, want one a second", ticks)
	}
	entries, _, err := ReadRecord(dir + "/away")
	if err != nil || entries[len(entries)-1].Kind != recEnd {
		t.Fatalf("record: %v, %d entries", err, len(entries))
	}
}

// dotPhone draws its counter as one 2x2 dot per unit: a change too small
// for any fingerprint cell to move by more than its noise allowance.
type dotPhone struct{ *fakePhone }

func (p dotPhone) Screenshot(ctx context.Context) (image.Image, error) {
	if _, err := p.fakePhone.Screenshot(ctx); err != nil {
		return nil, err
	}
	counter, _, _, _ := p.get()
	img := image.NewRGBA(image.Rect(0, 0, p.w, p.h))
	fill(img, img.Bounds(), color.RGBA{200, 200, 200, 255})
	for i := range counter {
		fill(img, image.Rect(40+4*i, 100, 42+4*i, 102), color.RGBA{0, 0, 0, 255})
	}
	return img, nil
}

// A tap that works is judged to have changed the screen, however small
// the change: counting up in small digits is not a loop (issue 19).
func TestSmallChangeIsNotALoop(t *testing.T) {
	f := newFixture(t, Settings{}, reply(tapPlus, tapPlus, tapPlus, tapPlus), reply(finish("four")))
	dp := dotPhone{f.phone}
	r, err := New(Config{ID: "dots", Goal: "count to four", Device: dp, Planner: f.plan, Emitter: f.ev,
		Settings: Settings{Stability: StabilityConfig{Interval: 10 * time.Millisecond, StableFrames: 2, Max: time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	f.run = r
	f.start()
	res := f.wait()
	if counter, _, _, _ := f.phone.get(); res.State != Done || counter != 4 {
		t.Fatalf("result %+v counter %d", res, counter)
	}
	for _, in := range f.plan.calls() {
		if strings.Contains(strings.Join(in.Notes, " "), "round in circles") {
			t.Fatalf("a loop was called on a screen that changed: %q", in.Notes)
		}
	}
}

// The vector lives with the UI code that folds it too (vite serves files
// under the frontend only).
const foldVector = "../frontend/src/lib/testdata/fold_takeover.json"

// vector is a run's events and the snapshot they fold to; the UI's fold
// (frontend/src/lib/events.test.ts) reads the same file.
type vector struct {
	Events   []Event  `json:"events"`
	Snapshot Snapshot `json:"snapshot"`
}

// The Go snapshot and the UI's fold of the same events agree after the
// person takes over from a confirmation (issue 19: the Go side kept the
// confirmation in Manual). Run with -update to record the vector again.
func TestSnapshotEqualsFoldAfterTakeOver(t *testing.T) {
	if *update {
		f := newFixture(t, Settings{Policy: DefaultPolicy()}, reply(tapPay))
		var evs []Event
		var mu sync.Mutex
		f.run.Subscribe(EmitterFunc(func(e Event) {
			mu.Lock()
			evs = append(evs, e)
			mu.Unlock()
		}))
		f.start()
		f.ev.waitState(t, WaitingForUser)
		if err := f.run.TakeOver(context.Background()); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		v := vector{Events: evs[1:], Snapshot: f.run.Snapshot()} // after the first snapshot
		mu.Unlock()
		for i := range v.Events {
			normalize(&v.Events[i])
		}
		v.Snapshot.Usage.ElapsedMs = 0
		for i := range v.Snapshot.Steps {
			v.Snapshot.Steps[i].Ms = 0
		}
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(foldVector, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(foldVector)
	if err != nil {
		t.Fatal(err)
	}
	var v vector
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	h := newHub(v.Snapshot.ID, Snapshot{ID: v.Snapshot.ID, Device: v.Snapshot.Device, Goal: v.Snapshot.Goal, State: Idle, Plan: PlanEvent{Todo: []TodoItem{}}})
	for _, e := range v.Events {
		h.apply(e)
	}
	got := h.copySnap()
	got.Seq = v.Snapshot.Seq
	if got.State != Manual || got.Request != nil {
		t.Fatalf("after take over from a confirmation: state %s request %+v", got.State, got.Request)
	}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(v.Snapshot)
	if string(gj) != string(wj) {
		t.Fatalf("fold of the vector\n%s\nsnapshot\n%s", gj, wj)
	}
}

// normalize drops what differs between two runs of the same scenario.
func normalize(e *Event) {
	e.Time = time.Time{}
	if e.Usage != nil {
		e.Usage.ElapsedMs = 0
	}
	if e.Step != nil {
		e.Step.Ms = 0
	}
}

// A take over asked while an action runs returns even when the device goes
// away during that action (sim seed 3391: it waited until the run ended).
func TestTakeOverDuringActionReturnsWhenDeviceLost(t *testing.T) {
	f := newFixture(t, Settings{}, reply(tapPlus, tapPlus))
	block := make(chan struct{})
	f.phone.block = block
	f.phone.doStarted = make(chan struct{}, 4)
	f.start()
	<-f.phone.doStarted
	// The take over, then a command the loop answers at once: once that
	// returns, the take over waits for the action.
	took := make(chan error, 1)
	f.run.msgs <- msgTakeOver{cmdFrom{reply: took}}
	if err := f.run.EditGoal(context.Background(), "count to two"); err != nil {
		t.Fatal(err)
	}
	f.phone.mu.Lock()
	f.phone.gone = true
	f.phone.mu.Unlock()
	close(block)
	select {
	case err := <-took:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("TakeOver did not return after the device went away during the action")
	}
	if st := f.run.Snapshot().State; st != Manual {
		t.Fatalf("state %s, want Manual", st)
	}
}

// Steps the person edits while an action runs are what runs after it, even
// when that action is the model's going round in circles: the loop
// detector's nudge is for the model's plan, not the person's steps (sim
// seed 712157: an edit sent during a device-lost pause reached the run
// once it acted again, and the nudge dropped it).
func TestEditDuringActionSurvivesTheLoopNudge(t *testing.T) {
	f := newFixture(t, Settings{}, reply(tapDead, tapDead, tapDead), reply(finish("done")))
	first, second := make(chan struct{}), make(chan struct{})
	f.phone.block = first
	f.phone.doStarted = make(chan struct{}, 8)
	f.start()
	<-f.phone.doStarted
	f.phone.mu.Lock()
	f.phone.block = second
	f.phone.mu.Unlock()
	close(first)
	<-f.phone.doStarted // the second tapDead, on the same unchanged screen: a loop
	edited := tapPlus
	if err := f.run.EditPending(context.Background(), []action.Action{edited}); err != nil {
		t.Fatal(err)
	}
	f.phone.mu.Lock()
	f.phone.block = nil
	f.phone.mu.Unlock()
	close(second)
	f.wait()
	_, _, _, did := f.phone.get()
	if len(did) < 3 || did[2].String() != edited.String() {
		t.Fatalf("did %v, want the edited %v third", did, edited)
	}
}
