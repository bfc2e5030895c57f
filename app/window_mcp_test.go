package app

import (
	"context"
	"encoding/json"
	"image"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/sashabaranov/go-openai"

	"tandem/backend"
	"tandem/internal/modeltest"
	"tandem/internal/uicheck"
	"tandem/internal/xvfb"
	"tandem/mcpserver"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// TestARunStartedOverMCPIsThePersons: the production window under Xvfb
// serves MCP over HTTP (turned on in Settings). Another agent (the Go
// SDK's client) starts a task; the run shows in the window, and the
// person pauses it there with the Pause button; the client's get_run
// reports Paused; the person resumes it in the window and the task ends
// Done, which the client's run_task returns.
func TestARunStartedOverMCPIsThePersons(t *testing.T) {
	bin := productionBinary(t, "import", "xdotool")
	d := xvfb.Start(t, 1280, 860)
	phone, env := vphonetest.Start(t)
	if err := phone.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	var once sync.Once
	srv := counterUntilReleased(t, phone, release)
	cfg, data, port := t.TempDir(), t.TempDir(), freeLoopbackPort(t)
	token := seedMCP(t, cfg, data, srv.URL, port)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(d.Env(), "TANDEM_CONFIG_DIR="+cfg, "TANDEM_DATA_DIR="+data, "LANG=en_US.UTF-8",
		"TANDEM_ADB_PORT="+strconv.Itoa(env.Port), "ADB_LOCAL_TRANSPORT_MAX_PORT=0")
	var logs lockedBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); cmd.Wait() }()
	s := &stateShooter{t: t, d: d, logs: &logs, runs: filepath.Join(data, "runs")}
	s.await("the window", uicheck.LooksLikeTandem)

	cctx, ccancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer ccancel()
	cs := connectMCP(cctx, t, port, token, &logs)
	done := make(chan map[string]any, 1)
	go func() {
		res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "run_task", Arguments: map[string]any{"device": env.Serial, "goal": "Make the counter show 1"}})
		out := map[string]any{}
		if err == nil {
			raw, _ := json.Marshal(res.StructuredContent)
			_ = json.Unmarshal(raw, &out)
		}
		done <- out
	}()
	// The run, started elsewhere, is in the window: its Pause button works.
	for recordStates(s.runs, "Planning") == 0 {
		time.Sleep(50 * time.Millisecond) // polling the record until the run plans
	}
	s.await("the person's Pause in the window", func(image.Image) bool {
		if recordStates(s.runs, "Paused") > 0 {
			return true
		}
		s.xdo("mousemove", "520", "800", "click", "1")
		return false
	})
	s.shoot("mcp-paused")
	id := runID(t, s.runs)
	got := getRun(t, cctx, cs, id)
	if got["state"] != "Paused" {
		t.Fatalf("get_run after the person paused in the window: %v", got)
	}
	// The person resumes it there; the model answers; the run ends Done.
	s.await("the person's Resume in the window", func(image.Image) bool {
		if recordStates(s.runs, "Planning") > 1 {
			return true
		}
		s.xdo("mousemove", "520", "800", "click", "1")
		return false
	})
	once.Do(func() { close(release) })
	select {
	case out := <-done:
		if out["state"] != "Done" || phone.State().Counter != 1 {
			t.Fatalf("run_task: %v (counter %d)\n%s", out, phone.State().Counter, logs.String())
		}
	case <-cctx.Done():
		t.Fatal("run_task never returned")
	}
	raw, _ := os.ReadFile(filepath.Join(s.runs, id, "record.jsonl"))
	if !strings.Contains(string(raw), `"via":"mcp:go-sdk-agent"`) {
		t.Fatal("the record does not say which client started the run")
	}
}

// counterUntilReleased taps +1 until the counter shows 1, then finishes;
// each answer waits until release is closed.
func counterUntilReleased(t *testing.T, phone *vphone.Phone, release chan struct{}) *modeltest.Server {
	t.Helper()
	plus := centreOf(t, phone, "+1")
	return modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply {
		<-release // the model answers once the person has paused and resumed
		if phone.State().Counter < 1 {
			return modeltest.Reply{Content: "Tap +1.", ToolCalls: []openai.ToolCall{call("tap", plus)}}
		}
		return modeltest.Reply{Content: "Done.", ToolCalls: []openai.ToolCall{call("finish", `{"summary":"The counter shows 1.","success":true}`)}}
	})
}

// seedMCP saves a profile for url and turns on the app's MCP server on
// port, as the person would in Settings, and returns its token.
func seedMCP(t *testing.T, cfg, data, url string, port int) string {
	t.Helper()
	seedProfile(t, cfg, data, url)
	seed := backend.New(backend.Config{ConfigDir: cfg, DataDir: data, KeyFile: true})
	token, err := seed.MCPToken(false, mcpserver.NewToken)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := seed.UpdateSettings(map[string]json.RawMessage{"mcp_http": json.RawMessage("true"), "mcp_port": json.RawMessage(strconv.Itoa(port))}); err != nil {
		t.Fatal(err)
	}
	return token
}

// connectMCP connects the Go SDK's client to the app's MCP server once it
// answers (the app starts it as it starts).
func connectMCP(ctx context.Context, t *testing.T, port int, token string, logs *lockedBuffer) *mcp.ClientSession {
	t.Helper()
	for {
		cs, err := mcpOverHTTP(ctx, "http://127.0.0.1:"+strconv.Itoa(port)+"/mcp", http.Header{"Authorization": {"Bearer " + token}})
		if err == nil {
			t.Cleanup(func() { cs.Close() })
			return cs
		}
		if ctx.Err() != nil {
			t.Fatalf("no MCP server in the app: %v\n%s", err, logs.String())
		}
		time.Sleep(100 * time.Millisecond) // polling until the app's server answers
	}
}

func getRun(t *testing.T, ctx context.Context, cs *mcp.ClientSession, id string) map[string]any {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_run", Arguments: map[string]any{"id": id}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	out := map[string]any{}
	_ = json.Unmarshal(raw, &out)
	return out
}

// runID is the one run recorded under runs.
func runID(t *testing.T, runs string) string {
	t.Helper()
	dirs, err := os.ReadDir(runs)
	if err != nil || len(dirs) != 1 {
		t.Fatalf("records: %v %v", dirs, err)
	}
	return dirs[0].Name()
}

// centreOf is the centre of element id in the tools dialect's 0-1000 grid.
func centreOf(t *testing.T, p *vphone.Phone, id string) string {
	t.Helper()
	b, ok := p.BoundsOfText(id)
	if !ok {
		t.Fatalf("no %q on the phone", id)
	}
	w, h := p.Size()
	c := b.Min.Add(b.Max).Div(2)
	return `{"x":` + strconv.Itoa(c.X*1000/w) + `,"y":` + strconv.Itoa(c.Y*1000/h) + `}`
}
