package engine

import (
	"context"
	"fmt"
	"image"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"tandem/devices/adb"
	"tandem/engine/device"
	"tandem/engine/model"
	"tandem/engine/model/dialect"
	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// A rig is a virtual phone behind a private, real adb server, reached with
// the real ADB driver: what the scenarios and benchmarks run on.
type rig struct {
	t     testing.TB
	phone *vphone.Phone
	env   vphonetest.Env
	w, h  int
}

// testPhoneSize keeps screenshots cheap under -race (a 1080×2400 PNG takes
// about a second to encode and decode there); the layouts scale with width.
var testPhoneSize = vphone.WithSize(360, 800)

// fastStability keeps the scenarios quick: the virtual phone's screens
// settle at once unless they animate.
var fastStability = StabilityConfig{Interval: 20 * time.Millisecond, StableFrames: 2, Max: 2 * time.Second}

func newRig(t testing.TB, opts ...vphone.Option) *rig {
	t.Helper()
	phone, env := vphonetest.Start(t, append([]vphone.Option{testPhoneSize}, opts...)...)
	w, h := phone.Size()
	return &rig{t: t, phone: phone, env: env, w: w, h: h}
}

// addPhone starts one more phone on the same private adb server.
func (g *rig) addPhone(opts ...vphone.Option) *rig {
	g.t.Helper()
	p, err := vphone.New(append([]vphone.Option{testPhoneSize}, opts...)...)
	if err != nil {
		g.t.Fatal(err)
	}
	if err := p.Listen("127.0.0.1:0"); err != nil {
		g.t.Fatal(err)
	}
	g.t.Cleanup(func() { p.Close() })
	env := g.env
	env.Serial, env.Address = p.Addr(), p.Addr()
	if err := vphonetest.Connect(context.Background(), env); err != nil {
		g.t.Fatal(err)
	}
	w, h := p.Size()
	return &rig{t: g.t, phone: p, env: env, w: w, h: h}
}

// open opens the phone with the ADB driver through the adb server.
func (g *rig) open() *adb.Device {
	g.t.Helper()
	dev, err := adb.Open(context.Background(), adb.Options{Server: adb.Server{Addr: "127.0.0.1:" + strconv.Itoa(g.env.Port)},
		Serial: g.env.Serial, StateDir: g.t.TempDir()})
	if err != nil {
		g.t.Fatal(err)
	}
	return dev
}

func (g *rig) launch(pkg string) {
	g.t.Helper()
	if err := g.phone.Launch(pkg); err != nil {
		g.t.Fatal(err)
	}
}

// center is the centre of the node with resource id or text s, in pixels.
func (g *rig) center(s string) image.Point {
	g.t.Helper()
	b, ok := g.phone.Bounds(s)
	if !ok {
		b, ok = g.phone.BoundsOfText(s)
	}
	if !ok {
		g.t.Fatalf("no %q on the phone's screen (%s)", s, g.phone.State().Foreground)
	}
	return b.Min.Add(b.Max).Div(2)
}

// at is tool arguments pointing at s, in the rel1000 space the tools
// dialect uses.
func (g *rig) at(s string) string {
	c := g.center(s)
	return fmt.Sprintf(`{"x":%d,"y":%d}`, c.X*1000/g.w, c.Y*1000/g.h)
}

func call(name, args string) openai.ToolCall {
	return openai.ToolCall{ID: "c-" + name, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}
}

func tools(content string, calls ...openai.ToolCall) modeltest.Reply {
	return modeltest.Reply{Content: content, ToolCalls: calls}
}

func finishCall(summary string) openai.ToolCall {
	return call("finish", fmt.Sprintf(`{"summary":%q,"success":true}`, summary))
}

// plannerOpts are the knobs of the real planner a scenario uses.
type plannerOpts struct {
	noStream bool
	dialect  string // "tools" (rel1000) unless set
	client   func(*model.ClientConfig)
}

// planner is the real chat planner (tools dialect, rel1000) talking to srv.
func planner(t testing.TB, srv *modeltest.Server, o plannerOpts) model.Planner {
	t.Helper()
	cfg := model.ClientConfig{BaseURL: srv.URL, Model: "scripted", Backoff: 10 * time.Millisecond, MaxBackoff: 200 * time.Millisecond}
	if o.client != nil {
		o.client(&cfg)
	}
	c, err := model.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	name, coords := "tools", "rel1000"
	if o.dialect != "" {
		name, coords = o.dialect, ""
	}
	d, err := dialect.New(name, coords)
	if err != nil {
		t.Fatal(err)
	}
	return model.NewPlanner(c, d, model.PlannerOptions{NoStream: o.noStream})
}

// scenario is one run on a rig with a scripted model server.
type scenario struct {
	t   testing.TB
	g   *rig
	srv *modeltest.Server
	ev  *events
	run *Run
	dir string
}

func (g *rig) start(srv *modeltest.Server, goal string, settings Settings, o plannerOpts) *scenario {
	g.t.Helper()
	ev := newEvents()
	return g.startWith(srv, goal, settings, o, ev, ev)
}

// startWith is start with the events recorded in ev and emitted to em (an
// emitter of the test's own that passes them on to ev).
func (g *rig) startWith(srv *modeltest.Server, goal string, settings Settings, o plannerOpts, ev *events, em Emitter) *scenario {
	g.t.Helper()
	if settings.Stability.Interval == 0 {
		settings.Stability = fastStability
	}
	s := &scenario{t: g.t, g: g, srv: srv, ev: ev, dir: g.t.TempDir()}
	r, err := New(Config{Goal: goal, Device: g.open(), Planner: planner(g.t, srv, o), DataDir: s.dir, Emitter: em, Settings: settings})
	if err != nil {
		g.t.Fatal(err)
	}
	s.run = r
	g.t.Cleanup(func() {
		_ = r.Stop(context.Background())
		<-r.Done()
	})
	if err := r.Start(context.Background()); err != nil {
		g.t.Fatal(err)
	}
	return s
}

func (s *scenario) wait() Result { return s.waitUpTo(30 * time.Second) }

func (s *scenario) waitUpTo(d time.Duration) Result {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	res, err := s.run.Wait(ctx)
	if err != nil {
		s.t.Fatalf("run did not end: %v; states %v", err, s.ev.states())
	}
	return res
}

// request returns the model request number n (1-based), waiting for it.
func (s *scenario) request(n int) modeltest.Request {
	s.t.Helper()
	waitFor(s.t, fmt.Sprintf("model request %d", n), func() bool { return len(s.srv.Requests()) >= n })
	return s.srv.Requests()[n-1]
}

// waitFor polls cond until it holds, failing the test after 20 s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// stepsOf returns the executed device actions of the run's step events.
func (s *scenario) steps() []StepEvent {
	var out []StepEvent
	for _, e := range s.ev.kinds(KindStep) {
		out = append(out, *e.Step)
	}
	return out
}

// mustContain fails unless text contains every want.
func mustContain(t testing.TB, what, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Fatalf("%s does not contain %q:\n%s", what, w, text)
		}
	}
}

// timedServer answers from a script and notes when each request arrived.
type timedServer struct {
	*modeltest.Server
	mu sync.Mutex
	at []time.Time
}

func newTimedServer(t testing.TB, script ...modeltest.Reply) *timedServer {
	ts := &timedServer{}
	var i int
	ts.Server = modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		ts.at = append(ts.at, time.Now())
		if i >= len(script) {
			t.Errorf("request %d is beyond the script of %d replies", r.Attempt, len(script))
			return modeltest.Reply{Status: 500, Message: "script exhausted"}
		}
		i++
		return script[i-1]
	})
	return ts
}

func (ts *timedServer) times() []time.Time {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]time.Time(nil), ts.at...)
}

var _ device.Device = (*adb.Device)(nil)
