package engine

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// recordSnapshot reads the fixture's record as another process would.
func recordSnapshot(t *testing.T, f *fixture) Snapshot {
	t.Helper()
	rr, err := ReadRecordAll(filepath.Join(f.dir, "run1"))
	if err != nil {
		t.Fatal(err)
	}
	return SnapshotOf("run1", rr.Entries)
}

// A window that does not drive a run reads it from its record: what it
// shows must be what the driving process shows, step for step.
func TestSnapshotOfARecordIsTheRunsOwn(t *testing.T) {
	f := newFixture(t, Settings{Policy: DefaultPolicy(), UITree: true},
		reply(tapPlus, tapPlus), reply(tapPay), reply(finish("paid")))
	f.start()
	f.ev.waitState(t, WaitingForUser)
	// The record is written behind the run: wait for it to say so.
	var mid Snapshot
	for end := time.Now().Add(10 * time.Second); ; {
		if mid = recordSnapshot(t, f); (mid.State == WaitingForUser && mid.Request != nil) || time.Now().After(end) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	live := f.run.Snapshot()
	if mid.State != WaitingForUser || mid.Request == nil || mid.Request.Kind != AskConfirm || mid.Request.Message != live.Request.Message {
		t.Fatalf("mid-run the record shows %s with request %+v; the run shows %s with %+v", mid.State, mid.Request, live.State, live.Request)
	}
	if mid.Goal != live.Goal || len(mid.Steps) != 2 || mid.Result != nil {
		t.Fatalf("mid-run: goal %q, %d steps, result %v", mid.Goal, len(mid.Steps), mid.Result)
	}
	if err := f.run.Confirm(context.Background()); err != nil {
		t.Fatal(err)
	}
	res := f.wait()
	end := recordSnapshot(t, f)
	live = f.run.Snapshot()
	if end.State != res.State || end.Result == nil || end.Result.Summary != "paid" || end.Request != nil {
		t.Fatalf("ended: state %s result %+v request %+v", end.State, end.Result, end.Request)
	}
	if !reflect.DeepEqual(end.Steps, live.Steps) {
		t.Fatalf("steps from the record\n%+v\nthe run's\n%+v", end.Steps, live.Steps)
	}
	if end.Usage.Calls != live.Usage.Calls || end.Usage.Steps != live.Usage.Steps || end.Usage.Total != live.Usage.Total {
		t.Fatalf("usage from the record %+v, the run's %+v", end.Usage, live.Usage)
	}
	// Its age is the record's own span, dated by its last line.
	rr, err := ReadRecordAll(filepath.Join(f.dir, "run1"))
	if err != nil {
		t.Fatal(err)
	}
	first, last := rr.Entries[0].T, rr.Entries[len(rr.Entries)-1].T
	if end.Usage.ElapsedMs != last.Sub(first).Milliseconds() || !end.Usage.At.Equal(last) {
		t.Fatalf("age %d ms at %v, want the record's %d ms at %v", end.Usage.ElapsedMs, end.Usage.At, last.Sub(first).Milliseconds(), last)
	}
}
