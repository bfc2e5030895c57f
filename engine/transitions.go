package engine

import "fmt"

// Trigger is what moves a run: a command from the person or the result of a
// piece of work that ran off the loop.
type Trigger int

// Commands from the person.
const (
	OnStart          Trigger = 1
	OnPause          Trigger = 2
	OnResume         Trigger = 3
	OnTakeOver       Trigger = 4
	OnHandBack       Trigger = 5
	OnStop           Trigger = 6
	OnStopGracefully Trigger = 7
	OnConfirm        Trigger = 8
	OnDeny           Trigger = 9
	OnAnswer         Trigger = 10
	OnEditGoal       Trigger = 11
	OnEditPending    Trigger = 12
	OnManualInput    Trigger = 13 // one input the person makes while driving
)

// Results of work.
const (
	OnPlanned    Trigger = 20 // the model call returned (a plan or an error)
	OnActionDone Trigger = 21 // the device action returned
	OnStable     Trigger = 22 // the screen settled (or the wait hit its cap)
	OnDeviceLost Trigger = 23 // the device went away during work
	OnDeviceBack Trigger = 24 // the lost device answers again
	OnManualDone Trigger = 25 // a person's input (and its settle wait) finished
	OnDeviceAway Trigger = 26 // the lost device is still away (a countdown tick, or the limit)
	OnGlimpse    Trigger = 27 // the first capture after an action, before it is known to be settled
	OnDropped    Trigger = 28 // a call started on a glimpse was cancelled (what it cost, when known)
)

var triggerNames = map[Trigger]string{
	OnStart: "start", OnPause: "pause", OnResume: "resume", OnTakeOver: "take_over",
	OnHandBack: "hand_back", OnStop: "stop", OnStopGracefully: "stop_gracefully",
	OnConfirm: "confirm", OnDeny: "deny", OnAnswer: "answer", OnEditGoal: "edit_goal",
	OnEditPending: "edit_pending", OnManualInput: "manual_input",
	OnPlanned: "planned", OnActionDone: "action_done", OnStable: "stable",
	OnDeviceLost: "device_lost", OnDeviceBack: "device_back", OnManualDone: "manual_done",
	OnDeviceAway: "device_away", OnGlimpse: "glimpse", OnDropped: "dropped_call",
}

func (t Trigger) String() string {
	if n, ok := triggerNames[t]; ok {
		return n
	}
	return fmt.Sprintf("Trigger(%d)", int(t))
}

// IsCommand reports whether the trigger comes from the person.
func (t Trigger) IsCommand() bool { return t < OnPlanned }

// IllegalError is a command that the run's current state does not accept.
type IllegalError struct {
	State   State
	Trigger Trigger
	Why     string // set when the state accepts the command in other circumstances
}

func (e *IllegalError) Error() string {
	if e.Why != "" {
		return fmt.Sprintf("engine: cannot %s while %s: %s", e.Trigger, e.State, e.Why)
	}
	return fmt.Sprintf("engine: cannot %s while %s", e.Trigger, e.State)
}

// Accepts reports whether the state takes trigger t (the chart's rows).
func (s State) Accepts(t Trigger) bool {
	_, ok := lookup(s, t)
	return ok
}
