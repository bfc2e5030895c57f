//go:build linux

package mcpserver

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/sashabaranov/go-openai"

	"tandem/internal/modeltest"
	"tandem/internal/xvfb"
)

// act on this computer asks the person exactly when a run would (issue 49):
// a click on a window titled "Checkout — Pay ¥99", or enter pressed while
// that window has the keyboard, is not done at once but runs as a run of
// its own, which asks; the person's no leaves it undone. A click elsewhere
// is done at once.
func TestActOnTheDesktopAsksAsARunWould(t *testing.T) {
	if _, err := exec.LookPath("xterm"); err != nil {
		t.Skip("xterm is not installed")
	}
	if _, err := exec.LookPath("xdotool"); err != nil {
		t.Skip("xdotool is not installed")
	}
	d := xvfb.Start(t, 1280, 800)
	t.Setenv("DISPLAY", d.Name)
	checkout := exec.Command("xterm", "-u8", "-xrm", "XTerm*utf8Title: true", "-T", "Checkout — Pay ¥99",
		"-geometry", "30x8+200+200", "-e", "sleep", "600")
	checkout.Env = append(d.Env(), "LANG=C.UTF-8", "LC_ALL=C.UTF-8")
	if err := checkout.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = checkout.Process.Kill(); _ = checkout.Wait() })
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	xdo := func(args ...string) string {
		cmd := exec.CommandContext(ctx, "xdotool", args...)
		cmd.Env = d.Env()
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("xdotool %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	win := strings.Fields(xdo("search", "--sync", "--name", "Checkout"))[0]

	r := newRig(t)
	r.model(t, modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply { // never asked: a run of one act plans itself
		return modeltest.Reply{Content: "Done.", ToolCalls: []openai.ToolCall{call("finish", `{"summary":"ok","success":true}`)}}
	}))
	var asked []string
	cs := r.client(t, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = append(asked, req.Params.Message)
		return &mcp.ElicitResult{Action: "decline"}, nil
	}})
	act := func(a map[string]any) ActOut {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "act", Arguments: map[string]any{"device": "desktop:0", "action": a}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			t.Fatalf("act %v: %+v", a, res.Content)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var o ActOut
		if err := json.Unmarshal(raw, &o); err != nil {
			t.Fatal(err)
		}
		return o
	}
	// (250, 250) on the 1280x800 display, on the 0-1000 grid.
	onIt := map[string]any{"type": "tap", "x": 250 * 1000 / 1279, "y": 250 * 1000 / 799}
	if o := act(onIt); o.Done || o.Run == nil || len(asked) != 1 || !strings.Contains(asked[0], "pay") {
		t.Fatalf("a click on the checkout: %+v (run %+v), asked %q", o, o.Run, asked)
	}
	xdo("windowfocus", "--sync", win)
	if o := act(map[string]any{"type": "key", "key": "enter"}); o.Done || o.Run == nil || len(asked) != 2 {
		t.Fatalf("enter on the checkout: %+v (run %+v), asked %q", o, o.Run, asked)
	}
	if o := act(map[string]any{"type": "tap", "x": 900, "y": 900}); !o.Done || o.Run != nil || len(asked) != 2 {
		t.Fatalf("a click elsewhere: %+v (run %+v), asked %q", o, o.Run, asked)
	}
}
