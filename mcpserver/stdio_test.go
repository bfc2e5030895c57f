package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"tandem/internal/modeltest"
	"tandem/vphone"
)

// stdio is `tandem mcp`'s door driven line by line, as a client writes it.
type stdio struct {
	t       *testing.T
	in      *io.PipeWriter
	replies chan map[string]any
	served  chan error // Serve's return
}

func serveStdio(t *testing.T, r *rig) *stdio {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, r.b, inR, outW) }()
	s := &stdio{t: t, in: inW, replies: make(chan map[string]any, 64), served: served}
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("the server wrote a line that is not JSON: %q", sc.Text())
				continue
			}
			s.replies <- m
		}
		close(s.replies)
	}()
	t.Cleanup(func() {
		cancel()
		_ = inW.Close()
		_ = outR.Close()
		select {
		case <-served:
		case <-time.After(20 * time.Second):
			t.Error("Serve did not return once its context ended")
		}
	})
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw-client","version":"1"}}}`)
	if m := s.next(); m["id"] != float64(1) || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *stdio) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("the server no longer reads: %v", err)
	}
}

// next is the server's next message (a reply or a notification).
func (s *stdio) next() map[string]any {
	s.t.Helper()
	select {
	case m, ok := <-s.replies:
		if !ok {
			s.t.Fatal("the server closed its output")
		}
		return m
	case <-time.After(20 * time.Second):
		s.t.Fatal("no answer from the server")
	}
	return nil
}

// reply is the answer with id (nil: id null), skipping notifications.
func (s *stdio) reply(id any) map[string]any {
	s.t.Helper()
	for {
		m := s.next()
		if _, isReply := m["id"]; isReply && m["id"] == id {
			return m
		}
		if _, isReply := m["id"]; isReply {
			s.t.Fatalf("answer %v before the one to id %v", m, id)
		}
	}
}

func errorCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

// One bad line never ends `tandem mcp` (issue 49): garbage, cut JSON, a
// batch, an object id, another JSON-RPC version, deep nesting or a line
// over 16 MiB is answered with the JSON-RPC error (id null) and the
// session goes on: the next tools/list is answered, and a run in flight
// is not stopped.
func TestABadLineIsAnsweredAndTheSessionGoesOn(t *testing.T) {
	r := newRig(t)
	if err := r.phone.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	release, calling := make(chan struct{}), make(chan struct{}, 8)
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	r.model(t, modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply {
		calling <- struct{}{}
		<-release
		return modeltest.Reply{Content: "Done.", ToolCalls: []openai.ToolCall{call("finish", `{"summary":"ok","success":true}`)}}
	}))
	t.Cleanup(free) // before the model server's clean-up, which waits for this call
	s := serveStdio(t, r)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_task","arguments":{"device":"` + r.env.Serial + `","goal":"Wait"}}}`)
	select {
	case <-calling:
	case <-time.After(30 * time.Second):
		t.Fatal("the run never asked its model")
	}
	deep := `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"a":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}}`
	huge := `{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", 17<<20) + `"}}`
	for i, c := range []struct {
		name, line string
		code       float64
	}{
		{"garbage", "garbage", -32700},
		{"cut JSON", `{"jsonrpc":"2.0","id":3,"method":"tools/li`, -32700},
		{"a batch", `[{"jsonrpc":"2.0","id":4,"method":"tools/list"}]`, -32600},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, -32600},
		{"JSON-RPC 1.0", `{"jsonrpc":"1.0","id":5,"method":"tools/list"}`, -32600},
		{"neither a request nor a reply", `{"jsonrpc":"2.0","id":6}`, -32600},
		{"a number", `42`, -32600},
		{"deep nesting", deep, -32600},
		{"a line over 16 MiB", huge, -32600},
	} {
		s.send(c.line)
		if m := s.reply(nil); errorCode(m) != c.code {
			t.Fatalf("%s: answered %v, want the error %v", c.name, m, c.code)
		}
		s.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(100+i) + `,"method":"tools/list"}`)
		if m := s.reply(float64(100 + i)); m["result"] == nil {
			t.Fatalf("after %s, tools/list: %v", c.name, m)
		}
	}
	for _, run := range r.b.ActiveRuns() {
		if run.State.Terminal() {
			t.Fatalf("the run in flight ended: %s", run.State)
		}
	}
	free()
	if m := s.reply(float64(2)); m["result"] == nil {
		t.Fatalf("run_task: %v", m)
	}
}

// A client that leaves with a run in flight (its stdin ends) stops that
// run as the client's, not the person's, even with the process shutting
// its backend down the moment Serve returns, as `tandem mcp` does.
func TestAClientThatLeavesStopsItsRunAsItsOwn(t *testing.T) {
	r := newRig(t)
	if err := r.phone.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	release, calling := make(chan struct{}), make(chan struct{}, 8)
	r.model(t, modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply {
		calling <- struct{}{}
		<-release
		return modeltest.Reply{Content: "Done.", ToolCalls: []openai.ToolCall{call("finish", `{"summary":"ok","success":true}`)}}
	}))
	t.Cleanup(func() { close(release) })
	s := serveStdio(t, r)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_task","arguments":{"device":"` + r.env.Serial + `","goal":"Wait"}}}`)
	select {
	case <-calling:
	case <-time.After(30 * time.Second):
		t.Fatal("the run never asked its model")
	}
	id := ""
	for _, run := range r.b.ActiveRuns() {
		id = run.ID
	}
	_ = s.in.Close() // the client leaves
	select {
	case err := <-s.served:
		s.served <- err
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return when its input ended")
	}
	r.b.Shutdown()
	if raw := recordText(t, r.b, id); !strings.Contains(raw, `"code":"stopped_by_client","detail":"raw-client"`) {
		t.Fatalf("the record does not say the client stopped the run:\n%s", raw)
	}
}
