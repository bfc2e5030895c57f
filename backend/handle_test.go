//go:build linux

package backend

import (
	"context"
	"reflect"
	"testing"
	"time"

	"tandem/engine"
	"tandem/engine/action"
	"tandem/internal/datadir"
	"tandem/mirror"
)

// A door's handle on a run has no way to send input: no method takes an
// action, a press or an input (EditPending's list is the agent's queued
// plan, not input on the device), so input goes through Hand by type.
func TestARunHandleTakesNoInput(t *testing.T) {
	inputs := []reflect.Type{reflect.TypeFor[action.Action](), reflect.TypeFor[*action.Action](),
		reflect.TypeFor[mirror.Press](), reflect.TypeFor[Input]()}
	ht := reflect.TypeFor[*RunHandle]()
	for i := range ht.NumMethod() {
		m := ht.Method(i)
		for j := 1; j < m.Type.NumIn(); j++ {
			for _, in := range inputs {
				if m.Type.In(j) == in {
					t.Errorf("RunHandle.%s takes %s: input goes through Backend.Hand only", m.Name, in)
				}
			}
		}
		if m.Name == "Input" || m.Name == "InputDone" {
			t.Errorf("RunHandle has %s", m.Name)
		}
	}
}

// Every command says who asked, and the record keeps it: the window took
// over, the command line allowed, an MCP client stopped, the person
// answered through the client's form.
func TestTheRecordNamesWhoGaveEachCommand(t *testing.T) {
	t.Setenv(datadir.RuntimeEnv, t.TempDir()) // its own leases: no other test's process holds sim-0
	b, p := attentionRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	pay, err := b.StartRun(ctx, "sim-0", "pay the bill #1", RunChoice{Profile: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	awaitState(ctx, t, b, pay.ID, waiting)
	mustDoAs(t, b, pay.ID, ByCommandLine(), (*RunHandle).Confirm)
	awaitState(ctx, t, b, pay.ID, ended)

	ask, err := b.StartRun(ctx, "sim-1", "ask which account #2", RunChoice{Profile: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	awaitState(ctx, t, b, ask.ID, waiting)
	mustDoAs(t, b, ask.ID, ByWindow(), (*RunHandle).TakeOver)
	mustDoAs(t, b, ask.ID, ByMCP("claude-code"), (*RunHandle).Stop)
	awaitState(ctx, t, b, ask.ID, ended)

	if got := viaOf(t, b, pay.ID, "confirm"); got != ByCommandLine().String() {
		t.Errorf("the confirmation is recorded as given by %q", got)
	}
	if got := viaOf(t, b, ask.ID, "take_over"); got != ByWindow().String() {
		t.Errorf("the take-over is recorded as given by %q", got)
	}
	if got := viaOf(t, b, ask.ID, "stop"); got != "mcp:claude-code" {
		t.Errorf("the stop is recorded as given by %q", got)
	}
}

func mustDoAs(t *testing.T, b *Backend, id string, by Actor, f func(*RunHandle, context.Context) error) {
	t.Helper()
	r, err := b.Run(id, by)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f(r, ctx); err != nil {
		t.Fatal(err)
	}
}

// viaOf is who the record of run id says gave the command behind the
// first state change or person's entry made by command by.
func viaOf(t *testing.T, b *Backend, id, by string) string {
	t.Helper()
	r, err := b.runs.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Wait(t.Context()); err != nil { // its record closed
		t.Fatal(err)
	}
	entries, _, err := engine.ReadRecord(r.Dir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.By == by || (e.Kind == engine.EntryPerson && e.Command == by) {
			return e.Via
		}
	}
	for _, e := range entries {
		t.Logf("%s by=%q cmd=%q via=%q", e.Kind, e.By, e.Command, e.Via)
	}
	t.Fatalf("no entry by %s in %s's record", by, id)
	return ""
}
