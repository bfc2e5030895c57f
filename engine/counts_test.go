package engine

import (
	"context"
	"testing"
	"time"

	"tandem/engine/action"
)

// The person's inputs are steps like the agent's, everywhere (issue 30
// item 5): numbered in one sequence with the agent's, and counted by the
// usage the live meter shows, as History and the report count them. Each
// usage says when its elapsed time was measured, so a window that shows it
// later adds only what passed since (never shows less than before).
func TestPersonStepsAreNumberedAndCounted(t *testing.T) {
	f := newFixture(t, Settings{}, reply(tap(10, 20)), reply(action.Action{Type: action.TakeOver, Reason: "solve the captcha"}),
		reply(tap(30, 40)), reply(finish("done")))
	f.start()
	f.ev.waitState(t, Manual)
	ctx := context.Background()
	if err := f.run.Input(ctx, tapPlus); err != nil {
		t.Fatal(err)
	}
	if err := f.run.Input(ctx, action.Action{Type: action.TypeText, Text: "x7k"}); err != nil {
		t.Fatal(err)
	}
	if err := f.run.HandBack(ctx, "", nil); err != nil {
		t.Fatal(err)
	}
	if res := f.wait(); res.State != Done {
		t.Fatalf("result %+v", res)
	}
	var ns []int
	var byPerson []bool
	for _, e := range f.ev.kinds(KindStep) {
		ns = append(ns, e.Step.N)
		byPerson = append(byPerson, e.Step.ByPerson)
	}
	if len(ns) != 4 {
		t.Fatalf("%d steps %v, want 4", len(ns), ns)
	}
	for i, n := range ns {
		if n != i+1 {
			t.Fatalf("steps numbered %v (by the person: %v), want 1 2 3 4", ns, byPerson)
		}
	}
	us := f.ev.kinds(KindUsage)
	if len(us) == 0 {
		t.Fatal("no usage")
	}
	last := us[len(us)-1].Usage
	if last.Steps != 2 || last.PersonSteps != 2 {
		t.Errorf("usage counts %d by the agent and %d by the person, want 2 and 2", last.Steps, last.PersonSteps)
	}
	if snap := f.run.Snapshot().Usage; snap.Steps+snap.PersonSteps != 4 {
		t.Errorf("the snapshot's usage counts %d+%d steps, want 4", snap.Steps, snap.PersonSteps)
	}
	// The record lists the same steps History and the report count.
	entries, _, err := ReadRecord(f.run.Dir())
	if err != nil {
		t.Fatal(err)
	}
	recorded := 0
	for _, e := range entries {
		if (e.Kind == EntryAction || e.Kind == EntryManual) && e.Action != nil {
			recorded++
		}
	}
	if recorded != last.Steps+last.PersonSteps {
		t.Errorf("the record lists %d steps, the live usage %d+%d", recorded, last.Steps, last.PersonSteps)
	}
	// Elapsed is measured at At: At minus elapsed is the run's start, the
	// same for every usage event.
	var start time.Time
	for _, e := range us {
		u := e.Usage
		if u.At.IsZero() {
			t.Fatalf("usage %+v does not say when its elapsed time was measured", u)
		}
		s := u.At.Add(-time.Duration(u.ElapsedMs) * time.Millisecond)
		if start.IsZero() {
			start = s
		}
		if d := s.Sub(start); d < -time.Millisecond || d > time.Millisecond {
			t.Errorf("usage measured at %v with %d ms elapsed: the run started at %v, earlier %v", u.At, u.ElapsedMs, s, start)
		}
	}
}
