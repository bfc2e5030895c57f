package engine

import "tandem/engine/action"

// The core's tests speak to it in one envelope, message (core_test.go
// writes it, and is kept unchanged across the chart's redesign, issue
// 50): typed turns it into the event it stands for, as the runner's own
// posts are (msgs.go), and turn hands that to the interpreter. gen is the
// id of the invocation a result reports on (chart_invoke.go).

// message is one thing for the core: a command (with reply) or a result
// of work (with the invocation it reports on).
type message struct {
	on    Trigger
	reply chan error

	// command arguments
	text    string
	n       int
	region  *Region
	actions []action.Action
	act     action.Action
	done    bool   // the input already happened on the device (InputDone)
	via     string // who gave the command, when not the person at the door (Via)
	cause   *Cause // why a stop that is not the person's (StopFor)

	// work results
	gen     uint64
	planned *planResult
	acted   *actResult
	settled *stableResult
	manual  *manualResult
	err     error
}

// typed is m's event (nil: a trigger the engine does not know).
func (m message) typed() msg {
	c := cmdFrom{reply: m.reply, via: m.via}
	switch m.on {
	case OnStart:
		return msgStart{c}
	case OnPause:
		return msgPause{c}
	case OnResume:
		return msgResume{c}
	case OnTakeOver:
		return msgTakeOver{c}
	case OnConfirm:
		return msgConfirm{c}
	case OnHandBack:
		return msgHandBack{c, m.text, m.region}
	case OnStop:
		return msgStop{c, m.cause}
	case OnStopGracefully:
		return msgStopGracefully{c, m.n}
	case OnDeny:
		return msgDeny{c, m.text}
	case OnAnswer:
		return msgAnswer{c, m.text}
	case OnEditGoal:
		return msgEditGoal{c, m.text}
	case OnEditPending:
		return msgEditPending{c, m.actions}
	case OnManualInput:
		return msgManualInput{c, m.act, m.done}
	case OnPlanned:
		return msgPlanned{of{m.gen}, m.planned}
	case OnActionDone:
		return msgActionDone{of{m.gen}, m.acted}
	case OnStable:
		return msgStable{of{m.gen}, m.settled}
	case OnGlimpse:
		return msgGlimpse{of{m.gen}, m.settled}
	case OnDeviceLost:
		return msgDeviceLost{of{m.gen}, m.err}
	case OnDeviceBack:
		return msgDeviceBack{of{m.gen}}
	case OnManualDone:
		return msgManualDone{m.manual}
	case OnDeviceAway:
		return msgDeviceAway{of{m.gen}, m.n, m.err}
	case OnDropped:
		return msgDropped{m.planned}
	}
	return nil
}

// turn is the core's answer to m: the chart's row for its event (fire).
func (l *loopState) turn(m message) error {
	e := m.typed()
	if e == nil {
		if m.on.IsCommand() {
			return &IllegalError{State: l.state, Trigger: m.on}
		}
		return nil
	}
	return l.fire(e)
}
