package eval

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"

	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Oracle is a model server in the tools dialect that plays a perfect
// model: for each request it reads the goal and the screen the request
// carries (the compact UI state, never the app's state), finds the task
// with that goal, and answers its next actions as tool calls. It binds
// 127.0.0.1 and asks for its per-launch key as the bearer token.
type Oracle struct {
	noise *noisy

	key   string
	srv   *http.Server
	ln    net.Listener
	mu    sync.Mutex
	tasks map[string]Task              // task id -> task
	memo  map[string]map[string]string // task id -> what it noted
	calls int
}

// StartOracle serves the oracle for tasks on a loopback port until ctx
// ends or Close.
func StartOracle(ctx context.Context, tasks []Task, noise *Noise) (*Oracle, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	o := &Oracle{key: hex.EncodeToString(b), tasks: map[string]Task{}, memo: map[string]map[string]string{}}
	if noise != nil {
		o.noise = newNoisy(*noise)
	}
	for _, t := range tasks {
		o.tasks[t.ID] = t
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	o.ln = ln
	o.srv = &http.Server{Handler: http.HandlerFunc(o.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = o.srv.Serve(ln) }()
	go func() {
		<-ctx.Done()
		o.Close()
	}()
	return o, nil
}

// ModelFor is the model name a run of t asks the oracle for: it names the
// task, since two tasks may share a goal.
func ModelFor(t Task) string { return "oracle/" + t.ID }

// BaseURL is the OpenAI-compatible base URL.
func (o *Oracle) BaseURL() string { return "http://" + o.ln.Addr().String() + "/v1" }

// Key is the bearer token the oracle asks for.
func (o *Oracle) Key() string { return o.key }

// Calls is how many requests it answered.
func (o *Oracle) Calls() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.calls
}

// Close stops the server.
func (o *Oracle) Close() { _ = o.srv.Close() }

type chatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// lastUserText is the text of the request's last user turn.
func (r chatRequest) lastUserText() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			return s
		}
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		_ = json.Unmarshal(m.Content, &parts)
		var b strings.Builder
		for _, p := range parts {
			if p.Type == "text" {
				b.WriteString(p.Text)
			}
		}
		return b.String()
	}
	return ""
}

func (o *Oracle) serve(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+o.key {
		http.Error(w, `{"error":{"message":"the oracle wants its key","type":"invalid_request_error"}}`, http.StatusUnauthorized)
		return
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	var req chatRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<20)).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"not JSON"}}`, http.StatusBadRequest)
		return
	}
	reply := o.answer(strings.TrimPrefix(req.Model, "oracle/"), req.lastUserText())
	o.mu.Lock()
	o.calls++
	o.mu.Unlock()
	if req.Stream {
		writeStream(w, reply)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "oracle", "object": "chat.completion", "model": "oracle",
		"choices": []map[string]any{{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": reply}}},
		"usage":   map[string]any{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
	})
}

// answer is the reply's content: the task's next actions on this screen.
func (o *Oracle) answer(id, text string) string {
	s, err := parseScreen(text)
	if err != nil {
		return s.toolCall(fail(err.Error()))
	}
	o.mu.Lock()
	t, ok := o.tasks[id]
	if o.memo[id] == nil || !hasHistory(text) { // a run's first call: it remembers nothing yet
		o.memo[id] = map[string]string{}
	}
	s.Memo = o.memo[id]
	o.mu.Unlock()
	if !ok || t.Goal != s.Goal {
		return s.toolCall(fail(fmt.Sprintf("the oracle knows no task %q with the goal %q", id, s.Goal)))
	}
	o.mu.Lock() // Solve may note in the memo; the noise draws in turn
	acts := ready(s)
	if acts == nil {
		acts = t.Spec.Solve(s)
	}
	spoilt, acts := o.noise.spoil(s, acts)
	o.mu.Unlock()
	if spoilt != "" {
		return spoilt
	}
	var b strings.Builder
	for _, a := range acts {
		if a.Tool == "tap" && a.At == nil && a.Args == nil {
			return s.toolCall(fail("the oracle found nothing to tap on this screen"))
		}
		b.WriteString(s.toolCall(a))
		b.WriteString("\n")
	}
	return b.String()
}

// writeStream sends content as a chat-completions event stream.
func writeStream(w http.ResponseWriter, content string) {
	w.Header().Set("Content-Type", "text/event-stream")
	f, _ := w.(http.Flusher)
	chunk := func(delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{"id": "oracle", "object": "chat.completion.chunk", "model": "oracle",
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	chunk(map[string]any{"role": "assistant", "content": content}, nil)
	chunk(map[string]any{}, "stop")
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f != nil {
		f.Flush()
	}
}

// hasHistory reports whether the request tells of steps done (the tools
// dialect's "Previous steps:" label, in English or Chinese).
func hasHistory(text string) bool {
	return strings.Contains(text, "Previous steps:") || strings.Contains(text, "已执行的步骤：")
}

// ready is what any good model does first on a screen that is not the
// task's: wait for a loading app, dismiss a pop-up that came uninvited.
func ready(s *Screen) []Act {
	if s.Has("Loading…") {
		return []Act{{Tool: "wait", Args: map[string]any{"ms": 500}}}
	}
	if s.Title() == "Enjoying the app?" {
		if b := s.FindType("button", "Not now"); b != nil {
			return []Act{tap(b)}
		}
	}
	return nil
}
