package engine

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestTableShape checks invariants of the table itself.
func TestTableShape(t *testing.T) {
	c := newChart()
	seen := map[[2]int]bool{}
	for _, r := range chartRows() {
		k := [2]int{int(r.from), int(r.on)}
		if seen[k] && r.guard == nil {
			t.Errorf("%s/%s listed twice without a guard", c.id(r.from), r.on)
		}
		seen[k] = true
		spec, ok := c.nodes[r.from]
		if !ok {
			t.Errorf("row from unknown node %d", r.from)
		}
		if !spec.plain && spec.state.Terminal() {
			t.Errorf("terminal state %s has a row", spec.state)
		}
	}
	// Stop is accepted everywhere a run is alive; every live state can end.
	for _, s := range States {
		if s.Terminal() {
			continue
		}
		if !allowed(s, OnStop, Stopped) {
			t.Errorf("%s does not accept stop", s)
		}
	}
}

// TestTransitionTable pins, as a table, which commands each state accepts.
func TestTransitionTable(t *testing.T) {
	cases := []struct {
		from State
		on   Trigger
		ok   bool
		to   []State
	}{
		{Idle, OnStart, true, []State{Planning}},
		{Idle, OnPause, false, nil},
		{Idle, OnConfirm, false, nil},
		{Planning, OnPause, true, []State{Paused}},
		{Planning, OnTakeOver, true, []State{Manual}},
		{Planning, OnConfirm, false, nil},
		{Planning, OnHandBack, false, nil},
		{Planning, OnPlanned, true, []State{Executing, Planning, WaitingForUser, Manual, Done, Failed, Stopped}},
		{Executing, OnPause, true, []State{Executing}},
		{Executing, OnActionDone, true, []State{WaitingForStability, Paused, Manual}},
		{Executing, OnResume, false, nil},
		{WaitingForStability, OnStable, true, []State{Executing, Planning, Done}},
		{WaitingForStability, OnPause, true, []State{Paused}},
		{WaitingForUser, OnConfirm, true, []State{Executing}},
		{WaitingForUser, OnDeny, true, []State{Planning}},
		{WaitingForUser, OnAnswer, true, []State{Planning}},
		{WaitingForUser, OnTakeOver, true, []State{Manual}},
		{WaitingForUser, OnPause, false, nil},
		{WaitingForUser, OnHandBack, false, nil},
		{Paused, OnResume, true, []State{Planning}},
		{Paused, OnDeviceBack, true, []State{Planning}},
		{Paused, OnPause, false, nil},
		{Paused, OnConfirm, false, nil},
		{Manual, OnManualInput, true, []State{Manual}},
		{Manual, OnHandBack, true, []State{Planning}},
		{Manual, OnPause, false, nil},
		{Manual, OnResume, false, nil},
		{Manual, OnConfirm, false, nil},
		{Done, OnStart, false, nil},
		{Stopped, OnResume, false, nil},
		{Failed, OnStop, false, nil},
	}
	for _, c := range cases {
		tos, ok := lookup(c.from, c.on)
		if ok != c.ok {
			t.Errorf("%s/%s accepted=%v, want %v", c.from, c.on, ok, c.ok)
			continue
		}
		for _, want := range c.to {
			if !allowed(c.from, c.on, want) {
				t.Errorf("%s --%s--> %s not allowed (table has %v)", c.from, c.on, want, tos)
			}
		}
	}
}

func TestStateStrings(t *testing.T) {
	for _, s := range States {
		b, err := s.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back State
		if err := back.UnmarshalText(b); err != nil || back != s || s.String() != string(b) {
			t.Errorf("%d: %q -> %v %v", s, b, back, err)
		}
	}
	if State(42).String() != "State(42)" {
		t.Error(State(42).String())
	}
	if _, err := State(42).MarshalText(); err == nil {
		t.Error("marshal of unknown state succeeded")
	}
	if Trigger(99).String() != "Trigger(99)" || OnHandBack.String() != "hand_back" {
		t.Error("trigger names")
	}
}

// TestIllegalCommands: a command the state does not accept returns an
// *IllegalError and changes nothing; a finished run answers ErrFinished
// without blocking.
func TestIllegalCommands(t *testing.T) {
	f := newFixture(t, Settings{}, reply(finish("done")))
	ctx := context.Background()
	var ill *IllegalError
	for name, err := range map[string]error{
		"pause":     f.run.Pause(ctx),
		"resume":    f.run.Resume(ctx),
		"confirm":   f.run.Confirm(ctx),
		"deny":      f.run.Deny(ctx, "no"),
		"answer":    f.run.Answer(ctx, "x"),
		"hand back": f.run.HandBack(ctx, "", nil),
		"input":     f.run.Input(ctx, tapPlus),
	} {
		if !errors.As(err, &ill) || ill.State != Idle {
			t.Errorf("%s in Idle: %v, want IllegalError", name, err)
		}
	}
	if got := f.run.Snapshot().State; got != Idle {
		t.Fatalf("state %s after illegal commands", got)
	}
	f.start()
	res := f.wait()
	if res.State != Done || !res.Success || res.Summary != "done" {
		t.Fatalf("result %+v", res)
	}
	for _, err := range []error{f.run.Pause(ctx), f.run.Start(ctx), f.run.Confirm(ctx)} {
		if !errors.Is(err, ErrFinished) {
			t.Errorf("command on a finished run: %v", err)
		}
	}
	if err := f.run.Stop(ctx); err != nil {
		t.Errorf("stop on a finished run: %v", err)
	}
}

// The UI's copy of the table is generated from it; this fails when the
// checked-in file drifts (the table changed, or someone edited the file).
func TestTransitionsTypeScriptGolden(t *testing.T) {
	generatedTS(t, "transitions.ts", TypeScript(), "the transition table")
}

// generatedTS checks the frontend's generated file name against got, what
// its source (in words) makes now; with -update it writes it first.
func generatedTS(t *testing.T, name, got, source string) {
	t.Helper()
	path := filepath.Join("..", "frontend", "src", "lib", "gen", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./engine -run TypeScript -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s; run go test ./engine -run TypeScript -update and review the diff", path, source)
	}
}
