package model

import (
	"bytes"
	"context"
	_ "image/jpeg" // DecodeConfig of JPEG screenshots for token estimates
	_ "image/png"  // and of PNG ones
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// The wire under the client: one attempt's HTTP exchange, its first-byte,
// idle and size bounds (watchdog), and what a server's reply headers say.

type attemptKey struct{}

// attemptInfo carries what the doer saw of one attempt's HTTP exchange,
// and the bounds it enforces.
type attemptInfo struct {
	status       int
	retryAfter   time.Duration
	requestBytes int
	webPage      bool // an error body that is an HTML page

	stream          bool
	firstByte, idle time.Duration
	max             int64

	mu    sync.Mutex
	fault error  // why the doer cut the reply short (a bound, a web page)
	head  []byte // the first bytes of a 2xx body
}

// pageBody reports whether the 2xx body began like an HTML page.
func (a *attemptInfo) pageBody() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return isWebPage(http.Header{}, a.head)
}

func (a *attemptInfo) sawBytes(p []byte) {
	a.mu.Lock()
	if n := 64 - len(a.head); n > 0 {
		a.head = append(a.head, p[:min(n, len(p))]...)
	}
	a.mu.Unlock()
}

func (a *attemptInfo) fail(err error) {
	a.mu.Lock()
	if a.fault == nil {
		a.fault = err
	}
	a.mu.Unlock()
}

func (a *attemptInfo) failure() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.fault
}

// doer wraps the HTTP client: it records the request size, the status and
// Retry-After, and buffers error bodies so they are always closed.
type doer struct{ next openai.HTTPDoer }

func (d *doer) Do(req *http.Request) (*http.Response, error) {
	info, _ := req.Context().Value(attemptKey{}).(*attemptInfo)
	if info != nil && req.ContentLength > 0 {
		info.requestBytes = int(req.ContentLength)
	}
	if info == nil {
		return d.next.Do(req)
	}
	ctx, cancel := context.WithCancelCause(req.Context())
	req = req.WithContext(ctx)
	w := &watchdog{info: info, cancel: cancel, left: info.max}
	if info.stream {
		w.arm(info.firstByte, &StallError{Phase: StallFirstByte, What: "no first byte of the reply", After: info.firstByte})
	}
	resp, err := d.next.Do(req)
	if err != nil {
		w.stop()
		if f := info.failure(); f != nil {
			return nil, f
		}
		return nil, err
	}
	info.status = resp.StatusCode
	if resp.StatusCode >= 400 {
		w.stop()
		info.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		info.webPage = isWebPage(resp.Header, body)
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return resp, nil
	}
	if isWebPage(resp.Header, nil) {
		w.stop()
		resp.Body.Close()
		err := &WebPageError{Status: resp.StatusCode}
		info.fail(err)
		return nil, err
	}
	w.body = resp.Body
	resp.Body = w
	return resp, nil
}

// isWebPage tells an HTML page (a proxy's, a login portal's, a web UI's
// at the wrong base URL) from an API reply, by its type or its first bytes.
func isWebPage(h http.Header, body []byte) bool {
	if ct := strings.ToLower(h.Get("Content-Type")); strings.HasPrefix(ct, "text/html") || strings.HasPrefix(ct, "application/xhtml") {
		return true
	}
	head := strings.ToLower(strings.TrimSpace(string(body[:min(len(body), 64)])))
	return strings.HasPrefix(head, "<!doctype html") || strings.HasPrefix(head, "<html")
}

// watchdog is a reply body that enforces the attempt's bounds: the first
// byte and the idle gap (a timer re-armed by every read that returns data)
// and the size cap. A bound that trips records why in the attempt and
// cancels the request, so a blocked read returns at once.
type watchdog struct {
	body   io.ReadCloser
	info   *attemptInfo
	cancel context.CancelCauseFunc
	left   int64

	mu    sync.Mutex
	timer *time.Timer
}

func (w *watchdog) arm(d time.Duration, why error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
	}
	w.timer = time.AfterFunc(d, func() { w.trip(why) })
}

func (w *watchdog) trip(why error) {
	w.info.fail(why)
	w.cancel(why)
}

func (w *watchdog) stop() {
	w.mu.Lock()
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
}

func (w *watchdog) Read(p []byte) (int, error) {
	if w.left <= 0 {
		err := &TooLargeError{Max: w.info.max}
		w.trip(err)
		return 0, err
	}
	if int64(len(p)) > w.left {
		p = p[:w.left]
	}
	n, err := w.body.Read(p)
	w.left -= int64(n)
	if n > 0 {
		w.info.sawBytes(p[:n])
		w.arm(w.info.idle, &StallError{Phase: StallIdle, What: "the reply stopped coming", After: w.info.idle})
	}
	if err != nil {
		if f := w.info.failure(); f != nil {
			err = f
		}
	}
	return n, err
}

func (w *watchdog) Close() error {
	w.stop()
	w.cancel(nil)
	return w.body.Close()
}

// parseRetryAfter reads delta-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
