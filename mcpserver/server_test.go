package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/sashabaranov/go-openai"

	"tandem/backend"
	"tandem/engine"
	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// rig is a backend over a private adb server with one virtual phone, its
// model profile pointing at a scripted model, and an MCP client talking
// to Tandem's server in memory.
type rig struct {
	b     *backend.Backend
	phone *vphone.Phone
	env   vphonetest.Env
}

func newRig(t *testing.T, opts ...vphone.Option) *rig {
	t.Helper()
	phone, env := vphonetest.Start(t, append([]vphone.Option{vphone.WithSize(360, 800)}, opts...)...)
	b := backend.New(backend.Config{ConfigDir: t.TempDir(), DataDir: t.TempDir(), KeyFile: true, ADB: "127.0.0.1:" + strconv.Itoa(env.Port)})
	t.Cleanup(b.Shutdown)
	return &rig{b: b, phone: phone, env: env}
}

// model saves a profile for srv and makes it the person's model.
func (r *rig) model(t *testing.T, srv *modeltest.Server) {
	t.Helper()
	p, err := r.b.SaveProfile(backend.Profile{Name: "scripted", BaseURL: srv.URL, Model: "scripted", Dialect: "tools", Variant: "rel1000"}, "sk-mcp-0000")
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := r.b.GetSettings()
	if err != nil {
		t.Fatal(err)
	}
	s := loaded.Settings
	s.ActiveProfile = p.ID
	if _, err := r.b.SaveSettings(s); err != nil {
		t.Fatal(err)
	}
}

// client connects an MCP client (with opts) to Tandem's server over b:
// in memory, or with TANDEM_MCP_TEST_HTTP set over Streamable HTTP behind
// the token (TestEverythingOverHTTP runs the tests that way).
func (r *rig) client(t *testing.T, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	var ct mcp.Transport
	if os.Getenv(overHTTP) != "" {
		ct = r.overHTTP(t)
	} else {
		var st mcp.Transport
		ct, st = mcp.NewInMemoryTransports()
		ss, err := New(r.b, Options{}).Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

const overHTTP = "TANDEM_MCP_TEST_HTTP"

// overHTTP serves Tandem's server over Streamable HTTP on 127.0.0.1 with a
// token, as the app does, and returns a client transport that sends it.
func (r *rig) overHTTP(t *testing.T) mcp.Transport {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	token, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	srv := &http.Server{Handler: Handler(New(r.b, Options{}), token, port), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return &mcp.StreamableClientTransport{Endpoint: "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp", MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{token}}}
}

// bearer sends the token with every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// The same promises over Streamable HTTP with the Go SDK's client: every
// test of this file again, each in a process of its own with the server
// behind the token.
func TestEverythingOverHTTP(t *testing.T) {
	if os.Getenv(overHTTP) != "" {
		t.Skip("already over HTTP")
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^Test(RunTaskReportsEveryStep|APaymentAsksThePersonThroughTheClient|WithoutElicitationTheRunWaitsForThePerson|CancellingTheCallStopsTheRun)$", "-test.v")
	cmd.Env = append(os.Environ(), overHTTP+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Count(string(out), "--- PASS") < 4 {
		t.Fatalf("over HTTP: %v\n%s", err, out)
	}
}

func call(name, args string) openai.ToolCall {
	return openai.ToolCall{ID: "c-" + name, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}
}

// at is the centre of the element id (or text) in the tools dialect's
// 0-1000 grid.
func at(t *testing.T, p *vphone.Phone, id string) string {
	t.Helper()
	b, ok := p.Bounds(id)
	if !ok {
		b, ok = p.BoundsOfText(id)
	}
	if !ok {
		t.Fatalf("no %q on the phone", id)
	}
	w, h := p.Size()
	c := b.Min.Add(b.Max).Div(2)
	return fmt.Sprintf(`{"x":%d,"y":%d}`, c.X*1000/w, c.Y*1000/h)
}

// runOut reads a tool's structured result.
func runOut(t *testing.T, res *mcp.CallToolResult) RunOut {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %+v", res.Content)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var o RunOut
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatal(err)
	}
	return o
}

func taps(p *vphone.Phone) int {
	n := 0
	for _, e := range p.Events() {
		if e.Kind == "tap" {
			n++
		}
	}
	return n
}

// run_task runs Tandem's own agent to Done and reports each step once as
// progress; the record names the client that started it.
func TestRunTaskReportsEveryStep(t *testing.T) {
	r := newRig(t)
	if err := r.phone.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	plus := at(t, r.phone, "+1")
	r.model(t, modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply {
		if r.phone.State().Counter < 2 {
			return modeltest.Reply{Content: "Tap +1.", ToolCalls: []openai.ToolCall{call("tap", plus)}}
		}
		return modeltest.Reply{Content: "Done.", ToolCalls: []openai.ToolCall{call("finish", `{"summary":"The counter shows 2.","success":true}`)}}
	}))
	var mu sync.Mutex
	var progress []string
	cs := r.client(t, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		progress = append(progress, req.Params.Message)
		mu.Unlock()
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	params := &mcp.CallToolParams{Name: "run_task", Arguments: map[string]any{"device": r.env.Serial, "goal": "Make the counter show 2"}}
	params.SetProgressToken("p1")
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	o := runOut(t, res)
	if o.State != "Done" || !o.Success || o.Steps != 2 || r.phone.State().Counter != 2 || !strings.HasPrefix(o.Record, "tandem://runs/") {
		t.Fatalf("run_task: %+v (counter %d)", o, r.phone.State().Counter)
	}
	mu.Lock()
	defer mu.Unlock()
	// Each says what it pressed, by the words on it.
	if len(progress) != o.Steps || !strings.Contains(progress[0], "step 1: tap(") || !strings.Contains(progress[0], ") “+1” → ok") {
		t.Fatalf("progress %q for %d steps", progress, o.Steps)
	}
	d, err := r.b.RunSteps(o.ID)
	if err != nil || len(d.Steps) != 2 || d.Run.StartedBy != "mcp:test-agent" {
		t.Fatalf("the record (want 2 steps, started by the client): %+v %v", d.Run, err)
	}
	rec, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: o.Record})
	if err != nil || !strings.Contains(rec.Contents[0].Text, "Make the counter show 2") {
		t.Fatalf("the record as a resource: %v", err)
	}
	rep, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: o.Record + "/report"})
	if err != nil || !strings.Contains(rep.Contents[0].Text, "<html") {
		t.Fatalf("the report as a resource: %v", err)
	}
}

// shop opens the shop and scripts a model that presses Pay until paid or
// told no, then finishes (or gives up after a refusal).
func (r *rig) shop(t *testing.T) {
	t.Helper()
	if err := r.phone.Launch(vphone.PkgShop); err != nil {
		t.Fatal(err)
	}
	pay := at(t, r.phone, "pay_button")
	r.model(t, modeltest.NewFunc(t, func(req modeltest.Request) modeltest.Reply {
		switch {
		case r.phone.State().Paid:
			return modeltest.Reply{Content: "Paid.", ToolCalls: []openai.ToolCall{call("finish", `{"summary":"Paid.","success":true}`)}}
		case strings.Contains(req.Text(), "declined") || strings.Contains(req.Text(), "canceled") || strings.Contains(req.Text(), "said no") ||
			strings.Contains(req.Text(), "not that card"):
			return modeltest.Reply{Content: "The person said no.", ToolCalls: []openai.ToolCall{call("finish", `{"summary":"Not paid.","success":false}`)}}
		}
		return modeltest.Reply{Content: "Pay.", ToolCalls: []openai.ToolCall{call("tap", pay)}}
	}))
}

// A payment asks the person through the client (elicitation), worded for
// a human; only their yes presses it, once. A no, a decline or a cancelled
// form never press it.
func TestAPaymentAsksThePersonThroughTheClient(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer *mcp.ElicitResult
		paid   bool
	}{
		{"yes", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"choice": "allow"}}, true},
		{"no", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"choice": "deny", "text": "not that card"}}, false},
		{"declined", &mcp.ElicitResult{Action: "decline"}, false},
		{"cancelled", &mcp.ElicitResult{Action: "cancel"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			r.shop(t)
			var asked []string
			cs := r.client(t, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked = append(asked, req.Params.Message)
				return c.answer, nil
			}})
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_task", Arguments: map[string]any{"device": r.env.Serial, "goal": "Buy the earbuds"}})
			if err != nil {
				t.Fatal(err)
			}
			o := runOut(t, res)
			if len(asked) != 1 || !strings.Contains(asked[0], `tap "Pay ¥99"`) || !strings.Contains(asked[0], "Buy the earbuds") || !strings.Contains(asked[0], "Allow it?") {
				t.Fatalf("asked %q", asked)
			}
			if paid := r.phone.State().Paid; paid != c.paid || o.Ended != true || (c.paid && taps(r.phone) != 1) {
				t.Fatalf("paid %v after %s (taps %d), run %+v", paid, c.name, taps(r.phone), o)
			}
			raw := recordText(t, r.b, o.ID)
			if !strings.Contains(raw, `"via":"the person, asked through test-agent (MCP elicitation)"`) {
				t.Fatalf("the record does not say who answered:\n%s", raw)
			}
		})
	}
}

// With Settings' "confirmations in the window only", a client that would
// answer yes is not asked: the run waits for the person in the window,
// nothing is pressed.
func TestConfirmationsStayInTheWindowWhenSettingsSaySo(t *testing.T) {
	r := newRig(t)
	if _, err := r.b.UpdateSettings(map[string]json.RawMessage{"confirm_in_window_only": json.RawMessage("true")}); err != nil {
		t.Fatal(err)
	}
	r.shop(t)
	asked := make(chan string, 4)
	logged := make(chan string, 16)
	cs := r.client(t, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked <- req.Params.Message
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"choice": "allow"}}, nil
	}, LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) { //nolint:staticcheck // the server logs as the versions it serves allow (ask.go)
		if s, ok := req.Params.Data.(string); ok {
			logged <- s
		}
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	//nolint:staticcheck // the server logs as the versions it serves allow (ask.go)
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	go func() {
		_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_task", Arguments: map[string]any{"device": r.env.Serial, "goal": "Buy the earbuds"}})
	}()
	// The server says it leaves the confirmation to the window: from then
	// on the client was either asked already or never will be.
	for m := ""; !strings.Contains(m, "Settings keep confirmations there"); {
		select {
		case m = <-logged:
		case <-ctx.Done():
			t.Fatal("the server never said the confirmation waits in the window")
		}
	}
	select {
	case m := <-asked:
		t.Fatalf("the client was asked: %q", m)
	default:
	}
	var run *backend.RunHandle
	for _, s := range r.b.ActiveRuns() {
		run, _ = r.b.Run(s.ID, backend.ByWindow())
	}
	if r.phone.State().Paid || run.State() != engine.WaitingForUser {
		t.Fatalf("paid %v, state %s", r.phone.State().Paid, run.State())
	}
	_ = run.Stop(ctx)
}

// A client that cannot ask its human never stands in for them: the run
// waits, get_run says for what and how the person can answer, nothing is
// pressed; stop_run ends it.
func TestWithoutElicitationTheRunWaitsForThePerson(t *testing.T) {
	r := newRig(t)
	r.shop(t)
	cs := r.client(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make(chan RunOut, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_task", Arguments: map[string]any{"device": r.env.Serial, "goal": "Buy the earbuds"}})
		if err != nil {
			t.Error(err)
			done <- RunOut{}
			return
		}
		done <- runOut(t, res)
	}()
	var id string
	for id == "" {
		for _, s := range r.b.ActiveRuns() {
			id = s.ID
		}
		time.Sleep(10 * time.Millisecond) // polling until the run is there
	}
	var got RunOut
	for got.Waiting == nil {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_run", Arguments: map[string]any{"id": id}})
		if err != nil {
			t.Fatal(err)
		}
		got = runOut(t, res)
		if ctx.Err() != nil {
			t.Fatal("the run never waited for the person")
		}
		time.Sleep(20 * time.Millisecond) // polling get_run as a client would
	}
	if got.Waiting.Kind != "confirm" || got.State != "WaitingForUser" || !strings.Contains(got.Waiting.How, "window") || r.phone.State().Paid {
		t.Fatalf("get_run while waiting: %+v %+v (paid %v)", got, got.Waiting, r.phone.State().Paid)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "stop_run", Arguments: map[string]any{"id": id}}); err != nil {
		t.Fatal(err)
	}
	if o := <-done; o.State != "Stopped" || r.phone.State().Paid || taps(r.phone) != 0 {
		t.Fatalf("after stop_run: %+v, paid %v, taps %d", o, r.phone.State().Paid, taps(r.phone))
	}
}

// Cancelling run_task is a hard Stop: once the server has the client's
// cancellation the run is Stopped while its model call is still out, and
// no input reaches the phone when the model answers afterwards. The record
// says the client stopped it, not the person (issue 49).
func TestCancellingTheCallStopsTheRun(t *testing.T) {
	r := newRig(t)
	if err := r.phone.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	plus := at(t, r.phone, "+1")
	release := make(chan struct{})
	var asked sync.Once
	calling := make(chan struct{})
	r.model(t, modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply {
		asked.Do(func() { close(calling) })
		<-release // the model answers only once the call is cancelled
		return modeltest.Reply{Content: "Tap +1.", ToolCalls: []openai.ToolCall{call("tap", plus)}}
	}))
	var freed sync.Once
	free := func() { freed.Do(func() { close(release) }) }
	t.Cleanup(free) // a failing test ends the model's call too
	cs := r.client(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_task", Arguments: map[string]any{"device": r.env.Serial, "goal": "Make the counter show 1"}})
		errc <- err
	}()
	<-calling
	cancel()
	<-errc // the client gives up at once; the server hears of it a moment later
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := r.b.ActiveRuns()
		if len(s) == 1 && s[0].State.Terminal() {
			if s[0].State.String() != "Stopped" {
				t.Fatalf("the run ended %s", s[0].State)
			}
			raw := recordText(t, r.b, s[0].ID)
			for !strings.Contains(raw, `"kind":"end"`) && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond) // the state is told a moment before the record's end is written
				raw = recordText(t, r.b, s[0].ID)
			}
			if !strings.Contains(raw, `"why":{"code":"stopped_by_client","detail":"test-agent"}`) ||
				strings.Contains(raw, "stopped_by_person") {
				t.Fatalf("the record does not say the client stopped the run:\n%s", raw)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run did not stop: %+v", s)
		}
		time.Sleep(10 * time.Millisecond) // polling until the stop has landed
	}
	free()                             // the model answers now, too late
	time.Sleep(300 * time.Millisecond) // a window for a late tap to land, which it must not
	if n := taps(r.phone); n != 0 || r.phone.State().Counter != 0 {
		t.Fatalf("%d taps after the cancelled call", n)
	}
}

// recordText is run id's record as written.
func recordText(t *testing.T, b *backend.Backend, id string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(b.Config().Runs(), id, "record.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
