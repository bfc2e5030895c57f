package backend

import (
	"os"
	"path/filepath"
	"testing"

	"tandem/devices"
	"tandem/engine"
)

// A device another Tandem drives is read from its run's record again only
// when the record grew, and forgotten when it is let go.
func TestElsewhereReadsTheOtherRunsRecordAsItGrows(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "r1")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(lines string) {
		f, err := os.OpenFile(engine.RecordPath(run), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(lines); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"t":"2026-12-07T06:00:00Z","kind":"start","id":"r1","goal":"Pay there","device":"emu-1"}` + "\n" +
		`{"t":"2026-12-07T06:00:01Z","kind":"state","state":"Planning"}` + "\n")
	w := newElsewhere(dir)
	h := devices.Holder{Door: "run", PID: 42, Run: "r1", Goal: "Pay there"}
	w.see([]DeviceEntry{{ID: "emu-1", HeldBy: &h}, {ID: "emu-2"}})

	news := w.look()
	if len(news) != 1 || news[0].Device != "emu-1" || news[0].Run == nil || news[0].Run.Goal != "Pay there" || news[0].Run.State != engine.Planning {
		t.Fatalf("first look: %+v", news)
	}
	if again := w.look(); len(again) != 0 {
		t.Fatalf("an unchanged record is told again: %+v", again)
	}
	write(`{"t":"2026-12-07T06:00:02Z","kind":"state","state":"WaitingForUser"}` + "\n")
	if news = w.look(); len(news) != 1 || news[0].Run.State != engine.WaitingForUser {
		t.Fatalf("after the record grew: %+v", news)
	}
	if got := w.Views(); len(got) != 1 || got[0].Run.State != engine.WaitingForUser {
		t.Fatalf("views %+v", got)
	}
	w.see([]DeviceEntry{{ID: "emu-1"}})
	if news = w.look(); len(news) != 1 || !news[0].Gone || news[0].Device != "emu-1" {
		t.Fatalf("let go: %+v", news)
	}
	if got := w.Views(); len(got) != 0 {
		t.Fatalf("views after let go %+v", got)
	}
	// A holder that is no run (the window's person, an act) is shown
	// with no run, once.
	w.see([]DeviceEntry{{ID: "emu-2", HeldBy: &devices.Holder{Door: "window", PID: 43}}})
	if news = w.look(); len(news) != 1 || news[0].Run != nil || news[0].Holder.PID != 43 {
		t.Fatalf("a holder with no run: %+v", news)
	}
	if again := w.look(); len(again) != 0 {
		t.Fatalf("told again: %+v", again)
	}
}
