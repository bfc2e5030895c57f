package model

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"tandem/internal/modeltest"
)

const testKey = "sk-secret-0123456789"

func newTestClient(t *testing.T, url string, mod func(*ClientConfig)) *Client {
	t.Helper()
	cfg := ClientConfig{BaseURL: url, APIKey: testKey, Model: "gpt-4o", Backoff: time.Millisecond,
		MaxBackoff: 50 * time.Millisecond, Timeout: 5 * time.Second, Prices: DefaultPrices()}
	if mod != nil {
		mod(&cfg)
	}
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func userPrompt(text string) Prompt {
	return Prompt{Messages: []Message{{Role: User, Text: text}}}
}

func TestCallStreamsDeltasAndUsage(t *testing.T) {
	s := modeltest.New(t, modeltest.Reply{Content: "Thought: open the app\nAction: click(start_box='(1,2)')", Chunks: 6,
		Usage: &openai.Usage{PromptTokens: 120, CompletionTokens: 30}})
	c := newTestClient(t, s.URL, nil)
	var deltas []string
	res, err := c.Call(context.Background(), userPrompt("打开微信"), true, func(d string) { deltas = append(deltas, d) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(deltas) != 6 || strings.Join(deltas, "") != res.Reply.Content {
		t.Fatalf("deltas %q content %q", deltas, res.Reply.Content)
	}
	if res.Usage.PromptTokens != 120 || res.Usage.CompletionTokens != 30 || res.Usage.Estimated {
		t.Fatalf("usage %+v", res.Usage)
	}
	if want := (120*2.5 + 30*10) / 1e6; res.Usage.Cost != want || res.Usage.Currency != "USD" || res.Usage.Unpriced {
		t.Fatalf("cost %v %s (unpriced %v) want %v USD", res.Usage.Cost, res.Usage.Currency, res.Usage.Unpriced, want)
	}
	r := s.Requests()[0]
	if !r.Chat.Stream || r.Chat.StreamOptions == nil || !r.Chat.StreamOptions.IncludeUsage || res.RequestBytes != len(r.Body) {
		t.Fatalf("request %+v, bytes %d vs %d", r.Chat, res.RequestBytes, len(r.Body))
	}
}

// TestUnpricedModel: a model missing from the price table costs "unknown",
// which the UI must not show as free.
func TestUnpricedModel(t *testing.T) {
	s := modeltest.New(t, modeltest.Reply{Content: "ok", Usage: &openai.Usage{PromptTokens: 10, CompletionTokens: 2}},
		modeltest.Reply{Content: "ok", Usage: &openai.Usage{PromptTokens: 10, CompletionTokens: 2}})
	for _, name := range []string{"my-local-vlm", "gpt-4o"} {
		c := newTestClient(t, s.URL, func(c *ClientConfig) { c.Model = name })
		res, err := c.Call(context.Background(), userPrompt("x"), false, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if unknown := name == "my-local-vlm"; res.Usage.Unpriced != unknown || (res.Usage.Cost == 0) != unknown {
			t.Errorf("%s: usage %+v", name, res.Usage)
		}
	}
	total := Usage{}.Add(Usage{Cost: 1, Currency: "CNY"}).Add(Usage{Unpriced: true})
	if total.Currency != "CNY" || !total.Unpriced || total.Cost != 1 {
		t.Errorf("sum %+v", total)
	}
}

func TestCallStreamToolCalls(t *testing.T) {
	tc := openai.ToolCall{ID: "call_1", Type: "function", Function: openai.FunctionCall{Name: "tap", Arguments: `{"x":500,"y":250}`}}
	s := modeltest.New(t, modeltest.Reply{ToolCalls: []openai.ToolCall{tc, tc}})
	c := newTestClient(t, s.URL, nil)
	res, err := c.Call(context.Background(), userPrompt("x"), true, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Reply.ToolCalls) != 2 || res.Reply.ToolCalls[1].Arguments != tc.Function.Arguments ||
		res.Reply.ToolCalls[0].ID != "call_1" || res.Reply.ToolCalls[0].Name != "tap" {
		t.Fatalf("tool calls %+v", res.Reply.ToolCalls)
	}
	if !res.Usage.Estimated || res.Usage.CompletionTokens == 0 {
		t.Fatalf("usage %+v", res.Usage)
	}
}

func TestCallStopsReadingWhenDone(t *testing.T) {
	// The server would hold the stream open after two chunks; the done func
	// sees the action complete and the client hangs up.
	s := modeltest.New(t, modeltest.Reply{Content: "<answer>do(action=\"Back\")</answer>" + strings.Repeat(" never sent", 4), Chunks: 2,
		Hold: true, HoldAfter: 1})
	c := newTestClient(t, s.URL, nil)
	done := func(p string) bool { return strings.Contains(p, "</answer>") }
	res, err := c.Call(context.Background(), userPrompt("x"), true, nil, done)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stopped || !strings.Contains(res.Reply.Content, "</answer>") {
		t.Fatalf("result %+v", res)
	}
	waitClosed(t, s, time.Now(), time.Second)
}

func TestCallEstimatesUsageWhenOmitted(t *testing.T) {
	s := modeltest.New(t, modeltest.Reply{Content: "hello world"})
	c := newTestClient(t, s.URL, nil)
	res, err := c.Call(context.Background(), userPrompt("hello world"), false, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 3 reply priming + 4 per message + 2 text tokens.
	if !res.Usage.Estimated || res.Usage.CompletionTokens != 2 || res.Usage.PromptTokens != 9 {
		t.Fatalf("usage %+v", res.Usage)
	}
}

func TestCallRetries(t *testing.T) {
	s := modeltest.New(t,
		modeltest.Reply{Status: http.StatusTooManyRequests, Message: "rate limited", RetryAfter: "0.02"},
		modeltest.Reply{Status: http.StatusBadGateway, Message: "upstream"},
		modeltest.Reply{Content: "ok", Usage: &openai.Usage{PromptTokens: 1, CompletionTokens: 1}})
	c := newTestClient(t, s.URL, func(c *ClientConfig) { c.APIKey = "sk-rate-limited-9999" })
	start := time.Now()
	var notices []Retry
	ctx := WithRetryNotice(context.Background(), func(r Retry) { notices = append(notices, r) })
	res, err := c.Call(ctx, userPrompt("x"), false, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 3 || res.Reply.Content != "ok" || len(s.Requests()) != 3 {
		t.Fatalf("attempts %d, requests %d", res.Attempts, len(s.Requests()))
	}
	// Whoever waits on the call is told of each retry, and why.
	if len(notices) != 2 || notices[0].Status != 429 || notices[0].Attempt != 1 || notices[0].Of != 4 ||
		notices[0].WaitMs < 20 || notices[1].Status != 502 || !strings.Contains(notices[1].Error, "upstream") {
		t.Fatalf("retry notices %+v", notices)
	}
	if time.Since(start) < 20*time.Millisecond {
		t.Fatal("Retry-After was not honoured")
	}
}

func TestCallGivesUpAfterRetries(t *testing.T) {
	s := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply {
		return modeltest.Reply{Status: http.StatusServiceUnavailable, Message: "overloaded"}
	})
	c := newTestClient(t, s.URL, func(c *ClientConfig) { c.Retries = 2 })
	_, err := c.Call(context.Background(), userPrompt("x"), true, nil, nil)
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 503 || errors.Is(err, ErrAuth) || len(s.Requests()) != 3 {
		t.Fatalf("err %v, requests %d", err, len(s.Requests()))
	}
}

func TestCallAuthErrorsAreNotRetried(t *testing.T) {
	for _, tt := range []struct {
		status int
		hint   string
	}{{401, "API key"}, {403, "permissions"}, {404, "model name"}} {
		s := modeltest.New(t, modeltest.Reply{Status: tt.status, Message: "Incorrect API key provided: " + testKey})
		c := newTestClient(t, s.URL, nil)
		for _, stream := range []bool{false, true} {
			_, err := c.Call(context.Background(), userPrompt("x"), stream, nil, nil)
			var ae *APIError
			if !errors.Is(err, ErrAuth) || !errors.As(err, &ae) || ae.Status != tt.status {
				t.Fatalf("%d: err %v", tt.status, err)
			}
			msg := err.Error()
			if strings.Contains(msg, testKey) || !strings.Contains(msg, "Settings") || !strings.Contains(msg, tt.hint) {
				t.Fatalf("%d: message %q", tt.status, msg)
			}
			if !stream {
				s = modeltest.New(t, modeltest.Reply{Status: tt.status, Message: "again " + testKey})
				c = newTestClient(t, s.URL, nil)
			}
		}
		if n := len(s.Requests()); n != 1 {
			t.Fatalf("%d: %d requests, want 1 (no retry)", tt.status, n)
		}
	}
}

func TestCallNetworkErrorRetriedThenReported(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c := newTestClient(t, "http://"+addr+"/v1?key="+testKey, func(c *ClientConfig) { c.Retries = 2 })
	_, err = c.Call(context.Background(), userPrompt("x"), false, nil, nil)
	var ne *NetError
	if !errors.As(err, &ne) || strings.Contains(err.Error(), testKey) {
		t.Fatalf("err %v", err)
	}
}

func TestCallCancelClosesConnection(t *testing.T) {
	for _, stream := range []bool{true, false} {
		s := modeltest.New(t, modeltest.Reply{Content: "Thought: slow", Hold: true, HoldAfter: 1})
		c := newTestClient(t, s.URL, nil)
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := c.Call(ctx, userPrompt("x"), stream, nil, nil)
			errc <- err
		}()
		deadline := time.Now().Add(5 * time.Second)
		for s.Active() == 0 {
			if time.Now().After(deadline) {
				t.Fatal("request never arrived")
			}
			time.Sleep(time.Millisecond)
		}
		at := time.Now()
		cancel()
		waitClosed(t, s, at, 50*time.Millisecond)
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("stream %v: err %v", stream, err)
		}
		if n := len(s.Requests()); n != 1 {
			t.Fatalf("cancelled call was retried: %d requests", n)
		}
	}
}

func waitClosed(t *testing.T, s *modeltest.Server, since time.Time, within time.Duration) {
	t.Helper()
	select {
	case at := <-s.ConnClosed():
		if d := at.Sub(since); d > within {
			t.Fatalf("connection closed %v after, want within %v", d, within)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("server never saw the connection close")
	}
}

func TestCallTimeoutPerAttempt(t *testing.T) {
	s := modeltest.New(t, modeltest.Reply{Delay: time.Minute}, modeltest.Reply{Content: "ok"})
	c := newTestClient(t, s.URL, func(c *ClientConfig) { c.Timeout = 100 * time.Millisecond })
	res, err := c.Call(context.Background(), userPrompt("x"), false, nil, nil)
	if err != nil || res.Attempts != 2 {
		t.Fatalf("res %+v err %v", res, err)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{"": 0, "3": 3 * time.Second, "0.5": 500 * time.Millisecond,
		"junk": 0, "-1": 0, now.Add(2 * time.Second).Format(http.TimeFormat): 2 * time.Second} {
		if got := parseRetryAfter(v, now); got != want {
			t.Errorf("%q: %v want %v", v, got, want)
		}
	}
}

func TestPrices(t *testing.T) {
	p, err := LoadPrices(strings.NewReader(`{"models":{"my-*":{"input":1,"output":2,"currency":"CNY"},"my-big":{"input":10,"output":20,"currency":"CNY"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if c := p.Cost("my-small", Usage{PromptTokens: 1e6, CompletionTokens: 1e6}); c != 3 {
		t.Errorf("prefix cost %v", c)
	}
	if c := p.Cost("my-big", Usage{PromptTokens: 1e6}); c != 10 {
		t.Errorf("exact cost %v", c)
	}
	if c := p.Cost("other", Usage{PromptTokens: 1e6}); c != 0 {
		t.Errorf("unknown cost %v", c)
	}
	for _, bad := range []string{`{`, `{"models":{"a":{"input":-1}}}`, `{"modelz":{}}`} {
		if _, err := LoadPrices(strings.NewReader(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestPresets(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Presets() {
		if seen[p.Name] || p.Dialect == "" {
			t.Errorf("preset %+v duplicate or without dialect", p)
		}
		seen[p.Name] = true
	}
	for _, n := range []string{"openai", "zhipu", "dashscope", "volcengine", "vllm", "ollama", "lmstudio", "custom"} {
		if _, err := PresetByName(n); err != nil {
			t.Error(err)
		}
	}
	if p, _ := PresetByName("Ollama"); p.BaseURL != "http://127.0.0.1:11434/v1" {
		t.Errorf("ollama %+v", p)
	}
	if _, err := PresetByName("nope"); err == nil {
		t.Error("unknown preset accepted")
	}
}

func TestConfigNeverPrintsKey(t *testing.T) {
	cfg := ClientConfig{BaseURL: "http://x/v1", APIKey: testKey, Model: "m"}
	var logged strings.Builder
	slog.New(slog.NewTextHandler(&logged, nil)).Info("config", "cfg", cfg)
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), logged.String()} {
		if strings.Contains(s, testKey) || !strings.Contains(s, "redacted") {
			t.Errorf("printed %q", s)
		}
	}
	if _, err := NewClient(ClientConfig{APIKey: testKey}); err == nil || !errors.Is(err, ErrAuth) || strings.Contains(err.Error(), testKey) {
		t.Errorf("no base URL: %v", err)
	}
}

func TestCallStreamIgnoredByServer(t *testing.T) {
	// A server that answers stream=true with a plain JSON body.
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`)
	}))
	defer ts.Close()
	c := newTestClient(t, ts.URL+"/v1", nil)
	_, err := c.Call(context.Background(), userPrompt("x"), true, nil, nil)
	var se *StreamError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "may not support streaming") {
		t.Fatalf("err %v", err)
	}
	res, err := c.Call(context.Background(), userPrompt("x"), false, nil, nil)
	if err != nil || res.Reply.Content != "hi" {
		t.Fatalf("non-stream: %v %+v", err, res)
	}
}

// countingDoer is an HTTPDoer that counts what passes through it.
type countingDoer struct {
	n    int
	next *http.Client
}

func (d *countingDoer) Do(r *http.Request) (*http.Response, error) {
	d.n++
	return d.next.Do(r)
}

func TestCallUsesHTTPDoer(t *testing.T) {
	s := modeltest.New(t, modeltest.Reply{Status: 500, Message: "x"}, modeltest.Reply{Content: "ok"})
	d := &countingDoer{next: &http.Client{}}
	c := newTestClient(t, s.URL, func(c *ClientConfig) { c.HTTP = d })
	if _, err := c.Call(context.Background(), userPrompt("x"), true, nil, nil); err != nil || d.n != 2 {
		t.Fatalf("err %v, doer saw %d requests", err, d.n)
	}
}
