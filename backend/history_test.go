package backend

import (
	"context"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/engine"
	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/engine/model"
)

// screenDevice is an in-memory device: a solid screen whose colour changes
// with every tap, so the engine sees the screen react.
type screenDevice struct {
	mu   sync.Mutex
	taps int
}

func (d *screenDevice) Info(context.Context) (device.Info, error) {
	return device.Info{ID: "mem", Name: "Memory phone", Kind: device.Phone, Screen: action.Size{W: 200, H: 400}}, nil
}

func (d *screenDevice) Screenshot(context.Context) (image.Image, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	img := image.NewRGBA(image.Rect(0, 0, 200, 400))
	c := color.RGBA{uint8(40 * d.taps), 90, 160, 255}
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	return img, nil
}

func (d *screenDevice) Do(_ context.Context, a action.Action) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if a.Type == action.Tap {
		d.taps++
	}
	return nil
}

func (d *screenDevice) Capabilities() device.Capabilities {
	return device.Capabilities{Actions: []action.Type{action.Tap, action.Swipe, action.Key}, UITree: true}
}

// UITree names the button the recorded run taps.
func (d *screenDevice) UITree(context.Context) ([]byte, error) {
	return []byte(`<hierarchy><node text="" bounds="[0,0][200,400]"><node text="加一" resource-id="counter:id/plus" bounds="[50,150][150,250]"/></node></hierarchy>`), nil
}
func (d *screenDevice) Close() error { return nil }

// scripted answers with the given plans in order.
type scripted struct {
	mu    sync.Mutex
	plans []model.Plan
}

func (s *scripted) Plan(ctx context.Context, in model.Input, _ func(string)) (model.Plan, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.plans) == 0 {
		<-ctx.Done()
		return model.Plan{}, ctx.Err()
	}
	p := s.plans[0]
	s.plans = s.plans[1:]
	return p, nil
}

func recordRun(t *testing.T, dataDir string) string {
	t.Helper()
	yes := true
	run, err := engine.New(engine.Config{
		Goal:    "把计数器加一 (add one)",
		Device:  &screenDevice{},
		DataDir: dataDir,
		Planner: &scripted{plans: []model.Plan{
			{Thought: "The +1 button is in the middle.", Actions: []action.Action{{Type: action.Tap, X: 100, Y: 200}}},
			{Thought: "The counter changed.", Actions: []action.Action{{Type: action.Finish, Summary: "Counter is now 1.", Success: &yes}}},
		}},
		Settings: engine.Settings{UITree: true, Stability: engine.StabilityConfig{Interval: 10 * time.Millisecond, Max: 200 * time.Millisecond}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := run.Start(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := run.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.State != engine.Done || !res.Success {
		t.Fatalf("run ended %+v", res)
	}
	return run.ID()
}

func TestPastRunsAndReport(t *testing.T) {
	data := t.TempDir()
	id := recordRun(t, data)
	if err := os.MkdirAll(data+"/not-a-run", 0o755); err != nil {
		t.Fatal(err)
	}
	runs, err := PastRuns(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].ID != id || runs[0].State != "Done" || !runs[0].Success || runs[0].Steps != 1 ||
		runs[0].Summary != "Counter is now 1." || !strings.Contains(runs[0].Goal, "计数器") {
		t.Fatalf("runs %+v", runs)
	}
	path, err := ExportReport(data, id)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, want := range []string{"把计数器加一", "button is in the middle.", "tap(100,200)</code> “加一”", "data:image/jpeg;base64,", "Counter is now 1.", "<ellipse cx=\"50\" cy=\"50\""} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestReadRunStepByStep(t *testing.T) {
	data := t.TempDir()
	id := recordRun(t, data)
	d, err := ReadRun(data, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Steps) != 1 || d.Result == nil || d.Result.Summary != "Counter is now 1." {
		t.Fatalf("detail %+v", d)
	}
	st := d.Steps[0]
	if st.N != 1 || st.ByPerson || st.Thought != "The +1 button is in the middle." || st.Action.Type != action.Tap ||
		st.Target != "加一" || st.Result != "ok" || st.Screen.W == 0 || st.Frame == "" {
		t.Fatalf("step %+v", st)
	}
	if _, err := os.Stat(filepath.Join(data, id, st.Frame)); err != nil {
		t.Fatalf("the step's frame is not in the record: %v", err)
	}
	for _, bad := range []string{"", "..", "../x", "a/b"} {
		if _, err := ReadRun(data, bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestReportRefusesPathsOutsideTheDataDir(t *testing.T) {
	for _, id := range []string{"", "..", "../etc", "a/b"} {
		if _, err := ExportReport(t.TempDir(), id); err == nil {
			t.Errorf("%q accepted", id)
		}
	}
}

func TestPastRunsOfNoDirectoryIsEmpty(t *testing.T) {
	runs, err := PastRuns(t.TempDir() + "/missing")
	if err != nil || len(runs) != 0 {
		t.Fatalf("%v %v", runs, err)
	}
}

// TestPastRunsListDamagedRecords: a record with a bad line in the middle is
// listed whole, with the damage counted; one whose first line is damaged is
// listed too (goal unknown) rather than hidden.
func TestPastRunsListDamagedRecords(t *testing.T) {
	data := t.TempDir()
	id := recordRun(t, data)
	path := filepath.Join(data, id, "record.jsonl")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines[2] = "\x00damaged\n"
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	// A second run whose start line is damaged.
	id2 := recordRun(t, data)
	path2 := filepath.Join(data, id2, "record.jsonl")
	b2, err := os.ReadFile(path2)
	if err != nil {
		t.Fatal(err)
	}
	lines2 := strings.SplitAfter(string(b2), "\n")
	lines2[0] = "{\"t\":\"2026\x01\n"
	if err := os.WriteFile(path2, []byte(strings.Join(lines2, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	runs, err := PastRuns(data)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]RunSummary{}
	for _, r := range runs {
		byID[r.ID] = r
	}
	if r := byID[id]; len(runs) != 2 || r.Damaged != 1 || r.NoStart || r.State != "Done" || r.Steps != 1 || !strings.Contains(r.Goal, "计数器") {
		t.Fatalf("damaged middle: %+v", runs)
	}
	if r := byID[id2]; r.Damaged != 1 || !r.NoStart || r.State != "Done" || r.Summary != "Counter is now 1." || r.Started.IsZero() {
		t.Fatalf("damaged start: %+v", r)
	}
	d, err := ReadRun(data, id2)
	if err != nil || len(d.Steps) != 1 || d.Run.Damaged != 1 {
		t.Fatalf("detail of the damaged run: %+v %v", d, err)
	}
}

// A record without an end (the app closed or crashed mid-run) is listed as
// Interrupted, which the History offers to resume, not as Stopped.
func TestPastRunsMarksAnInterruptedRun(t *testing.T) {
	data := t.TempDir()
	id := recordRun(t, data)
	rec := filepath.Join(data, id, "record.jsonl")
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	keep := ""
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if strings.Contains(l, `"kind":"end"`) {
			break
		}
		keep += l
	}
	if err := os.WriteFile(rec, []byte(keep), 0o644); err != nil {
		t.Fatal(err)
	}
	runs, err := PastRuns(data)
	if err != nil || len(runs) != 1 || runs[0].State != StateInterrupted {
		t.Fatalf("runs %+v %v", runs, err)
	}
}
