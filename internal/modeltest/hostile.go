package modeltest

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// hostile answers the misbehaving replies (Silent, Forever without a
// stream, Body, EchoKey); it reports whether it did.
func (s *Server) hostile(w http.ResponseWriter, hr *http.Request, req Request, rep Reply) bool {
	switch {
	case rep.Silent:
		s.hold(hr)
	case rep.EchoKey:
		key := strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")
		status := rep.Status
		if status == 0 {
			status = http.StatusUnauthorized
		}
		writeError(w, status, "Incorrect API key provided: "+strings.Join(EchoedForms(key), ", ")+
			". You can find your API key at https://platform.example.com/account/api-keys.", "")
	case rep.Body != "":
		ct := rep.ContentType
		if ct == "" {
			ct = "text/html; charset=utf-8"
		}
		w.Header().Set("Content-Type", ct)
		if rep.Status != 0 {
			w.WriteHeader(rep.Status)
		}
		fmt.Fprint(writerFor(w, hr, s, rep.Drip), rep.Body)
	case rep.Forever && !req.Chat.Stream:
		w.Header().Set("Content-Type", "application/json")
		out := writerFor(w, hr, s, rep.Drip)
		if _, err := fmt.Fprint(out, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"`); err != nil {
			return true
		}
		chunk := strings.Repeat("still thinking ", 4096)
		for {
			if _, err := fmt.Fprint(out, chunk); err != nil {
				return true
			}
			if fl, ok := w.(http.Flusher); ok {
				fl.Flush()
			}
			if rep.ChunkDelay > 0 && !s.wait(hr, rep.ChunkDelay) {
				return true
			}
		}
	default:
		return false
	}
	return true
}

// EchoedForms are the ways servers repeat a key they refused: whole, its
// first 16 and 20 characters, lowercased, and masked ("sk-abc...xyz",
// "sk-abcd****wxyz"). A redaction test asserts none of them gets through.
func EchoedForms(key string) []string {
	if len(key) < 8 {
		return []string{key}
	}
	return []string{key, key[:min(16, len(key))], key[:min(20, len(key))], strings.ToLower(key), strings.ToUpper(key[:12]),
		key[:6] + "..." + key[len(key)-3:], key[:7] + "****" + key[len(key)-4:], key[:5] + "…" + key[len(key)-4:]}
}

// dripWriter writes one byte at a time with a gap, flushing each, until
// the client leaves.
type dripWriter struct {
	w   http.ResponseWriter
	hr  *http.Request
	s   *Server
	gap time.Duration
}

// writerFor returns w, or w dripping a byte per gap when gap > 0.
func writerFor(w http.ResponseWriter, hr *http.Request, s *Server, gap time.Duration) http.ResponseWriter {
	if gap <= 0 {
		return w
	}
	return &dripWriter{w: w, hr: hr, s: s, gap: gap}
}

func (d *dripWriter) Header() http.Header { return d.w.Header() }
func (d *dripWriter) WriteHeader(c int)   { d.w.WriteHeader(c) }
func (d *dripWriter) Flush()              {}

func (d *dripWriter) Write(p []byte) (int, error) {
	for i := range p {
		if _, err := d.w.Write(p[i : i+1]); err != nil {
			return i, err
		}
		if fl, ok := d.w.(http.Flusher); ok {
			fl.Flush()
		}
		if !d.s.wait(d.hr, d.gap) {
			return i + 1, http.ErrHandlerTimeout
		}
	}
	return len(p), nil
}
