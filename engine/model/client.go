package model

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // DecodeConfig of JPEG screenshots for token estimates
	_ "image/png"  // and of PNG ones
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"tandem/engine/observe"
)

// ClientConfig configures a Client. Zero values take the defaults noted.
type ClientConfig struct {
	BaseURL string // e.g. http://127.0.0.1:8000/v1
	APIKey  string // never logged; redacted from every error
	Model   string
	// Timeout bounds one attempt, streaming included (default 120 s).
	Timeout time.Duration
	// FirstByte bounds the wait for a streamed reply's first byte: a server
	// that accepts the connection and stays silent (default 60 s). A
	// non-streamed reply sends nothing until it is complete, so only Timeout
	// bounds it.
	FirstByte time.Duration
	// Idle bounds the silence between two reads of a reply once it started
	// (default 30 s).
	Idle time.Duration
	// MaxReplyBytes caps the bytes read of one reply, headers excluded
	// (default 4 MiB; the largest real reply seen is a few tens of KiB):
	// past it the call fails with *TooLargeError instead of growing.
	MaxReplyBytes int64
	// Retries is how many times a 429, 5xx or network failure is retried
	// (default 3; negative means none).
	Retries int
	// Backoff is the first retry delay, doubled each retry with ±50 %
	// jitter, capped at MaxBackoff (defaults 500 ms and 20 s). A server's
	// Retry-After wins when it is longer, up to MaxBackoff.
	Backoff, MaxBackoff time.Duration
	MaxTokens           int
	Temperature         float32
	// Sampling is sent explicitly in every request, zeros included; its
	// fields win over MaxTokens and Temperature above.
	Sampling Sampling
	// NoStreamUsage leaves stream_options out of streamed requests, for
	// servers that reject it.
	NoStreamUsage bool
	// Prices prices the usage; a model it lacks (or a nil table) leaves
	// Cost zero and marks the usage Unpriced.
	Prices *PriceTable
	// HTTP sends the requests (default: an http.Client without its own
	// timeout; the context bounds each call).
	HTTP openai.HTTPDoer
	// Limit, when set, bounds the requests in flight to this server and
	// model across every client that shares it: an attempt waits for a
	// slot (bounded by the call's context only, not Timeout), and a
	// waiting call's notices say how many requests are ahead.
	Limit *Limiter
}

// DefaultMaxReplyBytes is the default cap on one reply's bytes.
const DefaultMaxReplyBytes = 4 << 20

// Client calls one OpenAI-compatible chat-completions endpoint.
type Client struct {
	cfg    ClientConfig
	api    *openai.Client
	tokens *observe.Tokens
}

// NewClient checks cfg and builds a client.
func NewClient(cfg ClientConfig) (*Client, error) {
	if strings.TrimSpace(cfg.BaseURL) == "" {
		return nil, fmt.Errorf("model client: %w: no base URL", ErrAuth)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 120 * time.Second
	}
	if cfg.FirstByte <= 0 {
		cfg.FirstByte = 60 * time.Second
	}
	if cfg.Idle <= 0 {
		cfg.Idle = 30 * time.Second
	}
	if cfg.MaxReplyBytes <= 0 {
		cfg.MaxReplyBytes = DefaultMaxReplyBytes
	}
	if cfg.Retries == 0 {
		cfg.Retries = 3
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = 500 * time.Millisecond
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = 20 * time.Second
	}
	if cfg.HTTP == nil {
		cfg.HTTP = &http.Client{}
	}
	tk, err := observe.NewTokens()
	if err != nil {
		return nil, err
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	cfg.explicit()
	oc.HTTPClient = &sampledBody{s: cfg.Sampling, next: &doer{next: cfg.HTTP}}
	return &Client{cfg: cfg, api: openai.NewClientWithConfig(oc), tokens: tk}, nil
}

// Model returns the configured model name.
func (c *Client) Model() string { return c.cfg.Model }

// Result is one completed call.
type Result struct {
	Reply        Reply
	Usage        Usage
	Latency      time.Duration // of the successful attempt
	RequestBytes int
	Attempts     int
	// Stopped is set when reading stopped early because the reply was
	// already complete (Call's done func said so).
	Stopped bool
}

// Call sends the prompt. When stream is true the reply is streamed: each
// content delta goes to onDelta as it arrives, and reading stops (closing
// the connection) once done(contentSoFar) reports the reply complete. Either
// func may be nil. A stream that fails midway and is retried starts over,
// so onDelta then sees the reply restart. Errors: a 401/403/404 wraps ErrAuth and is not retried;
// other HTTP failures are *APIError after retries; a cancelled ctx returns
// ctx's error at once.
func (c *Client) Call(ctx context.Context, p Prompt, stream bool, onDelta func(string), done func(string) bool) (Result, error) {
	req := openai.ChatCompletionRequest{Model: c.cfg.Model, Messages: wireMessages(p.Messages), Tools: wireTools(p.Tools),
		ToolChoice: wireToolChoice(p.ToolChoice), Temperature: c.cfg.Temperature}
	//lint:ignore SA1019 vLLM, Ollama, LM Studio and the Chinese clouds read max_tokens, not max_completion_tokens.
	req.MaxTokens = c.cfg.MaxTokens
	if stream && !c.cfg.NoStreamUsage {
		req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	// The key is masked in the reply before anything of it leaves the
	// client: a model may repeat it in a reply that succeeds, and the
	// reply goes to the UI, the terminal and the record.
	masked := newMaskedDeltas(c.cfg.APIKey, onDelta)
	if masked != nil {
		onDelta = masked.write
	}
	var place func(int)
	if fn, ok := ctx.Value(waitKey{}).(func(Waiting)); ok {
		var stop func()
		onDelta, place, stop = c.waitNotices(fn, onDelta)
		defer stop()
	}
	var last error
	stalls := 0
	for attempt := 0; ; attempt++ {
		info := &attemptInfo{stream: stream, firstByte: c.cfg.FirstByte, idle: c.cfg.Idle, max: c.cfg.MaxReplyBytes}
		masked.reset()
		start := time.Now()
		res, err := c.attempt(ctx, req, info, place, onDelta, done)
		if err == nil {
			masked.end()
			res.Latency = time.Since(start)
			res.RequestBytes = info.requestBytes
			res.Attempts = attempt + 1
			c.account(&res, req)
			res.Reply = c.redactReply(res.Reply)
			return res, nil
		}
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		if info.pageBody() {
			return Result{}, c.redactErr(&WebPageError{Status: info.status})
		}
		var se *StreamError
		if errors.As(err, &se) {
			return Result{}, err
		}
		err, retry := c.classify(err, info)
		last = err
		if errors.Is(err, context.DeadlineExceeded) {
			// A stall is tried once more at most: each costs up to a
			// Timeout, and the person is waiting.
			stalls++
			retry = retry && stalls < 2
		}
		if !retry || attempt >= c.cfg.Retries {
			return Result{}, last
		}
		wait := c.backoff(attempt, info.retryAfter)
		if notice, ok := ctx.Value(retryKey{}).(func(Retry)); ok {
			notice(Retry{Attempt: attempt + 1, Of: c.cfg.Retries + 1, WaitMs: wait.Milliseconds(), Status: statusOf(err), Error: err.Error()})
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return Result{}, ctx.Err()
		case <-t.C:
		}
	}
}

// attempt sends req once, after waiting for a slot of the limit (place
// hears the call's place in the queue), bounded by Timeout from when it
// is sent.
func (c *Client) attempt(ctx context.Context, req openai.ChatCompletionRequest, info *attemptInfo, place func(int),
	onDelta func(string), done func(string) bool) (Result, error) {
	release, err := c.cfg.Limit.Acquire(ctx, place)
	if err != nil {
		return Result{}, err
	}
	// The reply is read or dropped when this returns: the request is no
	// longer in flight.
	defer release()
	actx, cancel := context.WithTimeout(context.WithValue(ctx, attemptKey{}, info), c.cfg.Timeout)
	defer cancel()
	if info.stream {
		return c.stream(actx, req, onDelta, done)
	}
	return c.once(actx, req)
}

func (c *Client) once(ctx context.Context, req openai.ChatCompletionRequest) (Result, error) {
	resp, err := c.api.CreateChatCompletion(ctx, req)
	if err != nil {
		return Result{}, err
	}
	if len(resp.Choices) == 0 {
		return Result{}, &APIError{Status: http.StatusOK, Message: "reply has no choices"}
	}
	m := resp.Choices[0].Message
	res := Result{Reply: Reply{Content: m.Content, Reasoning: m.ReasoningContent, ToolCalls: toolCalls(m.ToolCalls)}}
	if resp.Usage.PromptTokens > 0 || resp.Usage.CompletionTokens > 0 {
		res.Usage = Usage{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens}
	}
	return res, nil
}

func (c *Client) stream(ctx context.Context, req openai.ChatCompletionRequest, onDelta func(string), done func(string) bool) (Result, error) {
	st, err := c.api.CreateChatCompletionStream(ctx, req)
	if err != nil {
		return Result{}, err
	}
	// Close ends the response body; unread, the connection is closed, so a
	// server generating a long reply sees the client leave.
	defer st.Close()
	var content, reasoning strings.Builder
	var calls []openai.ToolCall
	var res Result
	chunks := 0
	for {
		chunk, err := st.Recv()
		if errors.Is(err, io.EOF) {
			if chunks == 0 {
				return Result{}, &StreamError{}
			}
			break
		}
		if err != nil {
			return Result{}, err
		}
		chunks++
		if chunk.Usage != nil {
			res.Usage = Usage{PromptTokens: chunk.Usage.PromptTokens, CompletionTokens: chunk.Usage.CompletionTokens}
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			reasoning.WriteString(ch.Delta.ReasoningContent)
			calls = mergeToolCalls(calls, ch.Delta.ToolCalls)
			if ch.Delta.Content == "" {
				continue
			}
			content.WriteString(ch.Delta.Content)
			if onDelta != nil {
				onDelta(ch.Delta.Content)
			}
		}
		if done != nil && len(calls) == 0 && content.Len() > 0 && done(content.String()) {
			res.Stopped = true
			break
		}
	}
	res.Reply = Reply{Content: content.String(), Reasoning: reasoning.String(), ToolCalls: toolCalls(calls)}
	return res, nil
}

// mergeToolCalls folds streamed tool-call deltas (keyed by index; the first
// delta of a call carries its id and name, later ones argument pieces).
func mergeToolCalls(calls []openai.ToolCall, deltas []openai.ToolCall) []openai.ToolCall {
	for _, d := range deltas {
		i := len(calls)
		if d.Index != nil {
			i = *d.Index
		}
		if i < 0 || i > len(calls)+16 {
			continue
		}
		for len(calls) <= i {
			calls = append(calls, openai.ToolCall{Type: openai.ToolTypeFunction})
		}
		if d.ID != "" {
			calls[i].ID = d.ID
		}
		if d.Type != "" {
			calls[i].Type = d.Type
		}
		calls[i].Function.Name += d.Function.Name
		calls[i].Function.Arguments += d.Function.Arguments
	}
	for i := range calls {
		calls[i].Index = nil
	}
	return calls
}

// account fills in estimated usage when the server sent none, and the cost.
func (c *Client) account(res *Result, req openai.ChatCompletionRequest) {
	if res.Usage.PromptTokens == 0 && res.Usage.CompletionTokens == 0 {
		res.Usage = Usage{PromptTokens: c.promptTokens(req.Messages),
			CompletionTokens: c.tokens.Count(res.Reply.Content) + c.tokens.Count(res.Reply.Reasoning),
			Estimated:        true}
		for _, tc := range res.Reply.ToolCalls {
			res.Usage.CompletionTokens += c.tokens.Count(tc.Name) + c.tokens.Count(tc.Arguments)
		}
	}
	if p, ok := c.cfg.Prices.Lookup(c.cfg.Model); ok {
		res.Usage.Cost = c.cfg.Prices.Cost(c.cfg.Model, res.Usage)
		res.Usage.Currency = p.Currency
	} else {
		res.Usage.Unpriced = true
	}
}

// promptTokens estimates the prompt's tokens: text by o200k_base plus 4 per
// message for the chat framing, images by observe.ImageTokens (the size read
// from the data URL's header; 765 tokens, a 1024x1024 image, when unknown).
func (c *Client) promptTokens(msgs []openai.ChatCompletionMessage) int {
	n := 3
	for _, m := range msgs {
		n += 4 + c.tokens.Count(m.Content)
		for _, p := range m.MultiContent {
			switch {
			case p.Type == openai.ChatMessagePartTypeText:
				n += c.tokens.Count(p.Text)
			case p.ImageURL != nil:
				n += imageURLTokens(p.ImageURL.URL)
			}
		}
		for _, tc := range m.ToolCalls {
			n += c.tokens.Count(tc.Function.Name) + c.tokens.Count(tc.Function.Arguments)
		}
	}
	return n
}

func imageURLTokens(url string) int {
	const unknown = 765
	_, data, ok := strings.Cut(url, ";base64,")
	if !ok || !strings.HasPrefix(url, "data:") {
		return unknown
	}
	// The header is in the first few hundred bytes.
	head := data[:min(len(data), 4096)]
	head = head[:len(head)/4*4]
	raw, err := base64.StdEncoding.DecodeString(head)
	if err != nil {
		return unknown
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		return unknown
	}
	return observe.ImageTokens(cfg.Width, cfg.Height)
}

// Retry is a failed attempt that the client is about to try again: what
// someone waiting on the call needs to know why it takes so long.
type Retry struct {
	Attempt int    `json:"attempt"`          // the attempt that failed, from 1
	Of      int    `json:"of"`               // attempts in all
	WaitMs  int64  `json:"wait_ms"`          // before the next one
	Status  int    `json:"status,omitempty"` // the HTTP status; 0 for a network error or a timeout
	Error   string `json:"error"`            // with the key redacted
}

type retryKey struct{}

// Waiting is a call that has no answer yet: what the person sees as
// "waiting for the model (12 s)…", or, while the call waits its turn
// behind other runs' requests to the same model (ClientConfig.Limit),
// "waiting for the model: 2 ahead". Since is when the call began, so a UI
// can count on by itself between notices.
type Waiting struct {
	Since     time.Time `json:"since"`
	ElapsedMs int64     `json:"elapsed_ms"`
	// Ahead is how many requests to this model go before this call's
	// (those in flight and those queued before it) while it waits its
	// turn; 0 once its request is sent.
	Ahead int `json:"ahead,omitempty"`
}

type waitKey struct{}

// waitTick is how often a waiting call says so.
const waitTick = time.Second

// WithWaitNotice returns ctx with fn, which Call invokes (on a goroutine of
// its own) every second from the call's start until the first piece of the
// reply's content arrives or the call returns, and at once whenever its
// place in the model's queue changes (queued, moved up, sent); no notice
// comes after Call returned.
func WithWaitNotice(ctx context.Context, fn func(Waiting)) context.Context {
	return context.WithValue(ctx, waitKey{}, fn)
}

// waitNotices starts the goroutine behind WithWaitNotice, the only one
// that calls fn. It returns onDelta wrapped to end the timed notices at
// the first content, place, which the limiter calls with the call's place
// in the queue, and stop, which ends the notices and waits until no
// notice is being given.
func (c *Client) waitNotices(fn func(Waiting), onDelta func(string)) (func(string), func(int), func()) {
	since := time.Now()
	var answered atomic.Bool
	var ahead atomic.Int64
	moved := make(chan struct{}, 1)
	quit, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(waitTick)
		defer t.Stop()
		for {
			var now time.Time
			select {
			case <-quit:
				return
			case now = <-t.C:
				if answered.Load() && ahead.Load() == 0 {
					continue
				}
			case <-moved:
				now = time.Now()
			}
			fn(Waiting{Since: since, ElapsedMs: now.Sub(since).Milliseconds(), Ahead: int(ahead.Load())})
		}
	}()
	wrapped := func(d string) {
		answered.Store(true)
		if onDelta != nil {
			onDelta(d)
		}
	}
	place := func(n int) {
		ahead.Store(int64(n))
		select {
		case moved <- struct{}{}:
		default:
		}
	}
	return wrapped, place, func() { close(quit); <-exited }
}

// WithRetryNotice returns ctx with fn, which Call invokes (on its own
// goroutine) before waiting to retry a failed attempt.
func WithRetryNotice(ctx context.Context, fn func(Retry)) context.Context {
	return context.WithValue(ctx, retryKey{}, fn)
}

// statusOf is the HTTP status a retried error carries, or 0 (auth errors
// are never retried, so only APIError has one).
func statusOf(err error) int {
	var api *APIError
	if errors.As(err, &api) {
		return api.Status
	}
	return 0
}

// classify turns a failed attempt into the error to return and whether to
// retry it.
func (c *Client) classify(err error, info *attemptInfo) (error, bool) {
	status, msg := 0, ""
	var ae *openai.APIError
	var re *openai.RequestError
	switch {
	case errors.As(err, &ae):
		status, msg = ae.HTTPStatusCode, ae.Message
	case errors.As(err, &re):
		status, msg = re.HTTPStatusCode, strings.TrimSpace(string(re.Body))
	}
	if f := info.failure(); f != nil {
		var stall *StallError
		return c.redactErr(f), errors.As(f, &stall)
	}
	if status == 0 && info.status >= 400 {
		status = info.status
	}
	if info.webPage && status >= 400 {
		msg = fmt.Sprintf("the server answered with a web page, not the API (check the base URL %s)", c.redact(c.cfg.BaseURL))
	}
	msg = c.redact(msg)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden || status == http.StatusNotFound:
		return &AuthError{APIError: APIError{Status: status, Message: msg}, BaseURL: c.redact(c.cfg.BaseURL), Model: c.cfg.Model}, false
	case status == http.StatusTooManyRequests || status >= 500:
		return &APIError{Status: status, Message: msg}, true
	case status >= 400:
		return &APIError{Status: status, Message: msg}, false
	case errors.Is(err, context.DeadlineExceeded):
		return &StallError{Phase: StallTotal, What: "no complete reply", After: c.cfg.Timeout}, true
	}
	var ne net.Error
	var oe *net.OpError
	if errors.As(err, &ne) || errors.As(err, &oe) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		var dns *net.DNSError
		down := errors.As(err, &oe) && oe.Op == "dial" || errors.As(err, &dns)
		return &NetError{Msg: c.redact(err.Error()), Down: down, BaseURL: c.redact(c.cfg.BaseURL)}, true
	}
	// Anything else (a malformed body, an error event mid-stream) is
	// reported as the server's fault and retried like a 5xx.
	return &APIError{Status: info.status, Message: c.redact(err.Error())}, true
}

func (c *Client) redact(s string) string { return Redact(s, c.cfg.APIKey) }

// redactReply masks the key in everything a reply says.
func (c *Client) redactReply(r Reply) Reply {
	r.Content, r.Reasoning = c.redact(r.Content), c.redact(r.Reasoning)
	r.ToolCalls = slices.Clone(r.ToolCalls)
	for i := range r.ToolCalls {
		tc := &r.ToolCalls[i]
		tc.ID, tc.Name, tc.Arguments = c.redact(tc.ID), c.redact(tc.Name), c.redact(tc.Arguments)
	}
	return r
}

// redactErr redacts the words of the client's own typed failures.
func (c *Client) redactErr(err error) error {
	if we, ok := err.(*WebPageError); ok { //nolint:errorlint // the client's own failure, never wrapped: rewritten whole
		w := *we
		w.BaseURL = c.redact(c.cfg.BaseURL)
		return &w
	}
	return err
}

func (c *Client) backoff(attempt int, retryAfter time.Duration) time.Duration {
	d := c.cfg.Backoff << min(attempt, 20)
	d = time.Duration(float64(d) * (0.5 + rand.Float64())) // ±50 % jitter
	d = max(d, retryAfter)
	return min(d, c.cfg.MaxBackoff)
}

// String describes the config with the API key redacted, so printing a
// config (%v, %+v) never leaks it.
func (c ClientConfig) String() string {
	key := "none"
	if c.APIKey != "" {
		key = "[redacted]"
	}
	return fmt.Sprintf("model %q at %s (key %s, timeout %s, retries %d)", c.Model, c.BaseURL, key, c.Timeout, c.Retries)
}

// GoString keeps %#v from printing the key too.
func (c ClientConfig) GoString() string { return "model.ClientConfig{" + c.String() + "}" }

// LogValue keeps slog from printing the key.
func (c ClientConfig) LogValue() slog.Value { return slog.StringValue(c.String()) }
