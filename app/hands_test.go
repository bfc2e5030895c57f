package app

import (
	"testing"

	"tandem/engine"
)

// The rule of who may touch, over every state a run can be in: the device
// is the person's only when no task runs on it; a run the person drives
// takes their input; every other live run takes over or takes nothing —
// never the device behind the run's back. And it agrees with the page's
// own reading of the same table (mirrorTakesOver in lib/controls.ts: a
// click takes over exactly where the state accepts take_over).
func TestHandsOverEveryState(t *testing.T) {
	if h := handsFor(engine.Idle, false); h != toDevice {
		t.Fatalf("no run: %v", h)
	}
	want := map[engine.State]hands{
		engine.Idle: toNobody, engine.Planning: toTakeOver, engine.Executing: toTakeOver,
		engine.WaitingForStability: toTakeOver, engine.WaitingForUser: toTakeOver, engine.Paused: toTakeOver,
		engine.Manual: toRun, engine.Done: toDevice, engine.Failed: toDevice, engine.Stopped: toDevice,
	}
	for _, st := range engine.States {
		got := handsFor(st, true)
		if got != want[st] {
			t.Errorf("%s: %v, want %v", st, got, want[st])
		}
		if got == toDevice && !st.Terminal() {
			t.Errorf("%s: the device is handed over while its run lives", st)
		}
		if (got == toTakeOver) != (st.Accepts(engine.OnTakeOver) && st != engine.Manual) {
			t.Errorf("%s: takes over %v, but the table says take_over is accepted: %v", st, got == toTakeOver, st.Accepts(engine.OnTakeOver))
		}
	}
}
