// Package mcpserver is Tandem's door for other agents: an MCP server
// (the Model Context Protocol; the official Go SDK,
// github.com/modelcontextprotocol/go-sdk) over stdio (`tandem mcp`) and,
// inside the running app when the person turns it on, over Streamable
// HTTP on 127.0.0.1 with a bearer token.
//
// It holds no application logic: every tool is a call on the one backend
// (tandem/backend), so a run another agent starts is a run like any other
// — the person's profile, policy and budgets, shown live in the window,
// paused, taken over or stopped there, recorded. What an MCP client can
// never be is the person: a sensitive action or a question waits for the
// person in the window when one is open, else is asked through MCP
// elicitation (which a client shows to its human), else waits, and
// get_run says so. The tool call itself is never consent.
package mcpserver

import (
	"context"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tandem/backend"
	"tandem/internal/version"
)

// Options are how a door runs the server.
type Options struct {
	// Window says whether Tandem's window is open to ask the person (the
	// app's HTTP server: yes; `tandem mcp` on its own: no).
	Window bool
}

// Protocol versions: 2025-11-25, and 2025-06-18 for older clients. Later
// versions deliver elicitation inside tool results (SEP-2322), which
// Tandem's long-running run_task does not use.
var protocolVersions = []string{"2025-11-25", "2025-06-18"}

// New is Tandem's MCP server over b.
func New(b *backend.Backend, o Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "tandem", Title: "Tandem", Version: version.Get().Version},
		&mcp.ServerOptions{
			Instructions: "Tandem runs tasks on the person's Android phones and this computer's displays with its own " +
				"watched agent: run_task hands it a goal; the person sees the run live in Tandem's window and can " +
				"pause, take over or stop it; sensitive actions wait for the person. screenshot, ui_state and act " +
				"look at and act on a device directly (coordinates 0-1000 on each axis).",
			SupportedProtocolVersions: protocolVersions,
		})
	t := &tools{b: b, window: o.Window}
	t.add(s)
	addResources(s, b)
	return s
}

// Serve runs the server over in and out (the process's stdin and stdout
// for `tandem mcp`) until the client leaves or ctx ends.
func Serve(ctx context.Context, b *backend.Backend, in io.ReadCloser, out io.WriteCloser) error {
	defer in.Close()
	defer out.Close()
	return New(b, Options{}).Run(ctx, &lineTransport{in: in, out: out, max: maxLine})
}

// clientName is the calling client's name as it introduced itself.
func clientName(ss *mcp.ServerSession) string {
	if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
		return p.ClientInfo.Name
	}
	return "an MCP client"
}

// canElicit says whether the client can ask its human (form elicitation).
func canElicit(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil &&
		(p.Capabilities.Elicitation.Form != nil || p.Capabilities.Elicitation.URL == nil)
}
