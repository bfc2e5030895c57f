package engine

// The run's statechart (issue 50): the states with their parents, the rows
// that say what each trigger does in each of them, what entering and
// leaving a state does, and the work a state stands for. The interpreter
// (fire and transit, in chart_run.go) is the only code that chooses a row
// and the only code that writes the run's state; the handlers a row names
// (loop_*.go) decide the target among the row's listed ones.
//
// A state with variants is a substate, not a boolean: Executing waits with
// or without a pause or a take over asked, Paused is the person's or a
// device's, Manual has an input on its way or not. A trigger is resolved
// from the innermost state outwards, so a substate overrides its parent
// and a row on Live serves every live state.

// node is one state of the chart: a State, a substate of one, or a state
// that only groups others (Live, Agent).
type node int

// The chart's states. The values are internal (the public State crosses
// the doors; a node never does).
const (
	nRun node = iota + 1
	nLive
	nAgent
	nIdle
	nPlanning
	nPlanAsking
	nPlanLooking
	nExecuting
	nExecPlain
	nExecPauseAsked
	nExecTakeOverAsked
	nExecBothAsked
	nWaitingForStability
	nSettling
	nSpeculating
	nWaitingForUser
	nPaused
	nPausedByPerson
	nDeviceAway
	nDeviceAwayHeld
	nManual
	nManualIdle
	nManualLooking
	nManualInFlight
	nEnding
	nDone
	nFailed
	nStopped
)

// nodeSpec is a row of the state columns: where the state sits, the State
// it is (none for a group or for Ending, which keeps the state it ended
// in), and what entering and leaving it do.
type nodeSpec struct {
	name   string
	parent node // 0: the root
	state  State
	plain  bool // state is unset: a group, or Ending
	// onEntry and onExit run when a transition enters or leaves the state
	// (a transition from a state to itself is internal: neither runs).
	onEntry stateWork
	onExit  stateWork
	// invoke is the work the state stands for, started as it is entered
	// and cancelled as it is left (chart_invoke.go).
	invoke invocation
	// timeout is what ends the state by itself: a timer started as it is
	// entered and stopped as it is left, its firing an event with a row.
	timeout timeout
	// every, when set, takes every trigger in this state, before any row
	// (Ending: what is on its way is recorded, every command refused).
	every func(*loopState, msg) error
}

// chartNodes is THE list of states: each with its parent and columns.
func chartNodes() map[node]nodeSpec {
	return map[node]nodeSpec{
		nRun:                 {name: "Run", plain: true},
		nLive:                {name: "Live", parent: nRun, plain: true, onExit: closeLive()},
		nIdle:                {name: "Idle", parent: nLive, state: Idle},
		nAgent:               {name: "Agent", parent: nLive, plain: true},
		nPlanning:            {name: "Planning", parent: nAgent, state: Planning},
		nPlanAsking:          {name: "Asking", parent: nPlanning, state: Planning, invoke: invokeCall()},
		nPlanLooking:         {name: "Looking", parent: nPlanning, state: Planning, invoke: invokeLook()},
		nExecuting:           {name: "Executing", parent: nAgent, state: Executing, onExit: exitExecuting(), invoke: invokeAction()},
		nExecPlain:           {name: "Plain", parent: nExecuting, state: Executing},
		nExecPauseAsked:      {name: "PauseAsked", parent: nExecuting, state: Executing},
		nExecTakeOverAsked:   {name: "TakeOverAsked", parent: nExecuting, state: Executing},
		nExecBothAsked:       {name: "BothAsked", parent: nExecuting, state: Executing},
		nWaitingForStability: {name: "WaitingForStability", parent: nAgent, state: WaitingForStability, invoke: invokeSettle()},
		nSettling:            {name: "Settling", parent: nWaitingForStability, state: WaitingForStability},
		nSpeculating:         {name: "Speculating", parent: nWaitingForStability, state: WaitingForStability, onExit: exitSpeculating(), invoke: drawn("the model call on the first capture (started by OnGlimpse's row)")},
		nWaitingForUser:      {name: "WaitingForUser", parent: nLive, state: WaitingForUser},
		nPaused:              {name: "Paused", parent: nLive, state: Paused, onEntry: answerPauses(), onExit: exitPaused()},
		nPausedByPerson:      {name: "ByPerson", parent: nPaused, state: Paused},
		nDeviceAway:          {name: "DeviceAway", parent: nPaused, state: Paused, invoke: invokeWatch(), timeout: deviceAwayMax()},
		nDeviceAwayHeld:      {name: "DeviceAwayHeld", parent: nPaused, state: Paused, invoke: invokeWatch(), timeout: deviceAwayMax()},
		nManual:              {name: "Manual", parent: nLive, state: Manual, onEntry: answerTakeOvers()},
		nManualIdle:          {name: "Idle", parent: nManual, state: Manual},
		nManualLooking:       {name: "Looking", parent: nManual, state: Manual, invoke: drawn("a look at the screen (runs to its end)")},
		nManualInFlight:      {name: "InputInFlight", parent: nManual, state: Manual, invoke: drawn("the person's input and its settle (runs to its end)")},
		nEnding:              {name: "Ending", parent: nLive, plain: true, every: (*loopState).whileEnding},
		nDone:                {parent: nRun, name: "Done", state: Done, onEntry: atTheEnd()},
		nFailed:              {parent: nRun, name: "Failed", state: Failed, onEntry: atTheEnd()},
		nStopped:             {parent: nRun, name: "Stopped", state: Stopped, onEntry: atTheEnd()},
	}
}

// stateWork is an entry or exit column: what it does, in words for the
// picture, and the work itself (nil: none), told the State the move goes
// to.
type stateWork struct {
	words string
	do    func(l *loopState, to State)
}

// guard says why a row does not apply now ("": it does).
type guard func(*loopState, msg) string

// row is one transition: in state from, trigger on, when guard allows,
// do runs and moves the run to one of to (none listed: the state stays,
// an internal transition).
type row struct {
	from  node
	on    Trigger
	guard guard
	do    func(*loopState, msg) error
	to    []State
}

// reentry names a row that leaves its state and enters it again
// (XState's reenter): what the state runs stops before the row's do and
// starts afresh once do is done.
type reentry struct {
	from node
	on   Trigger
}

// chartReentries lists the rows that re-enter their state.
func chartReentries() []reentry {
	return []reentry{{nPlanAsking, OnEditGoal}}
}

// chartRows is THE transition table: every trigger each state takes, and
// where it may lead. A command no row takes is refused with an
// *IllegalError; a result no row takes is of work that no longer matters.
func chartRows() []row {
	self := func(s State) []State { return []State{s} }
	rows := []row{
		{nLive, OnStop, nil, with(doStop), self(Stopped)},
		// A result of the person's input or a dropped early call is taken
		// in any state, an end's too: what the device did, and what it cost, is recorded.
		{nRun, OnManualDone, nil, takes((*loopState).manualDone), nil},
		{nRun, OnDropped, nil, takes((*loopState).dropped), nil},

		{nIdle, OnStart, nil, with(doStart), []State{Planning, WaitingForUser}},
		{nIdle, OnEditGoal, nil, takes((*loopState).editGoal), self(Idle)},

		{nPlanning, OnPlanned, nil, takes((*loopState).planned), onward},
		{nPlanning, OnPause, nil, with((*loopState).pause), self(Paused)},
		{nPlanning, OnTakeOver, nil, with((*loopState).takeOver), self(Manual)},
		{nPlanning, OnStopGracefully, nil, with((*loopState).stopGracefully), self(Planning)},
		// A new goal asks the model again; a look before the person's own
		// steps goes on (they run first, the model hears of it next).
		{nPlanAsking, OnEditGoal, nil, takes((*loopState).editGoal), []State{Planning, WaitingForUser, Stopped}},
		{nPlanLooking, OnEditGoal, nil, takes((*loopState).editGoal), self(Planning)},
		{nPlanning, OnDeviceLost, nil, takes((*loopState).lost), []State{Paused, WaitingForUser}},

		// Pause and take over wait for the atomic action: the state stays
		// Executing (its substate records the ask) and becomes Paused or
		// Manual when the action returns.
		{nExecuting, OnActionDone, nil, takes((*loopState).actionDone), append([]State{WaitingForStability}, onward...)},
		{nExecuting, OnPause, nil, with((*loopState).pause), self(Executing)},
		{nExecuting, OnTakeOver, nil, with((*loopState).takeOver), self(Executing)},
		{nExecuting, OnStopGracefully, nil, with((*loopState).stopGracefully), self(Executing)},
		{nExecuting, OnEditGoal, nil, takes((*loopState).editGoal), self(Executing)},
		{nExecuting, OnEditPending, nil, with((*loopState).editPending), self(Executing)},

		{nWaitingForStability, OnStable, nil, takes((*loopState).stable), onward},
		{nWaitingForStability, OnGlimpse, nil, takes((*loopState).glimpse), nil},
		{nWaitingForStability, OnPause, nil, with((*loopState).pause), self(Paused)},
		{nWaitingForStability, OnTakeOver, nil, with((*loopState).takeOver), self(Manual)},
		{nWaitingForStability, OnStopGracefully, nil, with((*loopState).stopGracefully), self(WaitingForStability)},
		{nWaitingForStability, OnEditGoal, nil, takes((*loopState).editGoal), self(WaitingForStability)},
		{nWaitingForStability, OnEditPending, nil, with((*loopState).editPending), self(WaitingForStability)},
		{nWaitingForStability, OnDeviceLost, nil, takes((*loopState).lost), []State{Paused, WaitingForUser}},

		{nWaitingForUser, OnConfirm, waitsForConfirm, with((*loopState).confirm), []State{Executing, WaitingForUser, Stopped}},
		{nWaitingForUser, OnDeny, waitsForConfirm, with((*loopState).deny), []State{Planning, WaitingForUser, Stopped}},
		{nWaitingForUser, OnAnswer, waitsForAnswer, with((*loopState).answer), []State{Planning, WaitingForUser, Stopped}},
		{nWaitingForUser, OnResume, waitsForResume, with((*loopState).resume), []State{Planning, WaitingForUser, Stopped}},
		{nWaitingForUser, OnTakeOver, nil, with((*loopState).takeOver), self(Manual)},
		{nWaitingForUser, OnStopGracefully, nil, with((*loopState).stopGracefully), self(Stopped)},
		{nWaitingForUser, OnEditGoal, nil, takes((*loopState).editGoal), self(WaitingForUser)},
		{nWaitingForUser, OnEditPending, nil, with((*loopState).editPending), self(WaitingForUser)},

		{nPaused, OnResume, nil, with((*loopState).resume), []State{Planning, WaitingForUser, Stopped}},
		{nPaused, OnTakeOver, nil, with((*loopState).takeOver), self(Manual)},
		{nPaused, OnStopGracefully, nil, with((*loopState).stopGracefully), self(Stopped)},
		{nPaused, OnEditGoal, nil, takes((*loopState).editGoal), self(Paused)},
		{nPaused, OnEditPending, nil, with((*loopState).editPending), self(Paused)},
		// The device coming back, or staying away, matters only to a run
		// paused for it.
		{nDeviceAway, OnDeviceBack, nil, takes((*loopState).back), []State{Planning, WaitingForUser, Paused, Stopped}},
		{nDeviceAwayHeld, OnDeviceBack, nil, takes((*loopState).back), self(Paused)},
		{nDeviceAway, OnDeviceAway, nil, takes((*loopState).away), []State{Paused, Failed}},
		{nDeviceAwayHeld, OnDeviceAway, nil, takes((*loopState).away), []State{Paused, Failed}},

		// A person's input and its result leave the run in Manual; a hand
		// back with an input on its way waits for it.
		{nManual, OnManualInput, nil, with((*loopState).manualInput), self(Manual)},
		{nManualIdle, OnHandBack, nil, with((*loopState).handBack), []State{Planning, WaitingForUser, Stopped}},
		{nManual, OnHandBack, noHandBackWaiting, with(doHandBackLater), nil},
		{nManual, OnStopGracefully, nil, with((*loopState).stopGracefully), self(Stopped)},
		{nManual, OnEditGoal, nil, takes((*loopState).editGoal), self(Manual)},
	}
	return rows
}

// onward lists every state the rule for what runs next (after, in
// loop_next.go) can reach once a step's work is done: the next queued
// action, a new model call, the person, or an end.
var onward = []State{Executing, Planning, WaitingForUser, Manual, Paused, Done, Failed, Stopped}

// The guards.

func waitsForConfirm(l *loopState, _ msg) string {
	if l.request == nil || l.request.Kind != AskConfirm {
		return "nothing waits for confirmation"
	}
	return ""
}

func waitsForAnswer(l *loopState, _ msg) string {
	if l.request == nil || l.request.Kind == AskConfirm {
		return "it waits for confirm or deny"
	}
	return ""
}

func waitsForResume(l *loopState, _ msg) string {
	switch l.request.Kind {
	case AskBudget, AskLoop, AskModelError, AskDevice:
		return ""
	case AskConfirm, AskQuestion, AskTakeOver:
	}
	return "it waits for " + string(l.request.Kind) + ", not for resume"
}

func noHandBackWaiting(l *loopState, _ msg) string {
	if l.inManual.handBack != nil {
		return "a hand back is already waiting for the inputs"
	}
	return ""
}

// The state columns' entry and exit work.

// exitSpeculating lets the call started early go, unless the move is to
// Planning, which adopts it when it asks the same, and else lets it go.
func exitSpeculating() stateWork {
	return stateWork{"let the early call go (Planning may adopt it)", func(l *loopState, to State) {
		if to != Planning {
			l.dropSpec()
		}
	}}
}

// closeLive is Live's exit: the run leaves it only for its end.
func closeLive() stateWork {
	return stateWork{"the end: the person's touches recorded, the gate closed, all work cancelled", func(l *loopState, _ State) { l.closeLive() }}
}

// atTheEnd is a final state's entry.
func atTheEnd() stateWork {
	return stateWork{"the end recorded and told, every reply still waiting answered", func(l *loopState, _ State) { l.atTheEnd() }}
}

// exitExecuting forgets what the person asked during the action.
func exitExecuting() stateWork {
	return stateWork{"forget the asks", func(l *loopState, _ State) { l.inExec.how = execPlain }}
}

// exitPaused forgets why the run was paused (the watch on a lost device
// and its timeout are DeviceAway's invocations: the interpreter stops them).
func exitPaused() stateWork {
	return stateWork{"forget why", func(l *loopState, _ State) {
		l.inPause.how = pausedByPerson
		l.inPause.cause = nil
	}}
}

// answerPauses answers the pauses asked during the action: the run is
// paused, or in the person's hands, which is what a pause asked (a take
// over asked during the same action wins).
func answerPauses() stateWork { return stateWork{"answer the pauses asked", replyPauses} }

func replyPauses(l *loopState, _ State) {
	for _, w := range l.inExec.pauses {
		l.reply(w, nil)
	}
	l.inExec.pauses = nil
}

// answerTakeOvers answers the take overs (and pauses) asked during the
// action: the person has the device.
func answerTakeOvers() stateWork {
	return stateWork{"answer the take overs and pauses asked", func(l *loopState, to State) {
		replyPauses(l, to)
		for _, w := range l.inExec.takeOvers {
			l.reply(w, nil)
		}
		l.inExec.takeOvers = nil
	}}
}
