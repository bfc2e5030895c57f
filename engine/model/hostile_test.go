package model

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/internal/modeltest"
)

// hostileBounds are small bounds so each hostile case ends quickly, yet far
// from the servers' own pace (a drip every 20 ms: an idle bound 75 times
// that), so a busy machine cannot turn one case into another; the
// assertions are on the outcome and its words, never on the time taken.
func hostileBounds(c *ClientConfig) {
	c.Timeout = 4 * time.Second
	c.FirstByte = 1500 * time.Millisecond
	c.Idle = 1500 * time.Millisecond
	c.MaxReplyBytes = 256 << 10
}

// TestHostileServers: each misbehaving server ends the call with a typed
// error whose words say what happened, after the number of attempts the
// bound allows (a stall is tried twice at most, the rest once).
func TestHostileServers(t *testing.T) {
	page := "<!DOCTYPE html><html><head><title>Welcome to nginx!</title></head><body>It works</body></html>"
	cases := []struct {
		name     string
		rep      modeltest.Reply
		stream   bool
		want     string
		attempts int
		is       func(error) bool
	}{
		{"silent, streamed", modeltest.Reply{Silent: true}, true, "timed out: no first byte of the reply", 2, isStall},
		{"silent, whole reply", modeltest.Reply{Silent: true}, false, "timed out: no complete reply", 2, isStall},
		{"headers then silence", modeltest.Reply{Content: "abc", Hold: true}, true, "timed out: the reply stopped coming", 2, isStall},
		{"drips a byte at a time", modeltest.Reply{Content: strings.Repeat("x", 400), Drip: 20 * time.Millisecond}, true, "timed out: no complete reply", 2, isStall},
		{"streams forever", modeltest.Reply{Forever: true}, true, "larger than 256 KiB", 1, isTooLarge},
		{"endless JSON body", modeltest.Reply{Forever: true}, false, "was cut off", 1, isTooLarge},
		{"web page, streamed", modeltest.Reply{Body: page}, true, "the server answered with a web page, not the API (check the base URL http://127.0.0.1", 1, isPage},
		{"web page, whole reply", modeltest.Reply{Body: page}, false, "the server answered with a web page, not the API (check the base URL", 1, isPage},
		{"web page sent as JSON", modeltest.Reply{Body: page, ContentType: "application/json"}, false, "the server answered with a web page, not the API", 1, isPage},
		{"web page sent as a stream", modeltest.Reply{Body: page, ContentType: "text/event-stream"}, true, "the server answered with a web page, not the API", 1, isPage},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply { return tc.rep })
			c := newTestClient(t, s.URL, hostileBounds)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard only
			defer cancel()
			_, err := c.Call(ctx, userPrompt("x"), tc.stream, nil, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !tc.is(err) {
				t.Fatalf("err %v, want one saying %q", err, tc.want)
			}
			if ctx.Err() != nil {
				t.Fatal("the hang guard ended the call, not the client's bound")
			}
			if n := len(s.Requests()); n != tc.attempts {
				t.Fatalf("%d attempts, want %d", n, tc.attempts)
			}
		})
	}
}

func isStall(err error) bool {
	var e *StallError
	return errors.As(err, &e) && errors.Is(err, context.DeadlineExceeded)
}
func isTooLarge(err error) bool { var e *TooLargeError; return errors.As(err, &e) }
func isPage(err error) bool     { var e *WebPageError; return errors.As(err, &e) }

// TestErrorPageIsNamed: a proxy's HTML error page (502) is retried like any
// 5xx, and the message calls it a web page rather than quoting its markup.
func TestErrorPageIsNamed(t *testing.T) {
	page := modeltest.Reply{Status: 502, Body: "<html><body><h1>502 Bad Gateway</h1></body></html>"}
	s := modeltest.New(t, page, page)
	c := newTestClient(t, s.URL, func(c *ClientConfig) { c.Retries = 1 })
	_, err := c.Call(context.Background(), userPrompt("x"), true, nil, nil)
	var api *APIError
	if !errors.As(err, &api) || api.Status != 502 || !strings.Contains(err.Error(), "web page, not the API") || strings.Contains(err.Error(), "<h1>") {
		t.Fatalf("err %v", err)
	}
}

// TestStreamErrorNamesNoMissingSetting: there is no switch for streaming,
// so the message must not send the person looking for one.
func TestStreamErrorNamesNoMissingSetting(t *testing.T) {
	if msg := (&StreamError{}).Error(); strings.Contains(msg, "Settings") || strings.Contains(msg, "turn streaming off") {
		t.Fatalf("message names a setting that does not exist: %s", msg)
	}
}

// TestEchoedKeyIsRedacted: a server that repeats the refused key in every
// form servers use; none of them reaches the error (which goes to the
// record, the terminal and the UI).
func TestEchoedKeyIsRedacted(t *testing.T) {
	for _, key := range []string{testKey, "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "0f1e2d3c4b5a69788796a5b4c3d2e1f0.AbCdEfGh"} {
		s := modeltest.New(t, modeltest.Reply{EchoKey: true})
		c := newTestClient(t, s.URL, func(c *ClientConfig) { c.APIKey = key })
		_, err := c.Call(context.Background(), userPrompt("x"), true, nil, nil)
		if !errors.Is(err, ErrAuth) {
			t.Fatalf("err %v", err)
		}
		assertNoKey(t, err.Error(), key)
	}
}

// assertNoKey fails when msg holds any 6-character piece of key, in any
// case, or the start or end of a masked form.
func assertNoKey(t *testing.T, msg, key string) {
	t.Helper()
	lm, lk := strings.ToLower(msg), strings.ToLower(key)
	for i := 0; i+6 <= len(lk); i++ {
		if strings.Contains(lm, lk[i:i+6]) {
			t.Fatalf("%q leaks %q of the key", msg, key[i:i+6])
		}
	}
	for _, f := range modeltest.EchoedForms(key) {
		if strings.Contains(msg, f) {
			t.Fatalf("%q leaks the form %q", msg, f)
		}
	}
}

func TestRedact(t *testing.T) {
	key := "sk-abcdEFGH12345678wxyz"
	cases := []struct{ in, want string }{
		{"key " + key + " refused", "key [redacted] refused"},
		{"Incorrect API key provided: sk-abcdEFGH1234****", "Incorrect API key provided: [redacted]"},
		{"lower: sk-abcdefgh12345678wxyz.", "lower: [redacted]."},
		{"masked sk-abc...xyz and sk-abcd****wxyz and sk-ab…wxyz ok", "masked [redacted] and [redacted] and [redacted] ok"},
		{"a piece 12345678 in the middle", "a piece [redacted] in the middle"},
		{"short 12345 stays, loading... stays, 密钥 sk-abcdEFGH 无效", "short 12345 stays, loading... stays, 密钥 [redacted] 无效"},
		{"nothing here", "nothing here"},
	}
	for _, tc := range cases {
		if got := Redact(tc.in, key); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// Placeholder keys of local servers: the whole key only.
	if got := Redact("ollama serves llava; key none", "ollama"); got != "[redacted] serves llava; key none" {
		t.Errorf("short key: %q", got)
	}
}

// TestWaitingNotices: a call without an answer says so every second with
// the elapsed time, stops once content arrives, and never after Call has
// returned; cancelling ends the call (and the notices) at once.
func TestWaitingNotices(t *testing.T) {
	s := modeltest.New(t, modeltest.Reply{Content: "done", Delay: 2500 * time.Millisecond})
	c := newTestClient(t, s.URL, nil)
	var mu sync.Mutex
	var got []Waiting
	returned := false
	ctx := WithWaitNotice(context.Background(), func(w Waiting) {
		mu.Lock()
		defer mu.Unlock()
		if returned {
			t.Error("a notice after Call returned")
		}
		got = append(got, w)
	})
	if _, err := c.Call(ctx, userPrompt("x"), true, nil, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	returned = true
	if len(got) < 2 || got[0].ElapsedMs < 900 || got[1].ElapsedMs <= got[0].ElapsedMs || !got[1].Since.Equal(got[0].Since) {
		t.Fatalf("notices %+v", got)
	}
	mu.Unlock()

	// Stop: a cancelled call returns with the context's error while the
	// server is still silent.
	s2 := modeltest.New(t, modeltest.Reply{Silent: true})
	c2 := newTestClient(t, s2.URL, nil)
	cctx, cancel := context.WithCancel(context.Background())
	first := make(chan struct{})
	var once sync.Once
	cctx2 := WithWaitNotice(cctx, func(Waiting) { once.Do(func() { close(first) }) })
	errc := make(chan error, 1)
	go func() { _, err := c2.Call(cctx2, userPrompt("x"), true, nil, nil); errc <- err }()
	<-first
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Stop did not end the waiting call")
	}
}

// BenchmarkHostileReply: a server streaming without end; the client stops
// at its reply cap. peak-mb is the highest heap in use seen while it reads.
func BenchmarkHostileReply(b *testing.B) {
	s := modeltest.NewFunc(b, func(modeltest.Request) modeltest.Reply { return modeltest.Reply{Forever: true} })
	cfg := ClientConfig{BaseURL: s.URL, APIKey: testKey, Model: "gpt-4o"}
	c, err := NewClient(cfg)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	peak := uint64(0)
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
		}
	}()
	b.ResetTimer()
	for b.Loop() {
		for _, stream := range []bool{true, false} {
			if _, err := c.Call(context.Background(), userPrompt("x"), stream, nil, nil); !isTooLarge(err) {
				b.Fatalf("err %v", err)
			}
		}
	}
	close(stop)
	<-sampled
	mb := float64(peak) / (1 << 20)
	b.ReportMetric(mb, "peak-mb")
	if mb > 64 {
		b.Fatalf("peak heap %.0f MB with a %d MiB reply cap", mb, DefaultMaxReplyBytes>>20)
	}
}
