package mcpserver

import (
	"fmt"
	"strconv"
	"sync"

	"tandem/backend"
)

// Served keeps the MCP server over HTTP running as the person's settings
// say (on or off, the port) with the token kept with their keys; the app
// syncs it when the settings change. Its Access is what Settings shows.
type Served struct {
	b      *backend.Backend
	window bool

	mu    sync.Mutex
	srv   *HTTP
	token string
	err   error
}

// Access is what Settings shows of the MCP server over HTTP.
type Access struct {
	On    bool   `json:"on"`
	URL   string `json:"url"`             // where clients connect
	Token string `json:"token"`           // the bearer token they send
	Error string `json:"error,omitempty"` // why it does not serve though on
}

// NewServed is the HTTP server of b's MCP server; window says the app's
// window is there to ask the person.
func NewServed(b *backend.Backend, window bool) *Served { return &Served{b: b, window: window} }

// Sync starts, restarts or stops the server as the settings say now.
func (s *Served) Sync() {
	set, _, err := s.b.GetSettingsOnly()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.err = err
		return
	}
	var token string
	if set.MCPHTTP {
		token, err = s.b.MCPToken(false, NewToken)
	}
	if s.srv != nil && set.MCPHTTP && s.srv.Port == set.MCPPort && s.token == token {
		return
	}
	s.closeLocked()
	s.err, s.token = err, token
	if !set.MCPHTTP || err != nil {
		return
	}
	s.srv, s.err = ListenHTTP(s.b, set.MCPPort, token, s.window)
}

// Renew makes a new token (the old one is refused from now on) and serves
// with it.
func (s *Served) Renew() error {
	if _, err := s.b.MCPToken(true, NewToken); err != nil {
		return fmt.Errorf("renew the MCP token: %w", err)
	}
	s.Sync()
	return nil
}

// Close stops the server (the app is closing).
func (s *Served) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeLocked()
}

func (s *Served) closeLocked() {
	if s.srv != nil {
		s.srv.Close()
		s.srv = nil
	}
}

// Access says whether the app serves MCP, where and with which token.
func (s *Served) Access() (Access, error) {
	set, _, err := s.b.GetSettingsOnly()
	if err != nil {
		return Access{}, err
	}
	out := Access{On: set.MCPHTTP, URL: "http://127.0.0.1:" + strconv.Itoa(set.MCPPort) + "/mcp"}
	if !set.MCPHTTP {
		return out, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out.Token = s.token
	switch {
	case s.err != nil:
		out.Error = s.err.Error()
	case s.srv == nil:
		out.Error = "not started"
	}
	return out, nil
}
