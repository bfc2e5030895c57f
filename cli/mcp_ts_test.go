package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"tandem/backend"
	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// The official TypeScript SDK's client (npm @modelcontextprotocol/sdk,
// frontend/e2e/mcp-client.mjs) starts `tandem mcp` over stdio, as an MCP
// client does from its configuration, against a virtual phone and a
// scripted model. Each scenario is one client process; this side owns the
// phone and the model and checks what happened to them.

// tsClient runs one scenario of the TypeScript client and returns its
// output lines; more, when set, is fed each line as it comes (and may
// close the client's stdin by returning true).
func tsClient(t *testing.T, mode string, env vphonetest.Env, more func(line map[string]any) bool) []map[string]any {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node is not installed")
		}
		t.Skip("node is not installed")
	}
	script, _ := filepath.Abs(filepath.Join("..", "frontend", "e2e", "mcp-client.mjs"))
	if _, err := os.Stat(filepath.Join("..", "frontend", "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("the TypeScript MCP SDK is not installed (cd frontend && npm ci)")
		}
		t.Skip("the TypeScript MCP SDK is not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, mode)
	args, _ := json.Marshal([]string{"mcp", "--adb-port", strconv.Itoa(env.Port)})
	cmd.Env = append(os.Environ(), childEnv+"=1", "TANDEM_CMD="+os.Args[0], "TANDEM_ARGS="+string(args), "DEVICE="+env.Serial)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []map[string]any
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("the client printed %q: %v", sc.Text(), err)
		}
		lines = append(lines, m)
		if more != nil && more(m) {
			stdin.Close()
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the TypeScript client (%s): %v\n%s", mode, err, stderr.String())
	}
	return lines
}

// tsRig is a phone behind a private adb server (set up by setup, which
// returns the model's script) and that model saved as the person's, in the
// tests' config dir and a data dir of this test's.
func tsRig(t *testing.T, setup func(*vphone.Phone) func(modeltest.Request) modeltest.Reply) (*vphone.Phone, vphonetest.Env) {
	t.Helper()
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	t.Setenv("TANDEM_DATA_DIR", t.TempDir())
	srv := modeltest.NewFunc(t, setup(phone))
	saveProfile(t, backend.Profile{Name: "scripted", BaseURL: srv.URL, Model: "scripted", Dialect: "tools", Variant: "rel1000"}, "sk-ts-0000")
	return phone, env
}

func tap(at string) modeltest.Reply {
	return modeltest.Reply{Content: "Tap.", ToolCalls: []openai.ToolCall{{ID: "c1", Type: openai.ToolTypeFunction,
		Function: openai.FunctionCall{Name: "tap", Arguments: at}}}}
}

func finish(summary string, ok bool) modeltest.Reply {
	return modeltest.Reply{Content: "Done.", ToolCalls: []openai.ToolCall{{ID: "c1", Type: openai.ToolTypeFunction,
		Function: openai.FunctionCall{Name: "finish", Arguments: `{"summary":"` + summary + `","success":` + strconv.FormatBool(ok) + `}`}}}}
}

func TestTheTypeScriptClientListsValidTools(t *testing.T) {
	_, env := tsRig(t, func(*vphone.Phone) func(modeltest.Request) modeltest.Reply {
		return func(modeltest.Request) modeltest.Reply { return finish("nothing", true) }
	})
	out := tsClient(t, "tools", env, nil)
	if len(out) != 1 {
		t.Fatalf("output %v", out)
	}
	got, _ := json.Marshal(out[0])
	for _, tool := range []string{"list_devices", "run_task", "get_run", "stop_run", "screenshot", "ui_state", "act"} {
		if !strings.Contains(string(got), `"`+tool+`"`) {
			t.Errorf("no tool %s: %s", tool, got)
		}
	}
	if bad := out[0]["bad"].([]any); len(bad) != 0 {
		t.Errorf("schemas or annotations wrong: %v", bad)
	}
	if !strings.Contains(string(got), "tandem://runs/{id}/report") || len(out[0]["outputs"].([]any)) < 5 {
		t.Errorf("resources or output schemas missing: %s", got)
	}
}

func TestTheTypeScriptClientRunsATaskWithProgress(t *testing.T) {
	phone, env := tsRig(t, func(phone *vphone.Phone) func(modeltest.Request) modeltest.Reply {
		plus := launch(t, phone, vphone.PkgCounter, "+1")
		return func(modeltest.Request) modeltest.Reply {
			if phone.State().Counter < 2 {
				return tap(plus)
			}
			return finish("The counter shows 2.", true)
		}
	})
	out := tsClient(t, "run", env, nil)
	res := out[0]["result"].(map[string]any)
	progress := out[0]["progress"].([]any)
	if res["state"] != "Done" || res["steps"] != float64(2) || phone.State().Counter != 2 || len(progress) != 2 {
		t.Fatalf("run over stdio: %v, %d progress notifications", res, len(progress))
	}
}

func TestTheTypeScriptClientCancelsARun(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	phone, env := tsRig(t, func(phone *vphone.Phone) func(modeltest.Request) modeltest.Reply {
		plus := launch(t, phone, vphone.PkgCounter, "+1")
		return func(modeltest.Request) modeltest.Reply {
			<-release // the model answers only after the client has cancelled
			return tap(plus)
		}
	})
	data := os.Getenv("TANDEM_DATA_DIR")
	out := tsClient(t, "cancel", env, func(line map[string]any) bool {
		if line["aborted"] == nil {
			return false
		}
		// The client gave up at once; the server hears of it a moment
		// later, and the run is Stopped while its model call is still out.
		waitRecorded(t, filepath.Join(data, "runs"), `"state":"Stopped"`)
		once.Do(func() { close(release) }) // the model answers now, too late
		time.Sleep(time.Second)            // a late answer's window: a tap would land in it, and must not
		return true
	})
	after, _ := json.Marshal(out[len(out)-1])
	if phone.State().Counter != 0 || len(out) != 2 || !strings.Contains(string(after), `"state":"Stopped"`) {
		t.Fatalf("after the client cancelled: counter %d, %s", phone.State().Counter, after)
	}
	for _, e := range phone.Events() {
		if e.Kind == "tap" {
			t.Fatal("the phone was tapped after the cancellation")
		}
	}
}

// launch opens app on phone and returns the centre of its element id.
func launch(t *testing.T, phone *vphone.Phone, app, id string) string {
	t.Helper()
	if err := phone.Launch(app); err != nil {
		t.Fatal(err)
	}
	return centre(t, phone, id)
}

// waitRecorded waits until a record under runs has a line with want.
func waitRecorded(t *testing.T, runs, want string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		dirs, _ := os.ReadDir(runs)
		for _, d := range dirs {
			if raw, err := os.ReadFile(filepath.Join(runs, d.Name(), "record.jsonl")); err == nil && strings.Contains(string(raw), want) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no record under %s has %s", runs, want)
		}
		time.Sleep(20 * time.Millisecond) // polling the record until the line is written
	}
}

// shopModel opens the shop and presses Pay until paid or told no.
func shopModel(t *testing.T) func(*vphone.Phone) func(modeltest.Request) modeltest.Reply {
	return func(phone *vphone.Phone) func(modeltest.Request) modeltest.Reply {
		pay := launch(t, phone, vphone.PkgShop, "pay_button")
		return func(r modeltest.Request) modeltest.Reply {
			switch {
			case phone.State().Paid:
				return finish("Paid.", true)
			case strings.Contains(r.Text(), "declined"):
				return finish("Not paid.", false)
			}
			return tap(pay)
		}
	}
}

func TestTheTypeScriptClientAsksBeforePaying(t *testing.T) {
	for _, c := range []struct {
		mode string
		paid bool
	}{{"pay-accept", true}, {"pay-decline", false}} {
		t.Run(c.mode, func(t *testing.T) {
			phone, env := tsRig(t, shopModel(t))
			out := tsClient(t, c.mode, env, nil)
			asked := out[0]["asked"].([]any)
			if phone.State().Paid != c.paid || len(asked) != 1 || !strings.Contains(asked[0].(string), `"Pay ¥99"`) {
				t.Fatalf("%s: paid %v, asked %v, result %v", c.mode, phone.State().Paid, asked, out[0]["result"])
			}
			taps := 0
			for _, e := range phone.Events() {
				if e.Kind == "tap" {
					taps++
				}
			}
			if c.paid && taps != 1 || !c.paid && taps != 0 {
				t.Fatalf("%s: %d taps", c.mode, taps)
			}
		})
	}
	t.Run("pay-none", func(t *testing.T) {
		phone, env := tsRig(t, shopModel(t))
		out := tsClient(t, "pay-none", env, nil)
		w, _ := json.Marshal(out[0]["waiting"])
		if !strings.Contains(string(w), `"kind":"confirm"`) || !strings.Contains(string(w), "window") || phone.State().Paid {
			t.Fatalf("a client without elicitation: %s (paid %v)", w, phone.State().Paid)
		}
		if res := out[1]["result"].(map[string]any); res["state"] != "Stopped" || phone.State().Paid {
			t.Fatalf("after stop_run: %v", res)
		}
	})
}
