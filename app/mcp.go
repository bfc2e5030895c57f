package app

import (
	"fmt"
	"strconv"

	"tandem/mcpserver"
)

// The app serves Tandem to other agents over MCP (Streamable HTTP on
// 127.0.0.1) while the person has it on in Settings; the server is a door
// on the same backend as the window, and the window is there to ask the
// person what runs need them for.

// MCPAccess is what Settings shows of the MCP server over HTTP.
type MCPAccess struct {
	On    bool   `json:"on"`
	URL   string `json:"url"`             // where clients connect
	Token string `json:"token"`           // the bearer token they send
	Error string `json:"error,omitempty"` // why it does not serve though on
}

// mcpHTTP is the running server (nil: off) and why it is not when on.
type mcpHTTP struct {
	srv   *mcpserver.HTTP
	token string
	err   error
}

// syncMCP starts, restarts or stops the MCP server as the settings say.
func (a *App) syncMCP() {
	s, _, err := a.b.GetSettingsOnly()
	a.mu.Lock()
	defer a.mu.Unlock()
	m := &a.mcp
	if err != nil {
		m.err = err
		return
	}
	var token string
	if s.MCPHTTP {
		token, err = a.b.MCPToken(false, mcpserver.NewToken)
	}
	same := m.srv != nil && s.MCPHTTP && m.srv.Port == s.MCPPort && m.token == token
	if same {
		return
	}
	if m.srv != nil {
		m.srv.Close()
		m.srv = nil
	}
	m.err, m.token = err, token
	if !s.MCPHTTP || err != nil {
		return
	}
	m.srv, m.err = mcpserver.ListenHTTP(a.b, s.MCPPort, token, true)
}

// stopMCP stops the MCP server (the app is closing).
func (a *App) stopMCP() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.mcp.srv != nil {
		a.mcp.srv.Close()
		a.mcp.srv = nil
	}
}

// MCPAccess says whether the app serves MCP, where and with which token.
func (a *SettingsAPI) MCPAccess() (_ MCPAccess, err error) {
	defer toUI(&err)
	s, _, err := a.b.GetSettingsOnly()
	if err != nil {
		return MCPAccess{}, err
	}
	out := MCPAccess{On: s.MCPHTTP, URL: "http://127.0.0.1:" + strconv.Itoa(s.MCPPort) + "/mcp"}
	if !s.MCPHTTP {
		return out, nil
	}
	a.mu.Lock()
	out.Token = a.mcp.token
	if a.mcp.err != nil {
		out.Error = a.mcp.err.Error()
	} else if a.mcp.srv == nil {
		out.Error = "not started"
	}
	a.mu.Unlock()
	return out, nil
}

// RenewMCPToken makes a new bearer token (the old one is refused from now
// on) and restarts the server with it.
func (a *SettingsAPI) RenewMCPToken() (_ MCPAccess, err error) {
	defer toUI(&err)
	if _, err := a.b.MCPToken(true, mcpserver.NewToken); err != nil {
		return MCPAccess{}, fmt.Errorf("renew the MCP token: %w", err)
	}
	a.syncMCP()
	return a.MCPAccess()
}
