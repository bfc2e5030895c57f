package backend

import (
	"net/url"
	"strings"
	"sync"

	"tandem/engine/model"
)

// modelLimits are the request limiters of the model servers runs use: one
// per server and model, shared by every run that calls it, so that a
// profile's "requests at once" bounds what the server sees from this
// Tandem however many runs, and however many profiles, call it.
//
// The key is the base URL and the model, not the profile: two profiles
// (a "fast" and a "careful" one with other sampling) often name the same
// local server, and the server's capacity is what the limit is about. The
// model is part of the key because servers that host several models
// schedule each apart (Ollama's OLLAMA_NUM_PARALLEL is per loaded model,
// LM Studio's "Max Concurrent Predictions" is set per model load, vLLM
// serves one model per process), and a cloud API's rate limits are per
// model. The limit is the one of the saved profile the newest run started
// with: an edit counts from the next run, as prices do; a model a door
// gave in full (`tandem run --base-url`) takes the limit already set for
// its server and model, or none. The limits hold within this process;
// another Tandem (a second `tandem run`) keeps its own.
type modelLimits struct {
	mu sync.Mutex
	by map[string]*model.Limiter
}

// of returns the limiter for p's server and model, set to p's limit when
// p is a saved profile.
func (m *modelLimits) of(p Profile, saved bool) *model.Limiter {
	key := limitKey(p)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.by == nil {
		m.by = map[string]*model.Limiter{}
	}
	l, ok := m.by[key]
	if !ok {
		l = model.NewLimiter(p.MaxInFlight)
		m.by[key] = l
	}
	if saved {
		l.SetMax(p.MaxInFlight)
	}
	return l
}

// limitKey names a server and model the same however the base URL was
// typed: the scheme and host in lower case, no trailing slash.
func limitKey(p Profile) string {
	base := strings.TrimSpace(p.BaseURL)
	if u, err := url.Parse(base); err == nil {
		u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
		u.Path = strings.TrimRight(u.Path, "/")
		base = u.String()
	}
	return base + "\x00" + strings.TrimSpace(p.Model)
}
