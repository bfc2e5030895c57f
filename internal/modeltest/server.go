// Package modeltest runs a real chat-completions server on 127.0.0.1 for
// tests.
//
// Why a real server rather than a mocked client: the things that go wrong
// with model APIs happen on the wire — SSE framing, tool-call deltas split
// across chunks, usage arriving in a trailing chunk or not at all, 429 with
// Retry-After, a held reply that must end when the client hangs up. Tests that
// talk HTTP to this server exercise the same code paths as a run against
// vLLM, Ollama or a cloud API.
//
// A server replies from a per-test script: a list of Replies consumed in
// order, or a function of the recorded Request. Every request is recorded so
// tests can assert what the prompt contained.
package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// Reply is one scripted answer.
type Reply struct {
	// Content is the assistant message text. Streamed in Chunks pieces when
	// the request asks for a stream.
	Content string
	// Reasoning is sent as reasoning_content (before Content when streaming).
	Reasoning string
	// ToolCalls are returned as the message's tool_calls. Streamed with the
	// arguments split over two chunks, as real servers do.
	ToolCalls []openai.ToolCall
	// Usage, when non-nil, is reported: in the response body, or in a final
	// chunk when the request set stream_options.include_usage. Nil leaves
	// usage out, like servers that never report it.
	Usage *openai.Usage
	// FinishReason defaults to "stop", or "tool_calls" when ToolCalls is set.
	FinishReason string

	// Status, when non-zero and not 200, makes this an HTTP error reply with
	// an OpenAI-style error body carrying Message.
	Status  int
	Message string
	// RetryAfter is sent as the Retry-After header (with Status 429/503).
	RetryAfter string

	// Delay holds the reply before the first byte; it ends early when the
	// client disconnects (the reply is then not sent).
	Delay time.Duration
	// Chunks is how many content pieces to stream (default 4).
	Chunks int
	// ChunkDelay is the pause between streamed chunks.
	ChunkDelay time.Duration
	// Hold keeps the reply open after the streamed headers (and after
	// HoldAfter content chunks, when streaming) until the client disconnects
	// or the server closes. Use it to test cancellation.
	Hold      bool
	HoldAfter int

	// Hostile servers, for the client's bounds (each ends when the client
	// leaves or the server closes):

	// Silent accepts the request and never answers, not even headers.
	Silent bool
	// Drip sends the reply one byte at a time with this gap between bytes
	// (a streamed reply's events, or the JSON body).
	Drip time.Duration
	// Forever streams content chunks without end (ChunkDelay apart), and a
	// non-streamed reply sends a JSON body that never closes.
	Forever bool
	// Body, when set, is sent as is with ContentType (default text/html)
	// and Status (default 200): a web page where the API should be.
	Body        string
	ContentType string
	// EchoKey answers with Status (default 401) and an error message that
	// repeats the request's API key in the forms servers use (see
	// EchoedForms).
	EchoKey bool
}

// Request is one request the server received.
type Request struct {
	Header http.Header
	Body   []byte
	Chat   openai.ChatCompletionRequest
	// Attempt counts requests received so far, from 1.
	Attempt int
}

// Text returns the text parts of every message, joined by newlines: what
// tests search when asserting the prompt contents.
func (r Request) Text() string {
	var b strings.Builder
	for _, m := range r.Chat.Messages {
		if m.Content != "" {
			b.WriteString(m.Content)
			b.WriteByte('\n')
		}
		for _, p := range m.MultiContent {
			if p.Type == openai.ChatMessagePartTypeText {
				b.WriteString(p.Text)
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// Images returns the image URLs (data URLs, usually) in message order.
func (r Request) Images() []string {
	var urls []string
	for _, m := range r.Chat.Messages {
		for _, p := range m.MultiContent {
			if p.Type == openai.ChatMessagePartTypeImageURL && p.ImageURL != nil {
				urls = append(urls, p.ImageURL.URL)
			}
		}
	}
	return urls
}

// Server is a running chat-completions server. Its methods are safe for
// concurrent use.
type Server struct {
	// URL is the OpenAI-style base URL, ending in /v1.
	URL string

	t      testing.TB
	ts     *httptest.Server
	done   chan struct{}
	next   func(Request) Reply
	closed chan time.Time
	mu     sync.Mutex
	reqs   []Request
	count  int
	active int
	// most is the most requests answered at once, per model ("" any).
	most map[string]int
	byM  map[string]int
}

// New starts a server that answers requests with script, in order. A request
// beyond the script fails the test and gets a 500.
func New(t testing.TB, script ...Reply) *Server {
	var mu sync.Mutex
	i := 0
	return NewFunc(t, func(r Request) Reply {
		mu.Lock()
		defer mu.Unlock()
		if i >= len(script) {
			t.Errorf("modeltest: request %d is beyond the script of %d replies", r.Attempt, len(script))
			return Reply{Status: http.StatusInternalServerError, Message: "modeltest: script exhausted"}
		}
		i++
		return script[i-1]
	})
}

// NewFunc starts a server that answers each request with f(request).
func NewFunc(t testing.TB, f func(Request) Reply) *Server {
	t.Helper()
	s := &Server{t: t, done: make(chan struct{}), next: f, closed: make(chan time.Time, 64)}
	s.ts = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.ts.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateClosed || st == http.StateHijacked {
			select {
			case s.closed <- time.Now():
			default:
			}
		}
	}
	s.ts.Start()
	s.URL = s.ts.URL + "/v1"
	t.Cleanup(s.Close)
	return s
}

// Close ends held replies and stops the server. Tests need not call it: it
// runs at cleanup.
func (s *Server) Close() {
	select {
	case <-s.done:
		return
	default:
	}
	close(s.done)
	s.ts.Close()
}

// Requests returns the requests received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Forget drops the requests recorded so far, so a long benchmark does not
// hold every screenshot it sent; Attempt numbering goes on.
func (s *Server) Forget() {
	s.mu.Lock()
	s.reqs = nil
	s.mu.Unlock()
}

// Active returns how many requests are being answered right now.
func (s *Server) Active() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active
}

// MaxActive returns the most requests for model ("" for any model) that
// were being worked on at once since the server started, each from its
// arrival until its reply starts (the script's time and Delay): what a
// client's limit on requests in flight is checked against. The tail of
// sending a reply is left out: a client that read "[DONE]" may send its
// next request before the handler has returned.
func (s *Server) MaxActive(model string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.most[model]
}

// ConnClosed delivers the time at which each client connection closed (up to
// 64 pending). Cancellation tests wait on it.
func (s *Server) ConnClosed() <-chan time.Time { return s.closed }

func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	if hr.Method != http.MethodPost || !strings.HasSuffix(hr.URL.Path, "/chat/completions") {
		writeError(w, http.StatusNotFound, fmt.Sprintf("modeltest: no route %s %s", hr.Method, hr.URL.Path), "")
		return
	}
	body, err := io.ReadAll(hr.Body)
	if err != nil {
		return
	}
	req := Request{Header: hr.Header.Clone(), Body: body}
	if err := json.Unmarshal(body, &req.Chat); err != nil {
		writeError(w, http.StatusBadRequest, "modeltest: body is not a chat request: "+err.Error(), "")
		return
	}
	s.mu.Lock()
	s.count++
	req.Attempt = s.count
	s.reqs = append(s.reqs, req)
	s.active++
	s.count1(req.Chat.Model, 1)
	s.mu.Unlock()
	var answering sync.Once
	answered := func() { // the reply is worked out: it is being sent
		answering.Do(func() {
			s.mu.Lock()
			s.count1(req.Chat.Model, -1)
			s.mu.Unlock()
		})
	}
	defer func() {
		answered()
		s.mu.Lock()
		s.active--
		s.mu.Unlock()
	}()

	rep := s.next(req)
	if rep.Delay > 0 && !s.wait(hr, rep.Delay) {
		return
	}
	answered()
	if s.hostile(w, hr, req, rep) {
		return
	}
	if rep.Status != 0 && rep.Status != http.StatusOK {
		writeError(w, rep.Status, rep.Message, rep.RetryAfter)
		return
	}
	if req.Chat.Stream {
		s.stream(writerFor(w, hr, s, rep.Drip), hr, req, rep)
		return
	}
	if rep.Hold {
		s.hold(hr)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(writerFor(w, hr, s, rep.Drip)).Encode(response(req, rep))
}

// count1 counts a request for model in (d 1) or out (-1); s.mu held.
func (s *Server) count1(model string, d int) {
	if s.byM == nil {
		s.byM, s.most = map[string]int{}, map[string]int{}
	}
	s.byM[model] += d
	s.byM["\x00"] += d // every model
	s.most[model] = max(s.most[model], s.byM[model])
	s.most[""] = max(s.most[""], s.byM["\x00"])
}

// wait sleeps d or until the client leaves or the server closes; it reports
// whether the full time passed.
func (s *Server) wait(hr *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-hr.Context().Done():
	case <-s.done:
	}
	return false
}

func (s *Server) hold(hr *http.Request) {
	select {
	case <-hr.Context().Done():
	case <-s.done:
	}
}

func finish(rep Reply) string {
	switch {
	case rep.FinishReason != "":
		return rep.FinishReason
	case len(rep.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func response(req Request, rep Reply) openai.ChatCompletionResponse {
	msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: rep.Content,
		ReasoningContent: rep.Reasoning, ToolCalls: rep.ToolCalls}
	out := openai.ChatCompletionResponse{ID: fmt.Sprintf("chatcmpl-%d", req.Attempt), Object: "chat.completion",
		Created: time.Now().Unix(), Model: req.Chat.Model,
		Choices: []openai.ChatCompletionChoice{{Index: 0, Message: msg, FinishReason: openai.FinishReason(finish(rep))}}}
	if rep.Usage != nil {
		out.Usage = *rep.Usage
	}
	return out
}

// The body is built with maps rather than openai.ChatCompletionResponse so a
// missing usage is really absent, as from servers that never send it.
func (s *Server) stream(w http.ResponseWriter, hr *http.Request, req Request, rep Reply) {
	fl, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	id := fmt.Sprintf("chatcmpl-%d", req.Attempt)
	send := func(delta map[string]any, finishReason any) bool {
		chunk := map[string]any{"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(),
			"model":   req.Chat.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finishReason}}}
		b, _ := json.Marshal(chunk)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		if fl != nil {
			fl.Flush()
		}
		return true
	}
	pause := func() bool { return rep.ChunkDelay <= 0 || s.wait(hr, rep.ChunkDelay) }

	if !send(map[string]any{"role": "assistant", "content": ""}, nil) {
		return
	}
	if rep.Reasoning != "" && (!send(map[string]any{"reasoning_content": rep.Reasoning}, nil) || !pause()) {
		return
	}
	if rep.Forever {
		for {
			if !send(map[string]any{"content": "Thought: still thinking about it. "}, nil) || !pause() {
				return
			}
		}
	}
	pieces := split(rep.Content, rep.Chunks)
	for i, p := range pieces {
		if rep.Hold && i == rep.HoldAfter {
			s.hold(hr)
			return
		}
		if !send(map[string]any{"content": p}, nil) || !pause() {
			return
		}
	}
	if rep.Hold {
		s.hold(hr)
		return
	}
	for i, tc := range rep.ToolCalls {
		args := tc.Function.Arguments
		half := len(args) / 2
		for half > 0 && !utf8.RuneStart(args[half]) {
			half-- // JSON strings carry whole characters: never split one
		}
		first := map[string]any{"index": i, "id": tc.ID, "type": "function",
			"function": map[string]any{"name": tc.Function.Name, "arguments": args[:half]}}
		second := map[string]any{"index": i, "function": map[string]any{"arguments": args[half:]}}
		if !send(map[string]any{"tool_calls": []any{first}}, nil) || !send(map[string]any{"tool_calls": []any{second}}, nil) {
			return
		}
	}
	if !send(map[string]any{}, finish(rep)) {
		return
	}
	if rep.Usage != nil && req.Chat.StreamOptions != nil && req.Chat.StreamOptions.IncludeUsage {
		b, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(),
			"model": req.Chat.Model, "choices": []any{}, "usage": rep.Usage})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if fl != nil {
		fl.Flush()
	}
}

// split cuts s into about n pieces on rune boundaries.
func split(s string, n int) []string {
	if s == "" {
		return nil
	}
	if n <= 0 {
		n = 4
	}
	r := []rune(s)
	size := max(1, (len(r)+n-1)/n)
	var out []string
	for len(r) > 0 {
		k := min(size, len(r))
		out = append(out, string(r[:k]))
		r = r[k:]
	}
	return out
}

func writeError(w http.ResponseWriter, status int, msg, retryAfter string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	typ := "server_error"
	switch status {
	case http.StatusUnauthorized:
		typ = "invalid_request_error"
	case http.StatusTooManyRequests:
		typ = "rate_limit_error"
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": status}})
}
