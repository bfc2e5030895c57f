package app

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"tandem/backend"
	"tandem/engine"
	"tandem/engine/action"
	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// privateADBServer starts an adb server on a free port that scans for no
// emulators (vphonetest), and points the app at it through TANDEM_ADB_PORT:
// tests never touch the developer's adb server or phones.
func privateADBServer(t *testing.T) {
	t.Helper()
	_, port := vphonetest.StartServer(t)
	t.Setenv("TANDEM_ADB_PORT", strconv.Itoa(port))
	t.Setenv("ADB_LOCAL_TRANSPORT_MAX_PORT", "0")
}

func call(name, args string) openai.ToolCall {
	return openai.ToolCall{ID: "c-" + name, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}
}

// openCounter is a scripted model's reply while the Counter app is not in
// front.
func openCounter() modeltest.Reply {
	return modeltest.Reply{Content: "The counter app is not open yet.", ToolCalls: []openai.ToolCall{call("launch", `{"app":"Counter"}`)}}
}

// plusArgs is a tap on the phone's +1 button, on the 0–1000 grid, flagged
// sensitive when why is given; false when no +1 is on the screen.
func plusArgs(phone *vphone.Phone, why string) (string, bool) {
	b, ok := phone.BoundsOfText("+1")
	if !ok {
		return "", false
	}
	w, h := phone.Size()
	c := b.Min.Add(b.Max).Div(2)
	if why != "" {
		return fmt.Sprintf(`{"x":%d,"y":%d,"sensitive":%q}`, c.X*1000/w, c.Y*1000/h, why), true
	}
	return fmt.Sprintf(`{"x":%d,"y":%d}`, c.X*1000/w, c.Y*1000/h), true
}

// TestAppRunsATaskOnTheVirtualPhone goes through everything the window
// uses: "Try without a phone", a model profile with a stored key, StartRun
// with the real client, dialect and planner, the engine, the ADB driver and
// the real adb server, until the counter shows 1 and the run is Done.
func TestAppRunsATaskOnTheVirtualPhone(t *testing.T) {
	privateADBServer(t)
	a := testApp(t)
	events := &recordingNotifier{}
	if err := a.begin(context.Background(), events); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.shutdown)

	dev, err := a.api.Devices.StartVirtualPhone()
	if err != nil {
		t.Fatal(err)
	}
	if !dev.Usable() || !dev.Virtual || dev.Screen.W == 0 {
		t.Fatalf("virtual phone entry %+v", dev)
	}
	phone := virtualPhone(t, a, dev.ID)

	srv := counterModel(t, phone)
	if _, err := a.api.Settings.SaveProfile(backend.Profile{Name: "scripted", BaseURL: srv.URL, Model: "scripted", Dialect: "tools", Variant: "rel1000"}, "sk-test-never-logged-1234"); err != nil {
		t.Fatal(err)
	}
	snap, err := a.api.Runs.StartRun(dev.ID, "Add one to the counter")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.api.Runs.StartRun(dev.ID, "a second task"); err == nil {
		t.Fatal("a second run started on a busy device")
	}
	run, err := a.b.Run(snap.ID, backend.ByWindow())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := run.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.State != engine.Done || !res.Success || res.Summary != "The counter shows 1." {
		t.Fatalf("run ended %+v", res)
	}
	if st := phone.State(); st.Counter != 1 {
		t.Fatalf("counter %d", st.Counter)
	}
	// The mirror can outline the element the agent is about to tap.
	if !events.sawElement(snap.ID, "+1") {
		t.Error("no plan event named the +1 button as the tap's element")
	}
	// The UI files a run's events under the device its snapshot names.
	if snap.Device != dev.ID {
		t.Fatalf("StartRun's snapshot names device %q, want %q", snap.Device, dev.ID)
	}
	if got := events.runSnapshotDevices(snap.ID); len(got) == 0 || got[0] != dev.ID {
		t.Fatalf("snapshot events name devices %q, want %q", got, dev.ID)
	}
	for _, r := range srv.Requests() {
		if len(r.Images()) == 0 {
			t.Fatal("a model call had no screenshot")
		}
	}
	past, err := a.api.History.PastRuns()
	if err != nil || len(past) != 1 || past[0].State != "Done" {
		t.Fatalf("history %+v %v", past, err)
	}
}

// counterModel is a scripted model that opens the counter, taps +1 once
// and finishes.
func counterModel(t *testing.T, phone *vphone.Phone) *modeltest.Server {
	return modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		st := phone.State()
		switch {
		case st.Foreground != vphone.PkgCounter:
			return openCounter()
		case st.Counter == 0:
			args, ok := plusArgs(phone, "")
			if !ok {
				return modeltest.Reply{Status: 500, Message: "no +1 button on screen"}
			}
			return modeltest.Reply{Content: "Tap +1.", ToolCalls: []openai.ToolCall{call("tap", args)}}
		default:
			return modeltest.Reply{ToolCalls: []openai.ToolCall{call("finish", `{"summary":"The counter shows 1.","success":true}`)}}
		}
	})
}

// recordingNotifier keeps what the app sends to the UI.
type recordingNotifier struct {
	mu     sync.Mutex
	events []engine.Event
}

func (n *recordingNotifier) Notify(name string, data any) {
	if e, ok := data.(engine.Event); ok && name == "run" {
		n.mu.Lock()
		n.events = append(n.events, e)
		n.mu.Unlock()
	}
}

// runSnapshotDevices lists the device of every snapshot event of run id.
func (n *recordingNotifier) runSnapshotDevices(id string) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for _, e := range n.events {
		if e.Run == id && e.Snapshot != nil {
			out = append(out, e.Snapshot.Device)
		}
	}
	return out
}

// sawElement reports whether a plan event of run id aimed at an element
// whose label contains label.
func (n *recordingNotifier) sawElement(id, label string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, e := range n.events {
		if e.Run != id || e.Plan == nil {
			continue
		}
		for _, it := range e.Plan.Todo {
			if it.Element != nil && strings.Contains(it.Element.Label, label) {
				return true
			}
		}
	}
	return false
}

// A person driving a run over scrcpy touches the phone live; the gesture
// still lands in the run (and so reaches the model on hand back).
func TestLiveTouchInManualIsRecorded(t *testing.T) {
	needFFmpeg(t)
	privateADBServer(t)
	a := startedApp(t)
	dev, err := a.api.Devices.StartVirtualPhone()
	if err != nil {
		t.Fatal(err)
	}
	openMirror(t, a, dev.ID, "scrcpy")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	snap, run := heldRun(t, a, dev.ID)
	if err := a.api.Mirror.MirrorTouch(dev.ID, "down", 100, 100); !errors.Is(err, backend.ErrDeviceBusy) {
		t.Fatalf("a live touch while the agent drives: %v", err)
	}
	if err := a.api.Runs.TakeOver(snap.ID); err != nil {
		t.Fatal(err)
	}
	for _, ph := range []string{"down", "up"} {
		if err := a.api.Mirror.MirrorTouch(dev.ID, ph, 405, 340); err != nil { // the Notes icon
			t.Fatal(err)
		}
	}
	for {
		s := run.Snapshot()
		if n := len(s.Steps); n > 0 && s.Steps[n-1].ByPerson && s.Steps[n-1].Action.Type == action.Tap {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the live tap was not recorded: %+v", s.Steps)
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := a.api.Runs.Stop(snap.ID); err != nil {
		t.Fatal(err)
	}
}

// TestHistoryListsALiveRunAsGoingOnHere: History lists a run going on in
// this window with its live state and no summary yet, never as going on
// "in another Tandem" (its record is locked by this very app; issue 30's
// resumed run read so).
func TestHistoryListsALiveRunAsGoingOnHere(t *testing.T) {
	privateADBServer(t)
	a := startedApp(t)
	dev, err := a.api.Devices.StartVirtualPhone()
	if err != nil {
		t.Fatal(err)
	}
	_, run := heldRun(t, a, dev.ID)
	t.Cleanup(func() { _ = run.Stop(context.Background()) })
	var past []backend.RunSummary
	deadline := time.Now().Add(20 * time.Second)
	for len(past) == 0 { // the record's first line is written as the run starts
		if past, err = a.api.History.PastRuns(); err != nil || time.Now().After(deadline) {
			t.Fatalf("history %+v %v", past, err)
		}
		time.Sleep(20 * time.Millisecond) // polling the record until it lists the run
	}
	if p := past[0]; p.State != run.State().String() || p.Summary != "" {
		t.Fatalf("the live run is listed as %q %q, want its state %s and no summary", p.State, p.Summary, run.State())
	}
}
