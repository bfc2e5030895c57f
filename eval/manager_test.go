package eval

import (
	"context"
	"strconv"
	"testing"
	"time"

	"tandem/backend"
	"tandem/vphone/vphonetest"
)

// The window's evaluations: one runs the chosen tasks for the oracle on a
// virtual phone of its own, tells its progress, is kept as a file and
// listed, and writes its report.
func TestAnEvaluationRunsIsKeptAndReported(t *testing.T) {
	if testing.Short() {
		t.Skip("runs tasks on a virtual phone")
	}
	_, port := vphonetest.StartServer(t)
	dir := t.TempDir()
	b := backend.New(backend.Config{ConfigDir: t.TempDir(), DataDir: dir, ADB: "127.0.0.1:" + strconv.Itoa(port)})
	defer b.Shutdown()
	heard := make(chan Progress, 100)
	evs := NewEvaluations(b, dir+"/evaluations", func(p Progress) { heard <- p })
	ev, err := evs.Start(EvalRequest{Oracle: true, Tasks: "settings_switch_1,todo_done_1", Seed: 4, Phones: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := evs.Start(EvalRequest{Oracle: true, Seed: 4}); err == nil {
		t.Fatal("a second evaluation started while one runs")
	}
	deadline := time.After(3 * time.Minute)
	for done := false; !done; {
		select {
		case p := <-heard:
			t.Logf("progress %+v", p)
			done = p.State != "running"
		case <-deadline:
			cur, _ := evs.Current()
			t.Fatalf("the evaluation did not end: %+v", cur)
		}
	}
	got, err := evs.Load(ev.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != "done" || len(got.Models) != 1 || got.Models[0].Summary.Tasks != 2 || got.Models[0].Summary.Success != 2 {
		t.Fatalf("evaluation %+v", got)
	}
	if l := evs.List(); len(l) != 1 || l[0].ID != ev.ID || l[0].Rates[0] != 1 {
		t.Fatalf("list %+v", l)
	}
	if _, err := evs.Report(ev.ID); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := evs.Stop(ctx); err != nil {
		t.Fatal(err)
	}
}
