package engine

import (
	"image"
	"time"

	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/engine/model"
)

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
// wants done it appends to fx (effects.go). Its fields are the run's data
// (goal, history, plan and queue, what was spent, the newest screen); the
// state the run is in is the chart's (chart.go), and each substate's data
// sits in its own group (inExec, inPause, inManual, inEnding).
type loopState struct {
	coreEnv
	progress        // what the run has spent, and its limits
	chart    *chart // the statechart (chart.go): the only writer of state
	fx       []effect
	state    State
	on       Trigger // the trigger being handled, for the chart's check
	via      string  // who gave the command being handled (cmdFrom.via)
	goal     string
	dev      deviceKnown

	history []model.Step
	// stepCalls is the model call that decided each history step (by
	// index; the person's steps have none): the record keeps a step's
	// thought and reply once, in that call's plan entry.
	stepCalls map[int]int
	histIdx   int // index in history of the step the current plan belongs to
	notes     []string
	notesSent int // notes given to the call in flight

	// The plan: todo (its thought, the executed actions), current, queue.
	todo    planTodo
	current *action.Action
	queue   []action.Action
	call    callNews // the newest call, until a step has shown it

	scr    newestScreen
	before actedOn // the screen the current action was done on
	loops  loopDetector

	request *Request

	// gen is the id of the invocation of the state's work (a look and a
	// model call, the action, the wait, the watch on a lost device), and
	// inv what the interpreter runs (chart_invoke.go): only it writes them;
	// a result reaches a row only from an invocation still running.
	gen uint64
	inv invocations
	// spec is the model call started on the first capture after the
	// current action (speculate.go): plan adopts it when it asks the same.
	spec *planWork

	inExec   execData   // Executing's substate and the replies it defers
	inPause  pauseData  // Paused's substate
	inManual manualData // Manual's substate, the person's inputs and the hand back waiting for them

	// ending holds the run's end while an action is on its way to the
	// device (the agent's, or the person's input): what the device did is
	// recorded first (end in loop_helpers.go).
	ending   *Result
	inEnding endingData
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
	// unreadWhy is why the device's last reading of what ("labels",
	// "app", "windows") failed, for a request to say (unread.go).
	unreadWhy func(what string) string
}

func newLoopState(r *Run) *loopState {
	env := coreEnv{settings: r.settings, clock: r.clock, caps: r.dev.Capabilities()}
	_, env.hasTree = r.dev.(device.UITree)
	_, env.hasApp = r.dev.(foregrounder)
	_, env.hasWins = r.dev.(device.Windows)
	if n, ok := r.dev.(appNamer); ok {
		env.appNames = n.AppNames
	}
	env.unreadWhy = r.unread.reason
	return newCore(env, r.cfg.Goal)
}

// newCore is a run's core in Idle, before anything happened.
func newCore(env coreEnv, goal string) *loopState {
	return &loopState{coreEnv: env, chart: theChart(), goal: goal, progress: progress{softLimit: -1, budget: env.settings.Budget},
		loops: loopDetector{k: env.settings.LoopK, off: env.settings.NoLoopDetection}, histIdx: -1, stepCalls: map[int]int{}}
}

// out appends effects for the runner.
func (l *loopState) out(fx ...effect) { l.fx = append(l.fx, fx...) }

func (l *loopState) record(e Entry) {
	if (e.Kind == recPerson || (e.By != "" && l.on.IsCommand())) && e.Via == "" { // who paused, stopped, allowed
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

// receive is one turn of the loop: m goes to the core (a result of work
// whose state was left reaches no row there: the interpreter's). It
// reports whether the run has ended (and then lets go of the device and
// the record).
func (r *Run) receive(m msg) bool {
	l := r.lp
	if r.stopping.Load() && l.ending == nil {
		// Stop is on its way (Run.Stop cut the run off before its command
		// got here): the core hears of it before anything queued ahead of
		// the command, so nothing more starts; an action already on its
		// way is recorded when its result comes.
		if r.deliver(msgStop{cmdFrom{via: r.stoppedBy()}, r.stopWhy.Load()}) {
			r.loopEnded()
			return true
		}
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
func (r *Run) deliver(m msg) bool {
	l := r.lp
	l.on = m.trigger()
	err := l.fire(m)
	r.perform(l.take())
	if reply := replyOf(m); reply != nil && !l.deferred(reply) {
		reply <- err
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

// deferred reports whether the reply on to is sent later (pause and take
// over from Executing wait for the action; a person's input for its
// settle; a Stop for the end, while an action is on its way).
func (l *loopState) deferred(to chan error) bool {
	if to == nil || l.state.Terminal() {
		return false
	}
	for _, list := range [][]chan error{l.inExec.pauses, l.inExec.takeOvers} {
		for _, w := range list {
			if w == to {
				return true
			}
		}
	}
	if l.inManual.handBack != nil && l.inManual.handBack.reply == to {
		return true
	}
	for _, w := range l.inEnding.waiters {
		if w == to {
			return true
		}
	}
	for _, q := range l.inManual.queue {
		if q.reply == to {
			return true
		}
	}
	return l.inManual.reply == to
}
