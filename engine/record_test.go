package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"tandem/engine/action"
	"tandem/engine/model"
)

// TestCrashResume copies a run's record mid-run (as a crash would leave
// it, with a torn last line), resumes it on a new device and planner, and
// checks the resumed run knows its history and finishes.
func TestCrashResume(t *testing.T) {
	f := newFixture(t, Settings{UITree: true}, reply(tapPlus), reply(tapPlus), blockUntilCancel)
	f.plan.started = make(chan int, 8)
	f.start()
	for n := range f.plan.started {
		if n == 3 {
			break
		}
	}
	// Wait until the record holds both actions, then "crash".
	src := filepath.Join(f.dir, "run1")
	deadline := time.Now().Add(5 * time.Second)
	for {
		ents, _, err := ReadRecord(src)
		n := 0
		for _, e := range ents {
			if e.Kind == recAction {
				n++
			}
		}
		if err == nil && n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("record never showed 2 actions: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	crash := filepath.Join(t.TempDir(), "run1")
	CopyLive(t, src, crash)
	rf, err := os.OpenFile(filepath.Join(crash, recordFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = rf.WriteString(`{"t":"2026-01-01T00:00:00Z","kind":"act`) // torn line
	rf.Close()

	phone := newFakePhone()
	planner := &fakePlanner{script: []step{reply(tapPlus, finish("three after resume"))}}
	r, err := Resume(crash, Config{Device: phone, Planner: planner})
	if err != nil {
		t.Fatal(err)
	}
	if r.Snapshot().Goal != "count to three" {
		t.Fatalf("goal %q", r.Snapshot().Goal)
	}
	// The resumed run's Steps list starts with the steps taken before the
	// crash, as the run showed them then (issue 30: the meter counted
	// them, the list showed none).
	// Each says what it pressed by the words on it, live and resumed.
	if got, want := r.Snapshot().Steps, f.run.Snapshot().Steps; len(want) != 2 || want[0].Target != "+1" || !reflect.DeepEqual(got, want) {
		t.Fatalf("resumed steps\n%+v\nwant the ones before the crash, pressing “+1”\n%+v", got, want)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := r.Wait(ctx)
	if err != nil || res.State != Done || res.Steps != 3 || res.Calls != 3 {
		t.Fatalf("result %+v err %v", res, err)
	}
	in := planner.calls()[0]
	if len(in.History) != 2 || !strings.Contains(strings.Join(in.Notes, " "), "resumed from its record") {
		t.Fatalf("history %d notes %q", len(in.History), in.Notes)
	}
	ents, _, err := ReadRecord(crash)
	if err != nil || ents[len(ents)-1].Kind != recEnd {
		t.Fatalf("resumed record: %v, last %+v", err, ents[len(ents)-1])
	}
	if _, err := Resume(crash, Config{Device: newFakePhone(), Planner: planner}); err == nil {
		t.Fatal("resumed a run that had ended")
	}
	frames, _ := os.ReadDir(filepath.Join(crash, framesDir))
	if len(frames) < 3 {
		t.Fatalf("%d frames recorded", len(frames))
	}
}

func TestWaitStable(t *testing.T) {
	p := newFakePhone()
	cfg := StabilityConfig{Interval: 20 * time.Millisecond, StableFrames: 2, Max: time.Minute}
	s, err := WaitStable(context.Background(), p.Screenshot, cfg)
	// A static screen settles on its first StableFrames captures, not one
	// more; how long that takes is BenchmarkStabilityWait's figure (wait-ms).
	if err != nil || !s.Stable || s.Frames != cfg.StableFrames {
		t.Fatalf("static screen: %d frames in %v, %v", s.Frames, s.Waited, err)
	}
	p.mu.Lock()
	p.animUntil = time.Now().Add(300 * time.Millisecond)
	p.mu.Unlock()
	s, err = WaitStable(context.Background(), p.Screenshot, cfg)
	if err != nil || !s.Stable || s.Waited < 300*time.Millisecond {
		t.Fatalf("animated screen settled too early: %v %v", s.Waited, err)
	}
	p.mu.Lock()
	p.animUntil = time.Now().Add(time.Hour)
	p.mu.Unlock()
	s, err = WaitStable(context.Background(), p.Screenshot, StabilityConfig{Interval: 20 * time.Millisecond, Max: 200 * time.Millisecond})
	if err != nil || s.Stable {
		t.Fatalf("never-settling screen reported stable: %+v %v", s.Stable, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := WaitStable(ctx, p.Screenshot, cfg); err == nil {
		t.Fatal("cancelled wait returned no error")
	}
}

func TestPolicy(t *testing.T) {
	p := DefaultPolicy()
	for _, c := range []struct {
		label string
		want  bool
	}{{"Pay now", true}, {"display", false}, {"确认支付", true}, {"转账给张三", true}, {"+1", false}, {"Delete all", true}, {"sender", false}} {
		if got := p.Why(Target{Action: tapPlus, Label: c.label}).By != ""; got != c.want {
			t.Errorf("%q: %v", c.label, got)
		}
	}
	if (Policy{Off: true, Words: []string{"pay"}}).Why(Target{Action: tapPlus, Label: "pay"}).By != "" {
		t.Error("off policy matched")
	}
	if (Policy{Apps: []string{"Bank"}}).Why(Target{Action: tapPlus, App: "bank"}).By == "" {
		t.Error("app rule missed")
	}
	// A rule naming the app as the person knows it holds inside the app.
	alipay := Target{Action: tapPlus, App: "com.eg.android.AlipayGphone", Names: []string{"支付宝", "alipay", "AlipayGphone"}}
	for _, rule := range []string{"Alipay", " 支付宝 ", "com.eg.android.alipaygphone"} {
		if (Policy{Apps: []string{rule}}).Why(alipay).By != "app" {
			t.Errorf("app rule %q missed inside the app", rule)
		}
	}
	if (Policy{Apps: []string{"Bank"}}).Why(alipay).By != "" {
		t.Error("a rule for another app matched")
	}
	// The model's own words count where there are no labels (a desktop).
	if p.Why(Target{Action: tapPlus, Words: "Click Pay now to finish the order"}).By != "word" {
		t.Error("the model's own words were not read")
	}
	if e, _ := elementAt([]byte(`<node text="Pay now" bounds="[0,0][10,10]"/>`), 5, 5); e.Label != "Pay now" {
		t.Error("elementAt")
	}
}

// TestReadRecordSkipsDamage: a record damaged in the middle (a bad byte, a
// line of junk, an over-long line) keeps every other line, says which were
// skipped, and still resumes; a torn last line is not damage but a crash.
func TestReadRecordSkipsDamage(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	lines = append(lines, `{"t":"2026-01-01T00:00:00Z","kind":"start","id":"r","goal":"count"}`)
	for i := 0; i < 44; i++ {
		lines = append(lines, fmt.Sprintf(`{"t":"2026-01-01T00:00:%02dZ","kind":"note","text":"line %d"}`, i%60, i+2))
	}
	lines[8] = strings.Replace(lines[8], `"kind"`, "\"ki\x00nd\"", 1) // one bad byte, line 9
	lines[20] = "garbage that is not JSON"                            // line 21
	lines[30] = `{"t":"2026-01-01T00:00:00Z","kind":"note","text":"` + strings.Repeat("x", maxRecordLine) + `"}`
	body := strings.Join(lines, "\n") + "\n" + `{"t":"2026-01-01T00:00:00Z","ki` // torn
	if err := os.WriteFile(filepath.Join(dir, recordFile), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	rr, err := ReadRecordAll(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Entries) != 42 || !slices.Equal(rr.Damaged, []int{9, 21, 31}) || !rr.Torn || !rr.Started() {
		t.Fatalf("%d entries, damaged %v, torn %v", len(rr.Entries), rr.Damaged, rr.Torn)
	}
	if want := int64(len(body) - len(`{"t":"2026-01-01T00:00:00Z","ki`)); rr.Good != want {
		t.Fatalf("good %d want %d", rr.Good, want)
	}
	if last := rr.Entries[len(rr.Entries)-1]; last.Text != "line 45" {
		t.Fatalf("last entry %+v", last)
	}
	ents, good, err := ReadRecord(dir)
	if err != nil || len(ents) != 42 || good != rr.Good {
		t.Fatalf("ReadRecord: %d entries, good %d, %v", len(ents), good, err)
	}

	// A damaged first line: what could be read is there, and the record is
	// said to be damaged, not missing (TestDamagedFirstLine resumes one).
	if err := os.WriteFile(filepath.Join(dir, recordFile), []byte("\x00\x01junk\n"+strings.Join(lines[1:5], "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rr, err = ReadRecordAll(dir)
	if err != nil || rr.Started() || len(rr.Entries) != 4 || !slices.Equal(rr.Damaged, []int{1}) {
		t.Fatalf("damaged start: %+v %v", rr.Damaged, err)
	}
	if ents, _, err := ReadRecord(dir); !errors.Is(err, ErrDamagedRecord) || len(ents) != 4 {
		t.Fatalf("ReadRecord of a record without its start: %d entries, %v", len(ents), err)
	}
}

// TestStepsReadNumbersBothHands: a record's steps come back numbered as the
// run numbered them live, the person's between the agent's, each with the
// screen it was chosen on and a call's cost on its first action only.
func TestStepsReadNumbersBothHands(t *testing.T) {
	tap := action.Action{Type: action.Tap, X: 1, Y: 2}
	u := &model.Usage{PromptTokens: 10}
	var s stepsRead
	for _, e := range []Entry{
		{Kind: recObserve, Call: 1, Frame: "frames/00001.jpg"},
		{Kind: recPlan, Call: 1, Usage: u, Thought: "Press +1 twice."},
		{Kind: recAction, N: 1, Call: 1, Action: &tap, Result: "ok", Ms: 5},
		{Kind: recAction, N: 2, Call: 1, Action: &tap, Result: "ok"},
		{Kind: recManual, Action: &tap, Before: "frames/00002.jpg", Result: "ok"},
		{Kind: recManual, Action: &tap}, // a line without its result: counted as done
		{Kind: recManual},               // no action: not a step
		{Kind: recObserve, Call: 2, Frame: "frames/00003.jpg"},
		{Kind: recAction, N: 3, Call: 2, Action: &tap, Result: "the phone went away"},
	} {
		s.read(e)
	}
	want := []StepEvent{
		{N: 1, Action: tap, Result: "ok", Ms: 5, Call: 1, Frame: "frames/00001.jpg", Usage: u, Thought: "Press +1 twice."},
		{N: 2, Action: tap, Result: "ok", Call: 1, Frame: "frames/00001.jpg"},
		{N: 3, Action: tap, Result: "ok", ByPerson: true, Frame: "frames/00002.jpg"},
		{N: 4, Action: tap, Result: "ok", ByPerson: true},
		{N: 5, Action: tap, Result: "the phone went away", Call: 2, Frame: "frames/00003.jpg"},
	}
	if !reflect.DeepEqual(s.list, want) {
		t.Fatalf("steps\n%+v\nwant\n%+v", s.list, want)
	}
}
