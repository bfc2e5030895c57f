package app

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tandem/backend"
)

// headerTransport adds headers to every request of an MCP client.
type headerTransport struct {
	h    http.Header
	base http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header[k] = v
	}
	if host := t.h.Get("Host"); host != "" {
		r.Host = host
	}
	return t.base.RoundTrip(r)
}

// mcpOverHTTP connects the official Go SDK's client to the app's server.
func mcpOverHTTP(ctx context.Context, url string, h http.Header) (*mcp.ClientSession, error) {
	tr := &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: headerTransport{h: h, base: http.DefaultTransport}}}
	return mcp.NewClient(&mcp.Implementation{Name: "go-sdk-agent", Version: "1"}, nil).Connect(ctx, tr, nil)
}

// The app serves the same MCP server over Streamable HTTP on 127.0.0.1
// when the person turns it on in Settings (off by default): the Go SDK's
// client runs a task to Done with the bearer token; a wrong token, a
// page's Origin or a foreign Host are refused and nothing runs.
func TestTheAppServesMCPOverHTTP(t *testing.T) {
	privateADBServer(t)
	a := testApp(t)
	if err := a.begin(context.Background(), nopNotifier); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.shutdown)
	if acc, err := a.api.Settings.MCPAccess(); err != nil || acc.On || acc.Token != "" {
		t.Fatalf("MCP over HTTP is on by default: %+v %v", acc, err)
	}
	dev, err := a.api.Devices.StartVirtualPhone()
	if err != nil {
		t.Fatal(err)
	}
	phone := virtualPhone(t, a, dev.ID)
	srv := counterModel(t, phone)
	if _, err := a.api.Settings.SaveProfile(backend.Profile{Name: "scripted", BaseURL: srv.URL, Model: "scripted", Dialect: "tools", Variant: "rel1000"}, "sk-http-0000"); err != nil {
		t.Fatal(err)
	}
	port := freeLoopbackPort(t)
	if _, err := a.api.Settings.UpdateSettings(map[string]json.RawMessage{"mcp_http": json.RawMessage("true"),
		"mcp_port": json.RawMessage(strconv.Itoa(port))}); err != nil {
		t.Fatal(err)
	}
	acc, err := a.api.Settings.MCPAccess()
	if err != nil || !acc.On || acc.Error != "" || !strings.HasPrefix(acc.Token, "tdm_") || acc.URL != "http://127.0.0.1:"+strconv.Itoa(port)+"/mcp" {
		t.Fatalf("MCP access once on: %+v %v", acc, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// Refused: no tool runs, the phone is untouched.
	for name, h := range map[string]http.Header{
		"no token":      {},
		"wrong token":   {"Authorization": {"Bearer tdm_wrong"}},
		"a page":        {"Authorization": {"Bearer " + acc.Token}, "Origin": {"http://evil.example"}},
		"foreign host":  {"Authorization": {"Bearer " + acc.Token}, "Host": {"evil.example:" + strconv.Itoa(port)}},
		"rebinded host": {"Authorization": {"Bearer " + acc.Token}, "Host": {"tandem.attacker.test"}},
	} {
		if cs, err := mcpOverHTTP(ctx, acc.URL, h); err == nil {
			cs.Close()
			t.Errorf("%s: connected", name)
		}
		if code := rawPost(t, acc.URL, h); code != http.StatusUnauthorized && code != http.StatusForbidden {
			t.Errorf("%s: a raw tools/call answered %d", name, code)
		}
	}
	if len(srv.Requests()) != 0 || len(phone.Events()) != 0 || len(a.b.ActiveRuns()) != 0 {
		t.Fatal("a refused request ran something")
	}

	cs, err := mcpOverHTTP(ctx, acc.URL, http.Header{"Authorization": {"Bearer " + acc.Token}})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_task", Arguments: map[string]any{"device": dev.ID, "goal": "Make the counter show 1"}})
	if err != nil || res.IsError {
		t.Fatalf("run_task over HTTP: %+v %v", res, err)
	}
	out, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(out), `"state":"Done"`) || phone.State().Counter != 1 {
		t.Fatalf("run_task over HTTP: %s (counter %d)", out, phone.State().Counter)
	}
}

// rawPost sends a tools/call as a browser or another program would,
// without the SDK, and returns the status.
func rawPost(t *testing.T, url string, h http.Header) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_devices","arguments":{}}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h.Clone()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if host := h.Get("Host"); host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}
