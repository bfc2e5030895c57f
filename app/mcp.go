package app

import "tandem/mcpserver"

// The app serves Tandem to other agents over MCP (Streamable HTTP on
// 127.0.0.1) while the person has it on in Settings (mcpserver.Served);
// the window is there to ask the person what runs need them for.

// MCPAccess is what Settings shows of the MCP server over HTTP.
type MCPAccess = mcpserver.Access

// MCPAccess says whether the app serves MCP, where and with which token.
func (a *SettingsAPI) MCPAccess() (_ MCPAccess, err error) {
	defer toUI(&err)
	return a.mcp.Access()
}

// RenewMCPToken makes a new bearer token (the old one is refused from now
// on) and serves with it.
func (a *SettingsAPI) RenewMCPToken() (_ MCPAccess, err error) {
	defer toUI(&err)
	if err := a.mcp.Renew(); err != nil {
		return MCPAccess{}, err
	}
	return a.mcp.Access()
}
