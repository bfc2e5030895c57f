package app

import "tandem/engine"

// Who may touch a device is decided here, and only here: every input of
// the person — a finished gesture on the mirror or the pop-out, a live
// scrcpy touch, the device's own input — asks handsOn first, so no door
// lets a hand reach a device behind its run's back. The page shows the
// same rule (lib/controls.ts, handsOn), tested on the vector this rule
// writes (frontend/src/lib/testdata/hands.json).

// hands is where the person's input on a device goes now.
type hands int

const (
	// toDevice: no task is running on it; the input is the device's own.
	toDevice hands = iota
	// toRun: the person drives the run (Manual); the run makes the input
	// and records it with the screens around it, to tell the model.
	toRun
	// toTakeOver: a task runs and the person does not drive it (the agent
	// acts, it is paused or waits for them); a finished gesture takes over
	// and is not passed on, so a take-over never taps anything by accident.
	toTakeOver
	// toNobody: the task takes no input now (it is starting).
	toNobody
)

// String names the hands as the page does (lib/controls.ts, handsOn).
func (h hands) String() string {
	return [...]string{"device", "run", "take_over", "nobody"}[h]
}

// handsFor is the rule: a device with no live run is the person's; a run
// in Manual is theirs through the run; a run that can be taken over is
// taken over; any other live run takes nothing.
func handsFor(st engine.State, hasRun bool) hands {
	switch {
	case !hasRun || st.Terminal():
		return toDevice
	case st == engine.Manual:
		return toRun
	case st.Accepts(engine.OnTakeOver):
		return toTakeOver
	default:
		return toNobody
	}
}

// handsOn says where the person's input on device id goes now, and the run
// concerned (nil with toDevice).
func (a *App) handsOn(id string) (hands, *engine.Run) {
	run, ok := a.runs.OnDevice(id)
	if !ok {
		return toDevice, nil
	}
	h := handsFor(run.State(), true)
	if h == toDevice {
		return h, nil
	}
	return h, run
}
