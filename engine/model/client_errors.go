package model

import (
	"context"
	"fmt"
	_ "image/jpeg" // DecodeConfig of JPEG screenshots for token estimates
	_ "image/png"  // and of PNG ones
	"net/http"
	"time"
)

// The client's errors: each names what went wrong in words a person can
// act on, and what errors.Is/As can test.

// AuthError is a 401, 403 or 404: the key, base URL or model name in the
// settings is wrong, and retrying cannot help. It wraps ErrAuth and
// *APIError.
type AuthError struct {
	APIError
	BaseURL, Model string
}

func (e *AuthError) Error() string {
	what := "the API key"
	switch e.Status {
	case http.StatusForbidden:
		what = "the API key's permissions"
	case http.StatusNotFound:
		what = "the base URL and model name"
	}
	return fmt.Sprintf("model API error %d at %s (model %q): %s — check %s in Settings → Models",
		e.Status, e.BaseURL, e.Model, e.Message, what)
}

// Unwrap lets errors.Is(err, ErrAuth) and errors.As(err, **APIError) work.
func (e *AuthError) Unwrap() []error { return []error{ErrAuth, &e.APIError} }

// StreamError is a streamed reply that carried no events at all: the
// server ignored stream=true or is not a chat-completions server. Not
// retried. (There is no setting to turn streaming off, so the message
// names none.)
type StreamError struct{}

func (e *StreamError) Error() string {
	return "model server sent no stream events: it may not support streaming, or the base URL is not a chat-completions API"
}

// StallError is a reply that did not come within a bound: no first byte,
// a silence between two pieces, or no complete reply within the attempt's
// Timeout. It wraps context.DeadlineExceeded.
type StallError struct {
	Phase string // StallFirstByte, StallIdle or StallTotal
	What  string
	After time.Duration
}

// Stall phases: which bound a StallError hit.
const (
	StallFirstByte = "first_byte" // FirstByte: nothing came
	StallIdle      = "idle"       // Idle: the reply stopped coming
	StallTotal     = "total"      // Timeout: no complete reply
)

func (e *StallError) Error() string {
	return fmt.Sprintf("model server timed out: %s after %s", e.What, e.After.Round(time.Millisecond))
}

// Unwrap lets errors.Is(err, context.DeadlineExceeded) work.
func (e *StallError) Unwrap() error { return context.DeadlineExceeded }

// TooLargeError is a reply past ClientConfig.MaxReplyBytes: a server that
// streams without end or answers with something that is not a reply. Not
// retried.
type TooLargeError struct{ Max int64 }

func (e *TooLargeError) Error() string {
	return "model reply is larger than " + e.Size() + " and was cut off: the server is not answering like a chat-completions API"
}

// Size is the cap in words ("4 MiB", "256 KiB").
func (e *TooLargeError) Size() string {
	if e.Max >= 1<<20 {
		return fmt.Sprintf("%d MiB", e.Max>>20)
	}
	return fmt.Sprintf("%d KiB", e.Max>>10)
}

// WebPageError is a 2xx answer that is an HTML page: the base URL points at
// a web site, a web UI or a login portal, not at the API. Not retried.
type WebPageError struct {
	Status  int
	BaseURL string
}

func (e *WebPageError) Error() string {
	if e.BaseURL == "" {
		return "the server answered with a web page, not the API (check the base URL)"
	}
	return fmt.Sprintf("the server answered with a web page, not the API (check the base URL %s)", e.BaseURL)
}

// NetError is a network failure talking to the model server, after retries.
// Down says nothing answered at all (refused, no such host): the server is
// not running or the base URL (BaseURL) is wrong.
type NetError struct {
	Msg     string
	Down    bool
	BaseURL string
}

func (e *NetError) Error() string { return "model server unreachable: " + e.Msg }
