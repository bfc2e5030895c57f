package app

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"tandem/backend"
	"tandem/engine"
	"tandem/engine/action"
	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// The person's input takes one route with or without a run: on a phone
// without ADB Keyboard whose mirror runs over scrcpy, Chinese typed while
// driving a run lands as it does with no run (clipboard paste), and every
// input of theirs — live touches included, two in quick succession — is
// recorded with the screen before it and the screen after.
func TestThePersonsInputTakesOneRouteInARun(t *testing.T) {
	needFFmpeg(t)
	p, env := vphonetest.Start(t, vphone.WithSize(720, 1600), vphone.WithoutADBKeyboard())
	t.Setenv("TANDEM_ADB_PORT", strconv.Itoa(env.Port))
	a := startedApp(t)
	if err := p.Launch(vphone.PkgNotes); err != nil {
		t.Fatal(err)
	}
	openMirror(t, a, env.Serial, "scrcpy")
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	snap, run := heldRun(t, a, env.Serial)
	if got, err := a.api.Mirror.MirrorGesture(env.Serial, action.Action{Type: action.Tap, X: 1, Y: 1}); err != nil || got != string(backend.TookOver) {
		t.Fatalf("the first click while the agent drives: %q %v", got, err)
	}
	waitState(ctx, t, run, engine.Manual)
	r, ok := p.Bounds("note_editor")
	if !ok {
		t.Fatal("no note editor on the screen")
	}
	c := r.Min.Add(r.Max).Div(2)
	for range 2 { // two live taps, the second before the first has settled
		for _, ph := range []string{"down", "up"} {
			if err := a.api.Mirror.MirrorTouch(env.Serial, ph, c.X, c.Y); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got, err := a.api.Mirror.MirrorGesture(env.Serial, action.Action{Type: action.TypeText, Text: "你好，世界"}); err != nil || got != string(backend.Done) {
		t.Fatalf("typing Chinese in Manual without ADB Keyboard: %q %v", got, err)
	}
	if p.State().Note != "你好，世界" {
		t.Fatalf("the note reads %q", p.State().Note)
	}
	var steps []engine.StepEvent
	for {
		steps = run.Snapshot().Steps
		if len(steps) >= 3 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the person's inputs were not all recorded: %+v", steps)
		case <-time.After(20 * time.Millisecond):
		}
	}
	want := []action.Type{action.Tap, action.Tap, action.TypeText}
	for i, s := range steps {
		if !s.ByPerson || s.Action.Type != want[i] || s.Result != "ok" || s.Frame == "" {
			t.Fatalf("step %d: %+v (want the person's %s, ok, with the screen before it)", i+1, s, want[i])
		}
	}
	if err := a.api.Runs.Stop(snap.ID); err != nil {
		t.Fatal(err)
	}
}

func waitState(ctx context.Context, t *testing.T, run *backend.RunHandle, st engine.State) {
	t.Helper()
	for run.Snapshot().State != st {
		select {
		case <-ctx.Done():
			t.Fatalf("state %s, want %s", run.Snapshot().State, st)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// openMirror opens device id's mirror as the window does and waits until
// it runs over path.
func openMirror(t *testing.T, a *App, id, path string) {
	t.Helper()
	if _, err := a.api.Mirror.MirrorURL(id); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		changed := a.b.MirrorChanged(id) // before the check: no change is missed
		if a.api.Mirror.MirrorPath(id).Path == path {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("mirror path %+v, want %s", a.api.Mirror.MirrorPath(id), path)
		case <-changed:
		}
	}
}

// While a task is on a device and the person does not drive it (paused,
// waiting for them, the agent acting), nothing they do on the device goes
// to it unrecorded, whichever door it comes through: a finished gesture
// takes over, and the device's own input is refused.
func TestNoInputReachesARunsDeviceBehindItsBack(t *testing.T) {
	privateADBServer(t)
	a := startedApp(t)
	dev, err := a.api.Devices.StartVirtualPhone()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.api.Mirror.MirrorURL(dev.ID); err != nil {
		t.Fatal(err)
	}
	snap, run := heldRun(t, a, dev.ID)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	phone := virtualPhone(t, a, dev.ID)
	taps := func() int {
		n := 0
		for _, e := range phone.Events() {
			if e.Kind == "tap" {
				n++
			}
		}
		return n
	}
	if err := a.api.Runs.Pause(snap.ID); err != nil {
		t.Fatal(err)
	}
	waitState(ctx, t, run, engine.Paused)
	tap := action.Action{Type: action.Tap, X: 405, Y: 340}
	if got, err := a.api.Mirror.MirrorGesture(dev.ID, tap); err != nil || got != string(backend.TookOver) {
		t.Errorf("a click on a paused run's mirror: %q %v, want a take-over", got, err)
	}
	waitState(ctx, t, run, engine.Manual)
	if n := taps(); n != 0 {
		t.Fatalf("the phone was tapped %d times behind the run's back", n)
	}
	// Now the person drives: their click reaches the phone through the run,
	// on the record as theirs.
	if got, err := a.api.Mirror.MirrorGesture(dev.ID, tap); err != nil || got != string(backend.Done) {
		t.Fatalf("a click while the person drives: %q %v", got, err)
	}
	if steps := run.Snapshot().Steps; taps() != 1 || len(steps) != 1 || !steps[0].ByPerson {
		t.Fatalf("the person's click: %d taps, steps %+v (want one, recorded as theirs)", taps(), steps)
	}
	if err := a.api.Runs.Stop(snap.ID); err != nil {
		t.Fatal(err)
	}
}

// startedApp is an app begun as the window begins it, whose phone mirrors
// can run over scrcpy (a stand-in server jar: the virtual phone serves it).
func startedApp(t *testing.T) *App {
	t.Helper()
	jar := filepath.Join(t.TempDir(), "scrcpy-server")
	if err := os.WriteFile(jar, []byte("PK\x03\x04 stand-in jar"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := New(Config{ConfigDir: t.TempDir(), DataDir: t.TempDir(), KeyFile: true, ScrcpyServer: jar})
	if err := a.begin(context.Background(), nopNotifier); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.shutdown)
	return a
}

// heldRun starts a task on device id whose model never answers, so the run
// stays where the test puts it.
func heldRun(t *testing.T, a *App, id string) (engine.Snapshot, *backend.RunHandle) {
	t.Helper()
	srv := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply { return modeltest.Reply{Hold: true} })
	if _, err := a.api.Settings.SaveProfile(backend.Profile{Name: "held", BaseURL: srv.URL, Model: "held", Dialect: "tools"}, "sk-held-0000"); err != nil {
		t.Fatal(err)
	}
	snap, err := a.api.Runs.StartRun(id, "wait for me")
	if err != nil {
		t.Fatal(err)
	}
	run, err := a.b.Run(snap.ID, backend.ByWindow())
	if err != nil {
		t.Fatal(err)
	}
	return snap, run
}
