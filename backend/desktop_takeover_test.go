//go:build linux

package backend

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"tandem/engine"
	"tandem/internal/modeltest"
	"tandem/internal/xvfb"
)

// desktopRig is a backend whose person's model first long-presses (the
// agent acting) and then finishes.
func desktopRig(t *testing.T) (*Backend, Profile, *modeltest.Server) {
	t.Helper()
	var mu sync.Mutex
	calls := 0
	srv := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n == 1 { // a long press: the agent is acting while the person reaches for the mouse
			return modeltest.Reply{Content: "Hold.", ToolCalls: []openai.ToolCall{{ID: "c1", Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: "long_press", Arguments: `{"x":900,"y":900,"ms":20000}`}}}}
		}
		return modeltest.Reply{Content: "Done.", ToolCalls: []openai.ToolCall{{ID: "c2", Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "finish", Arguments: `{"summary":"ok","success":true}`}}}}
	})
	b := New(Config{ConfigDir: t.TempDir(), DataDir: t.TempDir(), KeyFile: true, ADB: "127.0.0.1:1"})
	t.Cleanup(b.Shutdown)
	p := scriptedProfile(t, b, srv.URL, "sk-desk-0000")
	return b, p, srv
}

// startHold starts the rig's task on this computer's display (its model
// long-presses first) and returns the run.
func startHold(ctx context.Context, t *testing.T, b *Backend, p Profile) *RunHandle {
	t.Helper()
	snap, err := b.StartRun(ctx, "desktop:0", "Hold the middle of the screen", RunChoice{Profile: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	run, err := b.Run(snap.ID, ByWindow())
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// One take-over on this computer, as on a phone: while the agent acts on a
// display (a long press under way), the person moves their own mouse; the
// run goes to Manual (not a pause); the click they then make with their own
// mouse is on the record as theirs; and after they hand back, the model's
// next request carries their note and what they did.
func TestThePersonsHandOnTheDesktopTakesOver(t *testing.T) {
	for _, tool := range []string{"xdotool", "xterm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " is not installed")
		}
	}
	d := xvfb.Start(t, 1280, 800)
	t.Setenv("DISPLAY", d.Name)
	// Another program's window, where the person clicks.
	xterm := exec.Command("xterm", "-geometry", "160x50+0+0")
	xterm.Env = d.Env()
	if err := xterm.Start(); err != nil {
		t.Skip("xterm: ", err)
	}
	t.Cleanup(func() { _ = xterm.Process.Kill(); _ = xterm.Wait() })
	b, p, srv := desktopRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := startHold(ctx, t, b, p)
	xdo := func(args ...string) {
		cmd := exec.Command("xdotool", args...)
		cmd.Env = d.Env()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("xdotool %v: %v %s", args, err, out)
		}
	}
	until := func(what string, ok func() bool, act func()) {
		t.Helper()
		for !ok() {
			if ctx.Err() != nil {
				t.Fatalf("%s: state %s", what, run.State())
			}
			act()
			time.Sleep(20 * time.Millisecond) // the person's hand, again, until the run answers
		}
	}
	until("the agent's press under way", func() bool { return run.State() == engine.Executing }, func() {})
	i := 0
	until("the person's hand takes over", func() bool { return run.State() == engine.Manual }, func() {
		i++
		xdo("mousemove", strconv.Itoa(300+i%40), "300") // the person moves their own mouse
	})
	xdo("mousemove", "640", "200", "click", "1")
	until("the person's click on the record", func() bool {
		for _, s := range run.Snapshot().Steps {
			if s.ByPerson && s.Action.Type == "tap" {
				return true
			}
		}
		return false
	}, func() {})
	if err := run.HandBack(ctx, "I clicked the menu bar myself", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := run.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	next := reqs[len(reqs)-1].Text()
	if !strings.Contains(next, "I clicked the menu bar myself") || !strings.Contains(strings.ToLower(next), "tap") {
		t.Fatalf("the model's next request does not carry the person's note and act:\n%s", next)
	}
	for _, s := range run.Snapshot().Steps {
		if s.ByPerson && s.Action.Type == "tap" && (s.Action.X != 640 || s.Action.Y != 200) {
			t.Fatalf("the person's click recorded at %d,%d, want 640,200", s.Action.X, s.Action.Y)
		}
	}
}
