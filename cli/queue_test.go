package cli

import (
	"strings"
	"testing"

	"tandem/engine"
	"tandem/engine/model"
)

// A run waiting its turn for the model says its place as it changes, and
// the time waited at the usual rhythm, not every second.
func TestRunPrintsItsPlaceInTheModelsQueue(t *testing.T) {
	var out strings.Builder
	p := &progress{env: Env{Stdout: &out}}
	for _, w := range []model.Waiting{{ElapsedMs: 10, Ahead: 2}, {ElapsedMs: 1000, Ahead: 2}, {ElapsedMs: 2000, Ahead: 2},
		{ElapsedMs: 2500, Ahead: 1}, {ElapsedMs: 3000, Ahead: 1}, {ElapsedMs: 3200}, {ElapsedMs: 5000}} {
		p.print(engine.Event{Kind: engine.KindWaiting, Waiting: &engine.WaitingEvent{Call: 1, Waiting: w}})
	}
	want := "  waiting for the model: 2 ahead…\n  waiting for the model: 2 ahead (2 s)…\n" +
		"  waiting for the model: 1 ahead…\n  waiting for the model (5 s)…\n"
	if out.String() != want {
		t.Fatalf("printed:\n%s\nwant:\n%s", out.String(), want)
	}
}
