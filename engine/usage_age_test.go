package engine

import (
	"testing"
	"time"

	"tandem/internal/modeltest"
	"tandem/vphone"
)

// A window that opens while the first model call waits shows the run's
// age, not the time since it opened: the snapshot's usage is measured from
// the run's start (issue 49 item 11: "0:03" beside "waiting for the model
// (56 s)").
func TestTheSnapshotDatesTheRunFromItsStart(t *testing.T) {
	t.Parallel()
	g := newRig(t)
	g.launch(vphone.PkgCounter)
	release := make(chan struct{})
	defer close(release)
	srv := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply {
		<-release
		return tools("", call("finish", `{"summary":"ok","success":true}`))
	})
	before := time.Now()
	s := g.start(srv, "Count", Settings{}, plannerOpts{})
	s.ev.waitState(t, Planning)
	u := s.run.Snapshot().Usage
	if u.At.IsZero() || u.At.Before(before.Add(-time.Second)) || u.At.After(time.Now()) || u.ElapsedMs != 0 {
		t.Fatalf("the snapshot's usage during the first call: %+v (the run started at %v)", u, before)
	}
}
