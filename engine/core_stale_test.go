package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	"tandem/engine/action"
	"tandem/engine/model"
)

// gatedEmitter holds the loop inside one event's emission (the loop emits
// as it performs a turn's effects), so a test can queue messages behind
// it in an order of its choosing.
type gatedEmitter struct {
	*events
	mu      sync.Mutex
	hold    func(Event) bool // the event to stop at (nil: none)
	held    chan struct{}    // closed when the loop is held
	release chan struct{}    // close to let it go on
}

func (g *gatedEmitter) Emit(ev Event) {
	g.mu.Lock()
	h := g.hold
	if h != nil && h(ev) {
		g.hold = nil
	} else {
		h = nil
	}
	g.mu.Unlock()
	if h != nil {
		close(g.held)
		<-g.release
	}
	g.events.Emit(ev)
}

// TestCoreTakesNoCancelledCallsAnswer: a model call's answer already on its
// way to the loop when the person edits the goal (which re-enters
// Planning: the call is cancelled and another started) is not taken as the
// new call's: both are Planning's results, and only the invocation's id
// tells them apart (the interpreter's, chart_invoke.go). Named TestCore so
// `make mutants` runs it.
func TestCoreTakesNoCancelledCallsAnswer(t *testing.T) {
	answer, asking := make(chan struct{}), make(chan struct{})
	old := func(ctx context.Context, in model.Input) (model.Plan, error) {
		close(asking) // its streamed thought is told: nothing more to emit till it answers
		<-answer
		return model.Plan{Thought: "for the old goal", Actions: []action.Action{finish("the old goal")}, Raw: "raw"}, nil
	}
	g := &gatedEmitter{events: newEvents(), held: make(chan struct{}), release: make(chan struct{})}
	planner := &fakePlanner{script: []step{old, reply(finish("the new goal"))}}
	r, err := New(Config{ID: "run1", Goal: "count to three", Device: newFakePhone(), Planner: planner,
		DataDir: t.TempDir(), Emitter: g, Settings: Settings{Stability: StabilityConfig{Interval: 10 * time.Millisecond, StableFrames: 2, Max: time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	released := false
	t.Cleanup(func() {
		if !released {
			close(g.release)
		}
		_ = r.Stop(context.Background())
		<-r.Done()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	<-asking // the first call is under way

	// Hold the loop in a turn that does not touch the call (a graceful
	// stop, told as a state); queue the goal's edit, then the call's answer.
	g.mu.Lock()
	g.hold = func(ev Event) bool {
		return ev.Kind == KindState && ev.State.Why != nil && ev.State.Why.Code == CauseStoppingGracefully
	}
	g.mu.Unlock()
	go func() { _ = r.StopGracefully(ctx, 5) }()
	waitUntil(t, ctx, "the loop held", func() bool {
		select {
		case <-g.held:
			return true
		default:
			return false
		}
	})
	go func() { _ = r.EditGoal(ctx, "count to one") }()
	waitUntil(t, ctx, "the edit queued", func() bool { return len(r.msgs) == 1 })
	close(answer)
	waitUntil(t, ctx, "the old call's answer queued behind it", func() bool { return len(r.msgs) == 2 })
	released = true
	close(g.release)

	res, err := r.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.State != Done || res.Summary != "the new goal" {
		t.Fatalf("result %+v: the cancelled call's answer was taken", res)
	}
}

// waitUntil polls ok until it holds or ctx ends.
func waitUntil(t *testing.T, ctx context.Context, what string, ok func() bool) {
	t.Helper()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !ok() {
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not within the deadline", what)
		case <-tick.C:
		}
	}
}
