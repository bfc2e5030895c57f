package engine

import (
	"fmt"
	"image"
	"time"

	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/engine/model"
)

// message is one thing for the loop: a command (with reply) or a result of
// work (with the generation of the work that produced it).
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

type planResult struct {
	only      bool         // a look without a model call (see observe)
	info      *device.Info // set when the worker had to ask the device
	plan      model.Plan
	err       error
	frame     image.Image
	print     Fingerprint
	tree      []byte
	obs       model.Observation
	app       string // the foreground package, when the policy needs it
	wins      []device.Window
	file      string // recorded frame
	observeMs int64
}

type actResult struct {
	err error
	ms  int64
	at  time.Time // when the action began
	// skipped: the action never started (Stop had closed the gate), so
	// nothing reached the device.
	skipped bool
}

type stableResult struct {
	s    Settled
	tree []byte // the settled screen's UI tree, when a step needs it
	app  string // the foreground package then, when the device says
	name string // the app's name, for the dialects that tell the model
	wins []device.Window
}

type manualResult struct {
	look          bool // the screen at take-over, no input
	skipped       bool // Stop closed the gate before the input started
	a             action.Action
	at            time.Time
	before, after string
	s             Settled
	err           error
	ms            int64
}

// manualInput is one recorded input of the person.
type manualInput struct {
	a   action.Action
	at  time.Time
	err error
}

// loopState is the run's core: everything the loop goroutine owns and
// decides on. It holds no device, model, record or goroutine; what it
// wants done it appends to fx (effects.go).
type loopState struct {
	coreEnv
	fx    []effect
	state State
	// via is who gave the command being handled (message.via).
	via string
	// callFrame is the recorded screen of the newest model call, callUsage
	// what that call cost until a step has shown it.
	callFrame string
	callUsage *model.Usage
	// callSalvaged and callCached flag the newest call's decision the same
	// way, for the step that shows it.
	callSalvaged string
	callCached   bool
	callThought  string // the newest call's thought, for its first step
	// currentEl is the element the current action aims at (nil: none known),
	// read once for the policy and the plan the UI draws.
	currentEl *Element
	on        Trigger // the trigger being handled, for the table check
	goal      string

	info    device.Info
	hasInfo bool

	history []model.Step
	// stepCalls is the model call that decided each history step (by
	// index; the person's steps have none): the record keeps a step's
	// thought and reply once, in that call's plan entry.
	stepCalls map[int]int
	notes     []string

	// The plan: done (this reply's executed actions), current, queue.
	thought  string
	doneActs []action.Action
	current  *action.Action
	queue    []action.Action
	histIdx  int // index in history of the step the current plan belongs to

	calls        int // decisions taken, each its record's call number
	unasked      int // of them, those no model was asked for (replayed, cached, handed): not model calls
	steps        int
	personSteps  int // the person's inputs on the record (steps too)
	usage        model.Usage
	started      time.Time
	elapsedPrior time.Duration // elapsed before a resume
	budget       Budget
	parseRetried bool
	notesSent    int // notes given to the call in flight

	// The newest screen: fresh means nothing happened since it was taken.
	frame   image.Image
	print   Fingerprint
	tree    []byte
	app     string // the foreground package of the newest screen ("": unknown)
	appName string // its name as the model is told it (adb.AppLabel)
	// wins are the desktop's windows on the newest screen, for the policy
	// (nil: unknown or unread).
	wins      []device.Window
	fresh     bool
	actBefore Fingerprint
	// The screen the current action was done on, to judge exactly whether
	// it changed anything (nil: not known).
	actBeforeFrame image.Image
	actBeforeTree  []byte

	loops     loopDetector
	softLimit int // -1: none
	// stopFor is why the run was stopped when the stop was not the
	// person's (StopFor): the end is then not put down to the person.
	stopFor *Cause

	request *Request

	// work: the generation of the work in flight (results of older work
	// are dropped)
	gen uint64
	// acting: the work in flight is the current action's; its result
	// has not come back yet.
	acting bool
	// spec is the model call started on the first capture after the
	// current action (speculate.go): plan adopts it when it asks the same.
	spec *planWork

	pauseWaiters    []chan error
	takeOverWaiters []chan error
	executing       executingHow // Executing's substate
	paused          pausedHow    // Paused's substate
	faults          int          // the device lost this many times without a good observation between
	watching        bool

	// edited: the queue is the person's edit, none of it run yet: it runs
	// next, a resume looking at the screen first, a settled screen running
	// it (the model's guards, the loop nudge, are for the model's plan)
	edited        bool
	manual        manualHow // Manual's substate
	manualReply   chan error
	manualQueue   []message // the person's inputs waiting their turn
	handBackWait  *message  // a hand back waiting for those inputs
	manualLog     []manualInput
	takeOverAsked string

	// ending holds the run's end while an action is on its way to the
	// device (the agent's, or the person's input): what the device did is
	// recorded first (end in loop_helpers.go). endOn is the trigger that
	// ended it; endWaiters are the Stops that return once it has ended.
	ending     *Result
	endOn      Trigger
	endWaiters []chan error
}

// coreEnv is what the core knows of the world it does not change: the
// run's settings, its clock, and what the device can do and tell.
type coreEnv struct {
	settings Settings
	clock    Clock
	caps     device.Capabilities
	hasTree  bool // the device can read its UI tree
	hasApp   bool // the device can name the app in front
	hasWins  bool // the device can list its windows (a desktop)
	// appNames are the names people give the app with package pkg (nil:
	// the device knows none).
	appNames func(pkg string) []string
}

func newLoopState(r *Run) *loopState {
	env := coreEnv{settings: r.settings, clock: r.clock, caps: r.dev.Capabilities()}
	_, env.hasTree = r.dev.(device.UITree)
	_, env.hasApp = r.dev.(foregrounder)
	_, env.hasWins = r.dev.(device.Windows)
	if n, ok := r.dev.(appNamer); ok {
		env.appNames = n.AppNames
	}
	return newCore(env, r.cfg.Goal)
}

// newCore is a run's core in Idle, before anything happened.
func newCore(env coreEnv, goal string) *loopState {
	return &loopState{coreEnv: env, goal: goal, softLimit: -1, budget: env.settings.Budget,
		loops: loopDetector{k: env.settings.LoopK, off: env.settings.NoLoopDetection}, histIdx: -1, stepCalls: map[int]int{}}
}

// out appends effects for the runner.
func (l *loopState) out(fx ...effect) { l.fx = append(l.fx, fx...) }

func (l *loopState) record(e Entry) {
	if e.Kind == recPerson && e.Via == "" {
		e.Via = l.via
	}
	l.out(fxRecord{e})
}

func (l *loopState) emit(e Event) { l.out(fxEmit{e}) }

func (l *loopState) reply(to chan error, err error) { l.out(fxReply{to, err}) }

// take returns the effects decided so far and forgets them.
func (l *loopState) take() []effect {
	fx := l.fx
	l.fx = nil
	return fx
}

func (r *Run) loop() {
	for m := range r.msgs {
		if r.receive(m) {
			return
		}
	}
}

// receive is one turn of the loop: m goes to the core, unless it is the
// result of cancelled work. It reports whether the run has ended (and
// then lets go of the device and the record).
func (r *Run) receive(m message) bool {
	l := r.lp
	if r.stopping.Load() && l.ending == nil {
		// Stop is on its way (Run.Stop cut the run off before its command
		// got here): the core hears of it before anything queued ahead of
		// the command, so nothing more starts; an action already on its
		// way is recorded when its result comes.
		if r.deliver(message{on: OnStop, cause: r.stopWhy.Load()}) {
			r.loopEnded()
			return true
		}
	}
	if !m.on.IsCommand() && m.on != OnManualDone && m.on != OnDropped && m.gen != l.gen {
		return false // the result of cancelled work
	}
	if r.deliver(m) {
		r.loopEnded()
		return true
	}
	return false
}

// loopEnded cancels what is left and cleans up once the work has stopped.
func (r *Run) loopEnded() {
	r.runCancel()
	close(r.finished)
	if r.sched != nil {
		r.sched.spawn(r, "clean up", r.cleanup, true)
		return
	}
	go r.cleanup()
}

// ended reports whether the loop has ended.
func (r *Run) ended() bool {
	select {
	case <-r.finished:
		return true
	default:
		return false
	}
}

// deliver hands m to the core, performs what it decided and answers the
// command; it reports whether the run has ended.
func (r *Run) deliver(m message) bool {
	l := r.lp
	l.on = m.on
	err := l.turn(m)
	r.perform(l.take())
	if m.reply != nil && !l.deferred(m) {
		m.reply <- err
	}
	return l.state.Terminal()
}

// cleanup waits for the workers, restores the device and closes the record.
func (r *Run) cleanup() {
	r.wg.Wait()
	_ = r.dev.Close()
	if r.rec != nil {
		_ = r.rec.close()
	}
	close(r.done)
}

// deferred reports whether the reply to m is sent later (pause and take
// over from Executing wait for the action; a person's input for its settle).
func (l *loopState) deferred(m message) bool {
	if m.reply == nil || l.state.Terminal() {
		return false
	}
	for _, list := range [][]chan error{l.pauseWaiters, l.takeOverWaiters} {
		for _, w := range list {
			if w == m.reply {
				return true
			}
		}
	}
	if l.handBackWait != nil && l.handBackWait.reply == m.reply {
		return true
	}
	for _, w := range l.endWaiters {
		if w == m.reply {
			return true
		}
	}
	for _, q := range l.manualQueue {
		if q.reply == m.reply {
			return true
		}
	}
	return l.manualReply == m.reply
}

// turn is the core's answer to m: handle it, then let go of a call made
// early that can no longer be the step's.
func (l *loopState) turn(m message) error {
	err := l.handle(m)
	l.settleSpec()
	return err
}

func (l *loopState) handle(m message) error {
	if l.ending != nil {
		return l.whileEnding(m)
	}
	if m.on.IsCommand() {
		l.via = m.via
		if l.state.Terminal() {
			return ErrFinished
		}
		if _, ok := lookup(l.state, m.on); !ok {
			return &IllegalError{State: l.state, Trigger: m.on}
		}
	}
	switch m.on {
	case OnStart:
		l.started = l.clock.Now()
		l.plan("")
	case OnPause:
		return l.pause(m)
	case OnResume:
		return l.resume()
	case OnTakeOver:
		return l.takeOver(m)
	case OnManualInput:
		return l.manualInput(m)
	case OnManualDone:
		l.manualDone(m.manual)
	case OnHandBack:
		return l.handBackAfterInputs(m)
	case OnStop:
		l.stop(m.cause)
		if l.ending != nil && m.reply != nil {
			l.endWaiters = append(l.endWaiters, m.reply)
		}
	case OnStopGracefully:
		return l.stopGracefully(m.n)
	case OnConfirm:
		return l.confirm()
	case OnDeny:
		return l.deny(m.text)
	case OnAnswer:
		return l.answer(m.text)
	case OnEditGoal:
		l.editGoal(m.text)
	case OnEditPending:
		return l.editPending(m.actions)
	case OnPlanned:
		l.planned(m.planned)
	case OnActionDone:
		l.actionDone(m.acted)
	case OnStable, OnGlimpse, OnDropped:
		l.screenAfter(m)
	case OnDeviceLost:
		l.lost(m.err)
	case OnDeviceAway:
		l.away(m.n, m.err)
	case OnDeviceBack:
		l.back()
	}
	return nil
}

// to moves the run to state s. The table must list it for the trigger being
// handled; a move it does not list is a bug in the engine, and the run
// fails loudly rather than carrying on in a state nobody designed.
func (l *loopState) to(s State, reason string) {
	if !allowed(l.state, l.on, s) {
		l.end(Result{State: Failed, Reason: fmt.Sprintf("internal error: %s --%s--> %s is not in the transition table", l.state, l.on, s)})
		return
	}
	l.set(s, reason, nil)
}

// toFor is to for a reason the engine gives itself, in parts a UI words.
func (l *loopState) toFor(s State, why Cause) {
	if !allowed(l.state, l.on, s) {
		l.to(s, why.String()) // fails the run as to does
		return
	}
	l.set(s, why.String(), &why)
}

func (l *loopState) set(s State, reason string, why *Cause) {
	from := l.state
	l.state = s
	st := s
	ev := &StateEvent{State: s, From: from, Reason: reason, Why: why}
	if (l.on.IsCommand() && l.stopFor == nil) || l.on == OnDeviceLost || l.on == OnDeviceAway {
		ev.By = l.on.String()
	}
	l.record(Entry{Kind: recState, State: &st, Reason: reason, By: ev.By})
	l.emit(Event{Kind: KindState, State: ev})
	l.personState()
	if s == Paused || s == Manual {
		// A take over asked during the same action wins over a pause: the
		// run is in the person's hands, which is what the pause asked.
		for _, w := range l.pauseWaiters {
			l.reply(w, nil)
		}
		l.pauseWaiters = nil
	}
	if s == Manual {
		for _, w := range l.takeOverWaiters {
			l.reply(w, nil)
		}
		l.takeOverWaiters = nil
	}
	if s != Paused {
		l.paused = pausedByPerson
	}
	if s != Executing {
		l.executing = execPlain
	}
	if s != Paused && l.watching {
		l.watching = false
		l.out(fxUnwatch{})
	}
}
