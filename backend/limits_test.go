package backend

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"tandem/engine"
	"tandem/engine/model"
	"tandem/internal/modeltest"
	"tandem/vphone/vphonetest"
)

// gatedModel answers each run's request with finish once the test opens
// that run's gate (its goal names it), and records the order in which the
// requests came.
type gatedModel struct {
	srv   *modeltest.Server
	mu    sync.Mutex
	gates map[string]chan struct{}
}

func newGatedModel(t *testing.T, goals ...string) *gatedModel {
	g := &gatedModel{gates: map[string]chan struct{}{}}
	for _, goal := range goals {
		g.gates[goal] = make(chan struct{})
	}
	g.srv = modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		if gate := g.gate(r.Text()); gate != nil {
			select {
			case <-gate:
			case <-time.After(time.Minute):
			}
		}
		return modeltest.Reply{Content: "Done.", ToolCalls: []openai.ToolCall{{ID: "f", Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "finish", Arguments: `{"summary":"done","success":true}`}}}}
	})
	return g
}

func (g *gatedModel) gate(text string) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	for goal, c := range g.gates {
		if strings.Contains(text, goal) {
			return c
		}
	}
	return nil
}

// order is the goals of the requests for model, in the order they came.
func (g *gatedModel) order(model string) []string {
	var out []string
	for _, r := range g.srv.Requests() {
		if r.Chat.Model != model {
			continue
		}
		for goal := range g.gates {
			if strings.Contains(r.Text(), goal) {
				out = append(out, goal)
			}
		}
	}
	return out
}

// phonesBackend is a backend over a private adb server with n virtual
// phones started as the window starts them.
func phonesBackend(t *testing.T, n int) (*Backend, []string) {
	t.Helper()
	_, port := vphonetest.StartServer(t)
	t.Setenv("ADB_LOCAL_TRANSPORT_MAX_PORT", "0")
	b := New(Config{ConfigDir: t.TempDir(), DataDir: t.TempDir(), KeyFile: true, ADB: "127.0.0.1:" + strconv.Itoa(port)})
	t.Cleanup(b.Shutdown)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var ids []string
	for range n {
		e, err := b.StartVirtualPhone(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	return b, ids
}

// until polls cond with a generous deadline.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ahead is how many requests the run's model call waits behind (-1: it
// does not wait in the queue).
func ahead(run *engine.Run) int {
	if w := run.Snapshot().Waiting; w != nil && w.Ahead > 0 {
		return w.Ahead
	}
	return -1
}

// Four runs on one profile of one request at a time, and one on another
// model of the same server: the server never answers two of the profile's
// requests at once; each waiting run says how many are ahead of it; a
// queued run that is stopped frees no slot (the one behind it moves up but
// still waits), one that is paused leaves the queue at once, and the rest
// go in the order they came; the other model is not held up.
func TestRunsOnOneModelQueue(t *testing.T) {
	goals := []string{"task A", "task B", "task C", "task D", "task Other"}
	m := newGatedModel(t, goals...)
	b, phones := phonesBackend(t, len(goals))
	one, alias, other := queueProfiles(t, b, m.srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	runs := map[string]*engine.Run{}
	start := func(goal, phone string, p Profile) {
		t.Helper()
		snap, err := b.StartRun(ctx, phone, goal, RunChoice{Profile: p.ID})
		if err != nil {
			t.Fatal(err)
		}
		if runs[goal], err = b.runs.Get(snap.ID); err != nil {
			t.Fatal(err)
		}
	}
	start("task A", phones[0], one)
	until(t, "A's request at the server", func() bool { return len(m.order("local")) == 1 })
	start("task B", phones[1], alias)
	until(t, "B waiting with 1 ahead", func() bool { return ahead(runs["task B"]) == 1 })
	start("task C", phones[2], one)
	until(t, "C waiting with 2 ahead", func() bool { return ahead(runs["task C"]) == 2 })
	start("task D", phones[3], one)
	until(t, "D waiting with 3 ahead", func() bool { return ahead(runs["task D"]) == 3 })

	// Another model on the same server goes at once.
	start("task Other", phones[4], other)
	until(t, "the other model's request at the server", func() bool { return len(m.order("other")) == 1 })
	close(m.gates["task Other"])
	if res, err := runs["task Other"].Wait(ctx); err != nil || res.State != engine.Done {
		t.Fatalf("the other model's run: %+v %v", res, err)
	}

	leaveTheQueue(ctx, t, b.limits.of(one, false), m, runs)

	// A answers: B goes, then D.
	for _, goal := range []string{"task A", "task B", "task D"} {
		close(m.gates[goal])
		if res, err := runs[goal].Wait(ctx); err != nil || res.State != engine.Done {
			t.Fatalf("%s: %+v %v", goal, res, err)
		}
	}
	if got := strings.Join(m.order("local"), ", "); got != "task A, task B, task D" {
		t.Fatalf("the requests reached the server as %s", got)
	}
	if n := m.srv.MaxActive("local"); n != 1 {
		t.Fatalf("the server answered %d requests of the one-at-a-time model at once", n)
	}
	if s := runs["task C"].Snapshot().State; s != engine.Stopped {
		t.Fatalf("C is %s", s)
	}
	if l := b.limits.of(one, false); l.InFlight() != 0 || l.Queued() != 0 {
		t.Fatalf("%d in flight and %d queued at the end", l.InFlight(), l.Queued())
	}
}

// queueProfiles saves three profiles of url: one request at a time of
// model "local", another name for the same server and model (its URL
// typed with a slash at the end), and another model of the same server.
func queueProfiles(t *testing.T, b *Backend, url string) (one, alias, other Profile) {
	t.Helper()
	save := func(name, url, model string) Profile {
		p, err := b.SaveProfile(Profile{Name: name, BaseURL: url, Model: model, Dialect: "tools", Variant: "rel1000", MaxInFlight: 1}, "")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	return save("one at a time", url, "local"), save("same server", url+"/", "local"), save("other model", url, "other")
}

// leaveTheQueue: with A in flight and B, C, D queued, C is stopped and D
// paused and resumed.
func leaveTheQueue(ctx context.Context, t *testing.T, l *model.Limiter, m *gatedModel, runs map[string]*engine.Run) {
	t.Helper()
	// C is stopped while it waits: D moves up, B keeps its place, and
	// nothing more reaches the server while A holds the one slot.
	if err := runs["task C"].Stop(ctx); err != nil {
		t.Fatal(err)
	}
	until(t, "D waiting with 2 ahead", func() bool { return ahead(runs["task D"]) == 2 })
	if a := ahead(runs["task B"]); a != 1 {
		t.Fatalf("B waits with %d ahead after C left behind it", a)
	}
	if got := m.order("local"); len(got) != 1 {
		t.Fatalf("the stopped run's place let %v through while A holds the slot", got)
	}

	// D is paused while it waits: it leaves the queue at once; resumed, it
	// queues again at the back.
	if err := runs["task D"].Pause(ctx); err != nil {
		t.Fatal(err)
	}
	until(t, "D out of the queue", func() bool { return l.Queued() == 1 })
	if l.InFlight() != 1 || ahead(runs["task B"]) != 1 {
		t.Fatalf("after the pause: %d in flight, B %d ahead", l.InFlight(), ahead(runs["task B"]))
	}
	if err := runs["task D"].Resume(ctx); err != nil {
		t.Fatal(err)
	}
	until(t, "D waiting with 2 ahead again", func() bool { return ahead(runs["task D"]) == 2 })
}

// The form's field: a limit outside 0–256 is refused next to the field;
// local servers' presets start at one request at a time.
func TestMaxInFlightField(t *testing.T) {
	b := testApp(t)
	for _, n := range []int{-1, 257} {
		_, err := b.SaveProfile(Profile{Name: "x", BaseURL: "http://127.0.0.1:1/v1", Model: "m", Dialect: "tools", MaxInFlight: n}, "")
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "max_in_flight" {
			t.Fatalf("limit %d: %v", n, err)
		}
	}
	want := map[string]int{"ollama": 1, "lmstudio": 1, "vllm": 0, "openai": 0}
	for _, p := range b.Presets() {
		if n, ok := want[p.ID]; ok && p.MaxInFlight != n {
			t.Errorf("preset %s starts at %d requests at once, want %d", p.ID, p.MaxInFlight, n)
		}
	}
}

// The limit is the saved profile's: another profile of the same server
// and model (however its URL is typed) shares it and an edit counts from
// the next run, but a model a door gave in full does not lift it.
func TestTheLimitIsPerServerAndModel(t *testing.T) {
	b := testApp(t)
	p, err := b.SaveProfile(Profile{Name: "local", BaseURL: "http://127.0.0.1:1/v1", Model: "m", Dialect: "tools", MaxInFlight: 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.RunSetup(RunChoice{Profile: p.ID}); err != nil {
		t.Fatal(err)
	}
	l := b.limits.of(p, false)
	given := Profile{Name: "given", BaseURL: "HTTP://127.0.0.1:1/v1/", Model: "m", Dialect: "tools"}
	if _, err := b.RunSetup(RunChoice{Model: &given}); err != nil {
		t.Fatal(err)
	}
	if b.limits.of(given, false) != l || l.Max() != 1 {
		t.Fatalf("the door's model lifted the limit to %d (same limiter: %v)", l.Max(), b.limits.of(given, false) == l)
	}
	p.MaxInFlight = 2
	if _, err := b.SaveProfile(p, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := b.RunSetup(RunChoice{Profile: p.ID}); err != nil || l.Max() != 2 {
		t.Fatalf("after the edit the limit is %d (%v)", l.Max(), err)
	}
	other := p
	other.Model = "n"
	if b.limits.of(other, false) == l {
		t.Fatal("another model shares the limit")
	}
}
