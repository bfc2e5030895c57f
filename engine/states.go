package engine

import "fmt"

// State is where a run is. The values are explicit because they cross into
// the UI (as strings in JSON, and as an enum in TypeScript) and into the run
// record, which must stay readable by later versions.
type State int

// The states of a run. Done, Failed and Stopped are the ends.
const (
	Idle                State = 0 // created, not started
	Planning            State = 1 // observe the screen and make one model call
	Executing           State = 2 // one atomic device action in flight
	WaitingForStability State = 3 // waiting for the screen to settle after an action
	WaitingForUser      State = 4 // a confirmation, question, takeover request or escalation
	Paused              State = 5 // the person paused, or the device went away
	Manual              State = 6 // the person drives
	Done                State = 7 // finished with a summary
	Failed              State = 8 // the model reported failure, or a fatal error
	Stopped             State = 9 // the person stopped the run
)

// States lists every state in value order.
var States = []State{Idle, Planning, Executing, WaitingForStability, WaitingForUser,
	Paused, Manual, Done, Failed, Stopped}

var stateNames = [...]string{"Idle", "Planning", "Executing", "WaitingForStability",
	"WaitingForUser", "Paused", "Manual", "Done", "Failed", "Stopped"}

func (s State) String() string {
	if s >= 0 && int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Terminal reports whether the run has ended in this state.
func (s State) Terminal() bool { return s == Done || s == Failed || s == Stopped }

// MarshalText writes the state's name, so JSON carries "Planning", not 1.
func (s State) MarshalText() ([]byte, error) {
	if s < 0 || int(s) >= len(stateNames) {
		return nil, fmt.Errorf("engine: unknown state %d", int(s))
	}
	return []byte(stateNames[s]), nil
}

// UnmarshalText reads a state's name.
func (s *State) UnmarshalText(b []byte) error {
	for i, n := range stateNames {
		if n == string(b) {
			*s = State(i)
			return nil
		}
	}
	return fmt.Errorf("engine: unknown state %q", b)
}

// pausedHow is Paused's substate: why the run is paused, which says what
// the device coming back does. Outside Paused it is pausedByPerson (set
// clears it on every exit from Paused).
type pausedHow int

const (
	// pausedByPerson: the person paused; only they resume.
	pausedByPerson pausedHow = 0
	// pausedDeviceAway: the device went away; the run resumes by itself
	// when it answers again, or fails once it stayed away too long.
	pausedDeviceAway pausedHow = 1
	// pausedDeviceAwayHeld: the device went away while the person's pause
	// waited for the action; back, the run stays paused.
	pausedDeviceAwayHeld pausedHow = 2
)

// manualHow is what of the person's is on its way while they drive (and,
// once the run ends, what the end waits for): Manual's substate.
type manualHow int

const (
	manualIdle     manualHow = 0 // nothing in flight: an input starts at once
	manualLooking  manualHow = 1 // the screen at take-over is being captured (no input)
	manualInFlight manualHow = 2 // one input of the person's is on its way to the device
)

// executingHow is Executing's substate: what the person asked for while
// the atomic action runs, done once it returns (a take over wins over a
// pause; each command is recorded once).
type executingHow int

const (
	execPlain         executingHow = 0 // nothing asked: what runs next follows the action
	execPauseAsked    executingHow = 1 // the run pauses once the action returns
	execTakeOverAsked executingHow = 2 // the person gets the device once it returns
	execBothAsked     executingHow = 3 // a take over and a pause: the take over wins
)

// pauseAsked reports whether the person asked to pause during the action.
func (e executingHow) pauseAsked() bool { return e == execPauseAsked || e == execBothAsked }

// takeOverAsked reports whether the person asked for the device during
// the action.
func (e executingHow) takeOverAsked() bool { return e == execTakeOverAsked || e == execBothAsked }
