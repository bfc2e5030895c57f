package backend

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"html"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tandem/engine"
	"tandem/engine/action"
	"tandem/engine/model"
)

// writeRecord writes entries as a run's record.jsonl under data/id.
func writeRecord(t *testing.T, data, id string, entries []engine.Entry) {
	t.Helper()
	dir := filepath.Join(data, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "record.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A paid ¥99 the person denied once, then allowed: History and the report
// say who did what, when, with the reason, note and region; the goal shown
// is the edited one; every count comes from one place.
func TestHistoryAndReportShowThePersonsActs(t *testing.T) {
	data := t.TempDir()
	t0 := time.Date(2026, 11, 23, 21, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	st := func(s engine.State) *engine.State { return &s }
	pay := action.Action{Type: action.Tap, X: 540, Y: 2179}
	home := action.Action{Type: action.Key, Key: "home"}
	// What the confirmation asked, as the engine keeps it with each answer.
	asked := &engine.Request{Kind: engine.AskConfirm, Message: "tap(540,2179) needs your confirmation: the screen says \"pay\"",
		Action: &pay, Label: "Pay ¥99", Why: &engine.Why{By: "word", Detail: "pay"}}
	writeRecord(t, data, "r1", []engine.Entry{
		{T: at(0), Kind: "start", ID: "r1", Goal: "buy earbuds", Device: "phone-1"},
		{T: at(1), Kind: "state", State: st(engine.Planning)},
		{T: at(2), Kind: "plan", Call: 1, Thought: "Pay.", Actions: []action.Action{pay}, Usage: &model.Usage{PromptTokens: 100, CompletionTokens: 10}},
		{T: at(3), Kind: "person", Command: "deny", Action: &pay, Text: "wrong card", Request: asked},
		{T: at(4), Kind: "state", State: st(engine.Paused), By: "pause"},
		{T: at(5), Kind: "person", Command: "edit_goal", Text: "buy the blue earbuds"},
		{T: at(6), Kind: "person", Command: "resume"},
		{T: at(7), Kind: "state", State: st(engine.Manual), By: "take_over"},
		{T: at(8), Kind: "manual", Action: &home, Result: "ok", Ms: 30},
		{T: at(9), Kind: "person", Command: "hand_back", Text: "card changed", Region: &engine.Region{X1: 10, Y1: 20, X2: 300, Y2: 400}},
		{T: at(10), Kind: "person", Command: "confirm", Action: &pay, Request: asked},
		{T: at(11), Kind: "action", N: 1, Action: &pay, Result: "ok", Ms: 40},
		{T: at(12), Kind: "end", End: &engine.Result{State: engine.Done, Success: true, Summary: "Paid ¥99.", Steps: 1, Calls: 1}},
	})

	d, err := ReadRun(data, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if d.Run.Goal != "buy the blue earbuds" || d.Run.FirstGoal != "buy earbuds" {
		t.Errorf("goal %q (first %q): want the edited goal shown", d.Run.Goal, d.Run.FirstGoal)
	}
	var cmds []string
	for _, a := range d.Acts {
		cmds = append(cmds, a.Command)
	}
	if got, want := strings.Join(cmds, " "), "deny pause edit_goal resume take_over hand_back confirm"; got != want {
		t.Fatalf("acts %q, want %q", got, want)
	}
	if d.Acts[0].Text != "wrong card" || d.Acts[0].Action == nil || d.Acts[5].Region == nil || !d.Acts[0].At.Equal(at(3)) {
		t.Errorf("the acts lost what they carried: %+v", d.Acts)
	}
	// One source for the counts: the steps listed (the agent's and the
	// person's), everywhere.
	if d.Run.Steps != len(d.Steps) || d.Run.Steps != 2 {
		t.Errorf("summary says %d steps, the list has %d", d.Run.Steps, len(d.Steps))
	}
	runs, _ := PastRuns(data)
	if len(runs) != 1 || runs[0].Goal != "buy the blue earbuds" || runs[0].Steps != 2 {
		t.Errorf("history list %+v", runs)
	}

	path, err := ExportReport(data, "r1")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	html := string(raw)
	for _, want := range []string{"buy the blue earbuds", "first asked: buy earbuds", "Denied", "wrong card", "Paused the task",
		"Took over", "Handed back", "card changed", "(10, 20) – (300, 400)", "Allowed", "21:00:03", "2 steps"} {
		if !strings.Contains(html, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	// Each answer says what it allowed or denied, as the dialog did, and
	// not that the run had stopped.
	if n := strings.Count(html, "Press “Pay ¥99”"); n != 2 {
		t.Errorf("the report names the button %d times, want once for each answer", n)
	}
	if strings.Contains(html, "had stopped") {
		t.Error("the report says the run had stopped where it asked for a confirmation")
	}
	if strings.Count(html, `class="act"`) != 7 {
		t.Errorf("the report has %d person rows, want 7", strings.Count(html, `class="act"`))
	}
}

// TestAConfirmationShowsTheScreenItWasDecidedOn: the person allowed or
// denied on the dialog's picture; History and the report show that picture
// with the act, the action drawn on it. A denied action is no step, so
// without it the report named a button on a screen it never showed.
func TestAConfirmationShowsTheScreenItWasDecidedOn(t *testing.T) {
	data := t.TempDir()
	t0 := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	pay := action.Action{Type: action.Tap, X: 540, Y: 2179}
	writeRecord(t, data, "r1", []engine.Entry{
		{T: at(0), Kind: "start", ID: "r1", Goal: "buy earbuds", Device: "phone-1"},
		{T: at(1), Kind: "observe", Call: 1, Frame: "frames/00001.jpg", Screen: action.Size{W: 1080, H: 2400}},
		{T: at(2), Kind: "plan", Call: 1, Thought: "Pay.", Actions: []action.Action{pay}},
		{T: at(3), Kind: "person", Command: "deny", Action: &pay, Text: "too dear", Request: &engine.Request{
			Kind: engine.AskConfirm, Action: &pay, Label: "Pay ¥99", Why: &engine.Why{By: "word", Detail: "pay"}, Frame: "frames/00001.jpg"}},
		{T: at(4), Kind: "end", End: &engine.Result{State: engine.Stopped, Reason: "stopped by the person"}},
	})
	checkout := image.NewRGBA(image.Rect(0, 0, 108, 240))
	for i := range checkout.Pix {
		checkout.Pix[i] = 200
	}
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, checkout, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(data, "r1", "frames"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "r1", "frames", "00001.jpg"), jpg.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	d, err := ReadRun(data, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Acts) != 1 || d.Acts[0].Asked == nil || d.Acts[0].Asked.Frame != "frames/00001.jpg" || d.Acts[0].Screen != (action.Size{W: 1080, H: 2400}) {
		t.Fatalf("History's denial: %+v, want its screen frames/00001.jpg, 1080x2400", d.Acts)
	}
	path, err := ExportReport(data, "r1")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	page := string(raw)
	start := strings.Index(page, `<section class="act`)
	if start < 0 {
		t.Fatal("the report has no row for the denial")
	}
	row := page[start:]
	row = html.UnescapeString(row[:strings.Index(row, "</section>")]) // the template writes + as &#43;
	if !strings.Contains(row, "Denied") || !strings.Contains(row, `<img src="data:image/jpeg;base64,`+base64.StdEncoding.EncodeToString(jpg.Bytes())+`"`) {
		t.Errorf("the denial's row does not show the screen it was decided on: %.300s", row)
	}
	if !strings.Contains(row, "<ellipse") {
		t.Errorf("the denial's picture does not mark the tap: %.300s", row)
	}
}
