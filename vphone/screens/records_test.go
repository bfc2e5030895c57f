package screens

import (
	"testing"
	"time"
)

// A chore app keeps its table for the phone's life; a force-stop ends what
// its screens held (a search, an open form), as a process that dies does.
func TestForceStopForgetsTheScreensNotTheTable(t *testing.T) {
	m := New(Config{Width: 1080, Height: 2400}, func() time.Time { return time.Unix(0, 0) })
	m.Launch(PkgFiles)
	m.TypeText("x") // nothing focused: goes nowhere
	m.Tap(540, 320) // the search field
	m.TypeText("holiday")
	if _, ok := m.BoundsOfText("Clear search"); !ok {
		t.Fatal("a search shows its clear button")
	}
	before, _ := m.Query(PkgFiles, "files")
	m.ForceStop(PkgFiles)
	m.Launch(PkgFiles)
	if a := m.chores[PkgFiles]; a.query != "" || a.scr != "" {
		t.Fatalf("after a force-stop the app still shows query %q, screen %q", a.query, a.scr)
	}
	after, _ := m.Query(PkgFiles, "files")
	if len(after) != len(before) || len(after) == 0 {
		t.Fatalf("the table changed: %d rows, then %d", len(before), len(after))
	}
}
