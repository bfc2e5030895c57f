package app

import (
	"context"
	"encoding/json"
	"image"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"tandem/backend"
	"tandem/engine"
	"tandem/internal/modeltest"
	"tandem/mirror"
	"tandem/popout"
	"tandem/vphone"
)

// postInput posts body to the pop-out's input URL as the pop-out does.
func postInput(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestPopoutInputGoesWhereTheMirrorsDoes: the pop-out's clicks reach the
// phone with no task running; while the agent drives, a click takes over
// and is not passed on; in Manual it is the run's input, recorded.
func TestPopoutInputGoesWhereTheMirrorsDoes(t *testing.T) {
	privateADBServer(t)
	a := testApp(t)
	if err := a.begin(context.Background(), &recordingNotifier{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.shutdown)
	dev, err := a.api.Devices.StartVirtualPhone()
	if err != nil {
		t.Fatal(err)
	}
	phone := virtualPhone(t, a, dev.ID)
	var started []popout.Config
	a.popouts.Start = func(cfg popout.Config) (*os.Process, error) {
		started = append(started, cfg)
		cmd := exec.Command("sleep", "60")
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		return cmd.Process, nil
	}
	if err := a.api.Mirror.PopOut(dev.ID); err != nil {
		t.Fatal(err)
	}
	if len(started) != 1 || started[0].Device != dev.ID || !strings.Contains(started[0].Stream, "token=") || !strings.Contains(started[0].Input, "token=") {
		t.Fatalf("the pop-out was started with %+v", started)
	}
	input := started[0].Input

	if code, reply := postInput(t, input, `not json`); code != http.StatusBadRequest {
		t.Errorf("garbage: %d %s", code, reply)
	}
	if err := phone.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	b, _ := phone.BoundsOfText("+1")
	c := b.Min.Add(b.Max).Div(2)
	tap := func() string {
		raw, _ := json.Marshal(map[string]any{"action": map[string]any{"type": "tap", "x": c.X, "y": c.Y}})
		return string(raw)
	}()
	if code, reply := postInput(t, input, tap); code != http.StatusOK || reply != string(backend.Done) || phone.State().Counter != 1 {
		t.Fatalf("no task running: %d %q, counter %d", code, reply, phone.State().Counter)
	}
	popoutPresses(t, started[0], phone, c)

	run := thinkingRun(t, a, dev.ID)
	if code, reply := postInput(t, input, tap); code != http.StatusOK || reply != string(backend.TookOver) {
		t.Fatalf("while the agent drives: %d %q", code, reply)
	}
	if st := run.Snapshot().State; st != engine.Manual || phone.State().Counter != 2 {
		t.Fatalf("after the take-over click: %s, counter %d (the click must not reach the phone)", st, phone.State().Counter)
	}
	if code, reply := postInput(t, input, tap); code != http.StatusOK || reply != string(backend.Done) || phone.State().Counter != 3 {
		t.Fatalf("in Manual: %d %q, counter %d", code, reply, phone.State().Counter)
	}
	if err := a.api.Runs.Stop(run.ID()); err != nil {
		t.Fatal(err)
	}
	if code, reply := postInput(t, strings.Replace(input, "token=", "token=0", 1), tap); code != http.StatusUnauthorized || phone.State().Counter != 3 {
		t.Errorf("a wrong token: %d %q", code, reply)
	}

	// Opening it again replaces the window; the app closes them all.
	first := a.popouts.Proc(dev.ID)
	if err := a.api.Mirror.PopOut(dev.ID); err != nil {
		t.Fatal(err)
	}
	second := a.popouts.Proc(dev.ID)
	waitGone(t, first)
	a.popouts.CloseAll()
	waitGone(t, second)
}

// thinkingRun starts a run on device whose model thinks until it is
// interrupted: the agent drives.
func thinkingRun(t *testing.T, a *App, device string) *backend.RunHandle {
	t.Helper()
	srv := modeltest.New(t, modeltest.Reply{Content: "thinking…", Hold: true})
	if _, err := a.api.Settings.SaveProfile(backend.Profile{Name: "scripted", BaseURL: srv.URL, Model: "scripted", Dialect: "tools", Variant: "rel1000"}, "sk-popout-test-0000"); err != nil {
		t.Fatal(err)
	}
	snap, err := a.api.Runs.StartRun(device, "Add one")
	if err != nil {
		t.Fatal(err)
	}
	run, err := a.b.Run(snap.ID, backend.ByWindow())
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); run.Snapshot().State != engine.Planning; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the run is %s", run.Snapshot().State)
		}
	}
	return run
}

// waitGone waits until the process p has ended.
func waitGone(t *testing.T, p *os.Process) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if err := p.Signal(syscall.Signal(0)); err != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still running", p.Pid)
		}
	}
}

// popoutPresses: the pop-out's page reports presses; the pop-out's Go makes
// the gesture of them by the one rule: a still press is a tap (on the
// counter's button at c), one that wandered off and came back a swipe.
func popoutPresses(t *testing.T, cfg popout.Config, phone *vphone.Phone, c image.Point) {
	t.Helper()
	pop := popout.New(cfg)
	w, h := phone.Size()
	still := mirror.Press{X0: c.X, Y0: c.Y, X: c.X + 2, Y: c.Y, Ms: 80, Far: 3, W: w, H: h}
	if reply, err := pop.Press(still); err != nil || reply != string(backend.Done) || phone.State().Counter != 2 {
		t.Fatalf("a still press in the pop-out: %q %v, counter %d", reply, err, phone.State().Counter)
	}
	wandered := mirror.Press{X0: c.X, Y0: 20, X: c.X + 2, Y: 20, Ms: 80, Far: 400, W: w, H: h} // on the status bar
	if reply, err := pop.Press(wandered); err != nil || reply != string(backend.Done) {
		t.Fatalf("a press that wandered off: %q %v", reply, err)
	}
	if ev := phone.Events(); len(ev) == 0 || ev[len(ev)-1].Kind != "swipe" {
		t.Fatalf("a press that wandered off reached the phone as %+v, want a swipe", ev[len(ev)-1:])
	}
	if _, err := pop.Press(mirror.Press{X0: 1, Y0: 1, X: 1, Y: 1}); err == nil {
		t.Fatal("a press on no screen was sent")
	}
}
