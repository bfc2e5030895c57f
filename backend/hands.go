package backend

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"tandem/engine"
	"tandem/engine/action"
	"tandem/mirror"
)

// The input manager: every input of the person on a device, from whichever
// door (the window's mirror, a pop-out, a tile, the run's own controls, an
// MCP client acting for the person), goes through Hand, which decides once
// where it goes — the device, the run the person drives, or a take-over —
// by the rule handsFor, so no door lets a hand reach a device behind its
// run's back and no door decides on its own. The page shows the same rule
// (lib/controls.ts, handsOn), tested on the vector this rule writes
// (frontend/src/lib/testdata/hands.json), but only as a hint: it sends
// every press to Go and shows Go's answer. (scrcpy's input_manager.c routes
// each SDL event once, the same way.)

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

// inputKind is whose input it is: each has its own row in the rule.
type inputKind int

const (
	// personsInput is the person's own, at a door (a press, a touch, a key).
	personsInput inputKind = iota
	// agentsAct is another agent's one action (MCP act): never the
	// person's, so it never drives a run nor takes one over.
	agentsAct
)

// String names the kind as the vector does (testdata/hands.json).
func (k inputKind) String() string { return [...]string{"person", "act"}[k] }

// handsFor is the rule: a device with no live run is the person's, and an
// agent's act may reach it too; a run in Manual is the person's through
// the run; a run that can be taken over is taken over by the person; any
// other live run takes nothing, and no live run takes an agent's act.
func handsFor(k inputKind, st engine.State, hasRun bool) hands {
	switch {
	case !hasRun || st.Terminal():
		return toDevice
	case k == agentsAct:
		return toNobody
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
func (b *Backend) handsOn(id string, k inputKind) (hands, *engine.Run) {
	run, ok := b.runs.OnDevice(id)
	if !ok {
		return toDevice, nil
	}
	h := handsFor(k, run.State(), true)
	if h == toDevice {
		return h, nil
	}
	return h, run
}

// Input is one input of the person on a device, as a door saw it: exactly
// one of its fields is set.
type Input struct {
	// Gesture is a finished gesture, key or text.
	Gesture *action.Action `json:"gesture,omitempty"`
	// Press is a press as the door saw it (down, up, held, farthest); the
	// one gesture rule makes a tap, long press or swipe of it here.
	Press *mirror.Press `json:"press,omitempty"`
	// Touch is one live phase of a finger on a phone mirrored over scrcpy.
	Touch *Touch `json:"touch,omitempty"`
	// Made is an input the person already made on the device with their
	// own hands (this computer's mouse and keyboard): recorded in the run
	// they drive, never made again.
	Made *action.Action `json:"made,omitempty"`
	// Act is another agent's one action (MCP act), in device pixels, made
	// for By: it reaches a device with no live run when the person's
	// policy lets it go unasked (a sensitive one is refused with a
	// *NeedsPersonError: ActAsRun asks the person).
	Act *action.Action `json:"-"`
	// By is who sends an Act.
	By Actor `json:"-"`
}

// Touch is one live pointer phase at device pixels.
type Touch struct {
	Phase string `json:"phase"` // "down", "move", "up", "cancel"
	X     int    `json:"x"`
	Y     int    `json:"y"`
}

// Outcome is where an input went.
type Outcome string

// The outcomes of an input.
const (
	// Done: the input reached the device (its own, or the run's the person drives).
	Done Outcome = "done"
	// TookOver: a task was running and the person did not drive it; the
	// input took over and was not passed on, so a take-over never taps
	// anything by accident.
	TookOver Outcome = "took_over"
)

var errNotOneInput = errors.New("an input is one gesture, press, touch, made input or act")

// Hand takes one input of the person on device id and sends it where it
// goes now: to the device when no task runs on it, to the run in Manual
// (made and recorded there, told to the model on hand back), or it takes
// over a run the agent drives. A live touch never takes over (the finished
// press does).
func (b *Backend) Hand(ctx context.Context, id string, in Input) (Outcome, error) {
	var act action.Action
	switch {
	case in.Act != nil && in.Made == nil && in.Touch == nil && in.Gesture == nil && in.Press == nil:
		if h, _ := b.handsOn(id, agentsAct); h != toDevice {
			return "", ErrDeviceBusy
		}
		return Done, b.agentAct(ctx, id, *in.Act, in.By)
	case in.Made != nil && in.Touch == nil && in.Gesture == nil && in.Press == nil:
		return b.made(ctx, id, *in.Made)
	case in.Touch != nil && in.Gesture == nil && in.Press == nil:
		return Done, b.touch(ctx, id, *in.Touch)
	case in.Press != nil && in.Gesture == nil:
		g, err := in.Press.Gesture()
		if err != nil {
			return "", err
		}
		act = g
	case in.Gesture != nil && in.Press == nil:
		act = *in.Gesture
	default:
		return "", errNotOneInput
	}
	switch h, run := b.handsOn(id, personsInput); h {
	case toRun:
		defer b.desks.Poke(id)
		return Done, run.Input(ctx, act)
	case toTakeOver:
		return TookOver, run.TakeOver(ctx)
	case toNobody:
		return "", ErrDeviceBusy
	case toDevice:
	}
	release, err := b.lease(ctx, id, "", false) // no other Tandem drives it meanwhile
	if err != nil {
		return "", err
	}
	defer release()
	return Done, b.desks.Do(ctx, id, act)
}

// made records an input the person made with their own hands in the run
// they drive; with no run there is nothing to do (the device has it), and
// a run they do not drive took over already (the driver's signal).
func (b *Backend) made(ctx context.Context, id string, a action.Action) (Outcome, error) {
	h, run := b.handsOn(id, personsInput)
	if h != toRun {
		return Done, nil
	}
	return Done, run.InputDone(ctx, a)
}

// touch sends one live phase to the phone while the device is the
// person's or they drive its run; the finished gesture is recorded in the
// run like any input of theirs.
func (b *Backend) touch(ctx context.Context, id string, t Touch) error {
	h, run := b.handsOn(id, personsInput)
	if h != toDevice && h != toRun {
		return ErrDeviceBusy
	}
	if h == toDevice {
		if err := b.heldElsewhere(id); err != nil {
			return err
		}
	}
	if err := b.desks.Touch(ctx, id, t.Phase, t.X, t.Y); err != nil {
		b.gestures.track(id, "cancel", t.X, t.Y, action.Size{}, time.Now())
		return err
	}
	var screen action.Size
	if f, _ := b.hub.Latest(id); f != nil {
		screen = action.Size{W: f.Width, H: f.Height}
	}
	if g, ok := b.gestures.track(id, t.Phase, t.X, t.Y, screen, time.Now()); ok && h == toRun {
		return run.InputDone(ctx, g)
	}
	return nil
}

// postBody is what a viewer in another process (a pop-out) posts: a
// finished gesture, key or text, as the main window's mirror sends them.
type postBody struct {
	Action action.Action `json:"action"`
}

// postedInput takes a pop-out's post for device (mirror.InputFunc) to Hand.
func (b *Backend) postedInput(device string, body []byte) (int, string) {
	var in postBody
	if err := json.Unmarshal(body, &in); err != nil {
		return http.StatusBadRequest, "not an input: " + err.Error()
	}
	ctx, cancel := context.WithTimeout(b.context(), 20*time.Second)
	defer cancel()
	out, err := b.Hand(ctx, device, Input{Gesture: &in.Action})
	if err != nil {
		return http.StatusConflict, sayJSON(err)
	}
	return http.StatusOK, string(out)
}
