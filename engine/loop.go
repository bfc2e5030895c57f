package engine

import (
	"context"
	"errors"
	"fmt"
	"image"
	"strings"
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
	done    bool // the input already happened on the device (InputDone)

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
	file      string // recorded frame
	observeMs int64
}

type actResult struct {
	err error
	ms  int64
}

type stableResult struct {
	s    Settled
	tree []byte // the settled screen's UI tree, when the queue needs it
	app  string // the foreground app then, when the device says
}

type manualResult struct {
	a             action.Action
	at            time.Time
	before, after string
	beforePrint   Fingerprint
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

// loopState is everything the loop goroutine owns.
type loopState struct {
	r     *Run
	state State
	// callFrame is the recorded screen of the newest model call, callUsage
	// what that call cost until a step has shown it.
	callFrame string
	callUsage *model.Usage
	// callSalvaged and callCached flag the newest call's decision the same
	// way, for the step that shows it.
	callSalvaged string
	callCached   bool
	// currentEl is the element the current action aims at (nil: none known),
	// read once for the policy and the plan the UI draws.
	currentEl *Element
	on        Trigger // the trigger being handled, for the table check
	goal      string

	info    device.Info
	hasInfo bool

	history []model.Step
	notes   []string

	// The plan: done (this reply's executed actions), current, queue.
	thought  string
	doneActs []action.Action
	current  *action.Action
	queue    []action.Action
	histIdx  int // index in history of the step the current plan belongs to

	calls        int
	steps        int
	usage        model.Usage
	started      time.Time
	elapsedPrior time.Duration // elapsed before a resume
	budget       Budget
	parseRetried bool
	notesSent    int // notes given to the call in flight

	// The newest screen: fresh means nothing happened since it was taken.
	frame     image.Image
	print     Fingerprint
	tree      []byte
	app       string // the foreground package of the newest screen ("": unknown)
	appName   string // its name as the model is told it (adb.AppLabel)
	fresh     bool
	actBefore Fingerprint
	// The screen the current action was done on, to judge exactly whether
	// it changed anything (nil: not known).
	actBeforeFrame image.Image
	actBeforeTree  []byte
	actStarted     time.Time

	loops     loopDetector
	softLimit int // -1: none

	request   *Request
	confirmed bool

	// work
	gen    uint64
	cancel context.CancelFunc

	pauseWaiters    []chan error
	takeOverWaiters []chan error
	pauseAfter      bool
	takeOverAfter   bool
	deviceLost      bool
	faults          int // the device lost this many times without a good observation between
	watchCancel     context.CancelFunc

	edited        bool // the person edited the queue while the run waited
	manualBusy    bool
	manualReply   chan error
	manualLog     []manualInput
	takeOverAsked string
}

func newLoopState(r *Run) *loopState {
	return &loopState{r: r, goal: r.cfg.Goal, softLimit: -1, budget: r.settings.Budget,
		loops: loopDetector{k: r.settings.LoopK}, histIdx: -1}
}

func (r *Run) loop() {
	l := r.lp
	defer func() {
		r.runCancel()
		close(r.finished)
		go r.cleanup()
	}()
	for m := range r.msgs {
		if !m.on.IsCommand() && m.on != OnManualDone && m.gen != l.gen {
			continue // the result of cancelled work
		}
		if !m.on.IsCommand() && r.stopping.Load() {
			continue // Stop is on its way: nothing more may start
		}
		l.on = m.on
		err := l.handle(m)
		if m.reply != nil && !l.deferred(m) {
			m.reply <- err
		}
		if l.state.Terminal() {
			return
		}
	}
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
	return l.manualReply == m.reply
}

func (l *loopState) handle(m message) error {
	if m.on.IsCommand() {
		if l.state.Terminal() {
			return ErrFinished
		}
		if _, ok := lookup(l.state, m.on); !ok {
			return &IllegalError{State: l.state, Trigger: m.on}
		}
	}
	switch m.on {
	case OnStart:
		l.started = l.r.now()
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
		return l.handBack(m.text, m.region)
	case OnStop:
		l.end(Result{State: Stopped, Reason: "stopped by the person"})
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
	case OnStable:
		l.stable(m.settled)
	case OnDeviceLost:
		l.lost(m.err)
	case OnDeviceAway:
		l.away(m.n, m.err)
	case OnDeviceBack:
		if l.state == Paused && l.deviceLost {
			l.note("The device was disconnected for a while and is back; look at the screen again.")
			l.resumeFromPause("the device is back")
		}
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
	l.set(s, reason)
}

func (l *loopState) set(s State, reason string) {
	from := l.state
	l.state = s
	st := s
	ev := &StateEvent{State: s, From: from, Reason: reason}
	if l.on.IsCommand() || l.on == OnDeviceLost || l.on == OnDeviceAway {
		ev.By = l.on.String()
	}
	l.r.rec.add(Entry{Kind: recState, State: &st, Reason: reason, By: ev.By})
	l.r.hub.emit(Event{Kind: KindState, State: ev})
	l.personState()
	if s == Paused {
		for _, w := range l.pauseWaiters {
			w <- nil
		}
		l.pauseWaiters = nil
	}
	if s == Manual {
		for _, w := range l.takeOverWaiters {
			w <- nil
		}
		l.takeOverWaiters = nil
	}
	if s != Paused && l.watchCancel != nil {
		l.watchCancel()
		l.watchCancel = nil
	}
}

// ---- work ----

// newWork cancels any work in flight and returns a context for new work.
func (l *loopState) newWork() (context.Context, uint64) {
	l.cancelWork()
	ctx, cancel := context.WithCancel(l.r.runCtx)
	l.cancel = cancel
	l.gen++
	return ctx, l.gen
}

func (l *loopState) cancelWork() {
	if l.cancel != nil {
		l.cancel()
		l.cancel = nil
	}
	l.gen++
}

func (l *loopState) spawn(f func()) {
	l.r.wg.Add(1)
	go func() {
		defer l.r.wg.Done()
		f()
	}()
}

// plan starts a Planning step: one observation and one model call. Budgets
// are checked first; one used up asks the person instead.
func (l *loopState) plan(reason string) {
	if c := l.budget.exceeded(l.spent()); c.Code != "" {
		l.ask(Request{Kind: AskBudget, Message: c.String() + "; resume to allow as much again, or stop", Cause: &c})
		return
	}
	l.to(Planning, reason)
	if l.state != Planning {
		return
	}
	l.edited = false
	l.flushQueue("")
	l.emitPlan()
	stepsLeft := l.stepsLeft()
	if stepsLeft > 0 && stepsLeft <= l.r.settings.RemindAt {
		l.note(fmt.Sprintf("Only %d step(s) are left. If the goal is reached, finish now with a summary; if it cannot be reached in time, finish and say what is missing.", stepsLeft))
	}
	ctx, gen := l.newWork()
	l.notesSent = len(l.notes)
	in := model.Input{
		Goal:      l.goal,
		History:   l.recentHistory(),
		Notes:     append([]string(nil), l.notes...),
		StepsLeft: stepsLeft,
		Supported: l.r.dev.Capabilities().Actions,
	}
	var frame image.Image
	var print Fingerprint
	var tree []byte
	if l.fresh {
		frame, print, tree = l.frame, l.print, l.tree
	}
	app := ""
	if l.fresh {
		app = l.app
	}
	var info *device.Info
	if l.hasInfo {
		i := l.info
		info = &i
	}
	call := l.calls + 1
	r := l.r
	l.spawn(func() { r.observeAndPlan(ctx, gen, call, in, info, frame, print, tree, app) })
}

// observe looks at the screen again without asking the model and then
// runs the queue: the steps the person edited while the run was paused are
// what runs next (issue 19: they were thrown away on Continue), checked
// against the screen as it is now.
func (l *loopState) observe(reason string) {
	l.to(Planning, reason)
	if l.state != Planning {
		return
	}
	l.emitPlan()
	ctx, gen := l.newWork()
	var info *device.Info
	if l.hasInfo {
		i := l.info
		info = &i
	}
	r := l.r
	l.spawn(func() { r.observeAndPlan(ctx, gen, 0, model.Input{}, info, nil, Fingerprint{}, nil, "") })
}

// currentApper is a device that can name its foreground app (adb phones);
// the model is told it (AutoGLM's current_app) and the record keeps it.
type currentApper interface {
	CurrentApp(ctx context.Context) (string, error)
}

// observeAndPlan is the Planning worker: look at the screen (unless the
// loop already has a fresh frame from the stability wait), then ask the
// model once.
func (r *Run) observeAndPlan(ctx context.Context, gen uint64, call int, in model.Input,
	info *device.Info, frame image.Image, print Fingerprint, tree []byte, app string) {
	res := &planResult{}
	t0 := time.Now()
	if info == nil {
		i, err := r.dev.Info(ctx)
		if err != nil {
			r.postErr(ctx, gen, err)
			return
		}
		info, res.info = &i, &i
	}
	if frame == nil {
		img, err := r.dev.Screenshot(ctx)
		switch {
		case errors.Is(err, device.ErrSecureScreen):
			res.obs.Secure = true
		case err != nil:
			r.postErr(ctx, gen, err)
			return
		default:
			frame, print = img, FingerprintOf(img)
		}
	}
	// The settled frame of the last action comes without a tree; the
	// policy's label check and the json dialect need one for this screen.
	if t, ok := r.dev.(device.UITree); ok && r.settings.UITree && tree == nil {
		b, err := t.UITree(ctx)
		if err != nil && (errors.Is(err, device.ErrGone) || ctx.Err() != nil) {
			r.postErr(ctx, gen, err)
			return
		}
		tree = b
	}
	if app == "" {
		app = r.foreground(ctx) // the package, for the policy's app rules
	}
	res.app = app
	if a, ok := r.dev.(currentApper); ok {
		// The name the model is told (AutoGLM's current_app). Best effort:
		// a step is planned without the name rather than not at all.
		if name, err := a.CurrentApp(ctx); err == nil {
			res.obs.App = name
		}
	}
	if _, ok := frame.(secureFrame); ok {
		res.obs.Secure = true // the settled screen of the last action was secure
	}
	res.frame, res.print, res.tree = frame, print, tree
	if !res.obs.Secure {
		res.obs.Screenshot = frame
	} else {
		in.Notes = append(in.Notes, secureNote)
	}
	res.obs.UITree, res.obs.Screen = tree, info.Screen
	res.file = r.rec.frame(ctx, frame)
	res.observeMs = time.Since(t0).Milliseconds()
	in.Observation = res.obs
	if call == 0 {
		res.only = true
		r.post(message{on: OnPlanned, gen: gen, planned: res})
		return
	}
	// A failed attempt that the client retries is told to the person (and
	// kept in the record) rather than left as a long silent "Thinking…".
	pctx := model.WithRetryNotice(ctx, func(rt model.Retry) {
		if ctx.Err() == nil {
			r.rec.add(Entry{Kind: recRetry, Call: call, Error: rt.Error, Ms: rt.WaitMs})
			r.hub.emit(Event{Kind: KindRetry, Retry: &RetryEvent{Call: call, Retry: rt}})
		}
	})
	pctx = model.WithWaitNotice(pctx, func(w model.Waiting) {
		if ctx.Err() == nil {
			r.hub.emit(Event{Kind: KindWaiting, Waiting: &WaitingEvent{Call: call, Waiting: w}})
		}
	})
	res.plan, res.err = r.planner.Plan(pctx, in, func(delta string) {
		if ctx.Err() == nil {
			r.hub.emit(Event{Kind: KindThought, Thought: &ThoughtEvent{Call: call, Delta: delta}})
		}
	})
	if ctx.Err() != nil {
		return // cancelled: the loop has moved on
	}
	r.post(message{on: OnPlanned, gen: gen, planned: res})
}

// foregrounder is a device that can name the app in front (the adb driver).
type foregrounder interface {
	ForegroundApp(ctx context.Context) (pkg, activity string, err error)
}

// foreground names the app in front; "" when the device cannot say, or
// when no policy rule needs it (asking costs an adb round trip a step).
func (r *Run) foreground(ctx context.Context) string {
	f, ok := r.dev.(foregrounder)
	if p := r.settings.Policy; !ok || p.Off || len(p.Apps) == 0 {
		return ""
	}
	pkg, _, err := f.ForegroundApp(ctx)
	if err != nil {
		return ""
	}
	return pkg
}

// readTree dumps the UI tree (one retry: a dump often fails while the
// screen still moves); nil when the device has none or it cannot be read.
func (r *Run) readTree(ctx context.Context) []byte {
	t, ok := r.dev.(device.UITree)
	if p := r.settings.Policy; !ok || !r.settings.UITree || p.Off || len(p.Words) == 0 {
		return nil
	}
	for range 2 {
		if b, err := t.UITree(ctx); err == nil {
			return b
		}
	}
	return nil
}

// secureNote tells the model why it gets no picture, so it does not plan
// blind as if it saw the screen.
const secureNote = "The screen is secure (the app blocks screenshots, as payment and password screens do): no picture of it can be sent. Do not guess positions; decide from the history and the UI tree if there is one, or ask the person to take over."

// postErr reports a failed piece of work: a lost device is its own trigger;
// anything else the loop turns into the step's failure. Cancelled work
// reports nothing.
func (r *Run) postErr(ctx context.Context, gen uint64, err error) {
	if ctx.Err() != nil {
		return
	}
	if errors.Is(err, device.ErrGone) {
		r.post(message{on: OnDeviceLost, gen: gen, err: err})
		return
	}
	r.post(message{on: OnDeviceLost, gen: gen, err: &observeError{err}})
}

// deviceDetail is a device error's own words, without the "cannot
// observe" wrapping a UI words itself.
func deviceDetail(err error) string {
	var oe *observeError
	if errors.As(err, &oe) {
		return oe.err.Error()
	}
	return err.Error()
}

// observeError is a failure to look at the screen that is not a lost
// device (a driver error, a permission); the run pauses with it too, since
// it cannot plan blind.
type observeError struct{ err error }

func (e *observeError) Error() string { return "cannot observe the device: " + e.err.Error() }
func (e *observeError) Unwrap() error { return e.err }

// planned handles the model's reply.
func (l *loopState) planned(p *planResult) {
	l.cancel = nil
	if p.info != nil {
		l.info, l.hasInfo = *p.info, true
	}
	if p.err == nil {
		l.faults = 0
	}
	if p.frame != nil {
		l.frame, l.print, l.tree, l.fresh = p.frame, p.print, p.tree, true
		l.app, l.appName = p.app, p.obs.App
	}
	l.r.rec.add(Entry{Kind: recObserve, Call: l.calls + 1, Frame: p.file, Screen: l.info.Screen,
		App: p.obs.App, Secure: p.obs.Secure, Ms: p.observeMs})
	if p.only {
		l.edited = false
		l.next()
		return
	}
	if p.err != nil {
		l.modelError(p)
		return
	}
	l.calls++
	l.usage = l.usage.Add(p.plan.Usage)
	u := p.plan.Usage
	l.callFrame, l.callUsage = p.file, &u
	l.callSalvaged, l.callCached = p.plan.Salvaged, p.plan.Cached
	l.r.rec.add(Entry{Kind: recPlan, Call: l.calls, PromptBytes: p.plan.RequestBytes, Raw: cut(p.plan.Raw, maxRawBytes),
		Thought: p.plan.Thought, Actions: p.plan.Actions, Usage: &u, Ms: p.plan.Latency.Milliseconds(),
		Salvaged: p.plan.Salvaged, Cached: p.plan.Cached})
	l.emitUsage()
	acts, err := l.accept(p.plan.Actions)
	if err != nil {
		l.modelError(&planResult{err: &model.ParseError{Reason: err.Error(), Raw: p.plan.Raw}})
		return
	}
	l.parseRetried = false
	l.notes = l.notes[min(l.notesSent, len(l.notes)):]
	l.thought = p.plan.Thought
	l.history = append(l.history, model.Step{N: len(l.history) + 1, Thought: p.plan.Thought, Actions: append([]action.Action(nil), acts...),
		Reply: p.plan.Raw, App: p.obs.App})
	l.histIdx = len(l.history) - 1
	l.recordHistory()
	l.doneActs, l.current, l.queue = nil, nil, acts
	l.next()
}

// accept checks a reply's actions: everything after the first finish or
// fail is dropped, every action must be valid on this screen and one the
// device can do.
func (l *loopState) accept(acts []action.Action) ([]action.Action, error) {
	if len(acts) == 0 {
		return nil, errors.New("the reply has no action; answer with at least one action, or finish with a summary")
	}
	caps := l.r.dev.Capabilities()
	out := make([]action.Action, 0, len(acts))
	for _, a := range acts {
		if err := a.Validate(l.info.Screen); err != nil {
			return nil, err
		}
		if engineHandled(a.Type) || caps.Supports(a.Type) {
			out = append(out, a)
		} else {
			return nil, fmt.Errorf("this device cannot do %s; use one of %v", a.Type, caps.Actions)
		}
		if a.Type.Terminal() {
			break
		}
	}
	return out, nil
}

func engineHandled(t action.Type) bool {
	return t == action.Finish || t == action.Fail || t == action.AskUser || t == action.TakeOver
}

// modelError: a reply that could not be used gets one corrective retry
// with the reason; anything else (or a second bad reply) goes to the person.
func (l *loopState) modelError(p *planResult) {
	var pe *model.ParseError
	if errors.As(p.err, &pe) {
		l.calls++
		l.r.rec.add(Entry{Kind: recPlan, Call: l.calls, Raw: cut(pe.Raw, maxRawBytes), Error: pe.Error()})
		if !l.parseRetried {
			l.parseRetried = true
			l.note("Your previous reply could not be used: " + pe.Reason + ". Reply again, following the required format exactly.")
			l.plan("corrective retry after a reply that could not be used")
			return
		}
		l.parseRetried = false
		l.ask(Request{Kind: AskModelError, Message: "the model's reply could not be used twice in a row: " + pe.Reason,
			Cause: &Cause{Code: CauseModelUnusable, Detail: pe.Reason}})
		return
	}
	l.calls++
	l.r.rec.add(Entry{Kind: recPlan, Call: l.calls, Error: p.err.Error()})
	msg := "the model call failed: " + p.err.Error()
	if errors.Is(p.err, model.ErrAuth) {
		msg += " (check the model settings)"
	}
	c := modelCause(p.err)
	l.ask(Request{Kind: AskModelError, Message: msg + "; resume to try again", Cause: &c})
}

// next decides what follows once a step's work is done: the next queued
// action, a new model call, the person, or an end.
func (l *loopState) next() {
	if l.current != nil {
		l.doneActs = append(l.doneActs, *l.current)
		l.current = nil
	}
	if len(l.queue) == 0 {
		if l.softLimit >= 0 && l.steps >= l.softLimit {
			l.end(Result{State: Stopped, Reason: "stopped gracefully"})
			return
		}
		l.plan("")
		return
	}
	a := l.queue[0]
	l.queue = l.queue[1:]
	l.current = &a
	l.currentEl = l.elementAt(a)
	l.confirmed = false
	switch a.Type {
	case action.Finish:
		success := a.Success == nil || *a.Success
		l.setResult("ok")
		l.end(Result{State: Done, Success: success, Summary: a.Summary, Pending: pendingOf(a)})
		return
	case action.Fail:
		l.setResult("ok")
		l.end(Result{State: Failed, Reason: a.Reason})
		return
	}
	if l.softLimit >= 0 && l.steps >= l.softLimit {
		l.end(Result{State: Stopped, Reason: "stopped gracefully"})
		return
	}
	l.emitPlan()
	switch a.Type {
	case action.AskUser:
		l.setResult("asked the person")
		l.ask(Request{Kind: AskQuestion, Message: a.Question})
		return
	case action.TakeOver:
		l.setResult("handed to the person")
		reason := a.Reason
		if reason == "" {
			reason = "the model asked the person to take over"
		}
		l.enterManual(reason, &Request{Kind: AskTakeOver, Message: reason})
		return
	}
	if c := l.budget.exceeded(l.spent()); c.Code != "" {
		l.queue = append([]action.Action{a}, l.queue...)
		l.current = nil
		l.ask(Request{Kind: AskBudget, Message: c.String() + "; resume to allow as much again, or stop", Cause: &c})
		return
	}
	if why := l.sensitive(a); why.By != "" {
		l.ask(Request{Kind: AskConfirm, Message: fmt.Sprintf("%s needs your confirmation: %s", a, why), Action: &a, Why: &why})
		return
	}
	l.execute()
}

// sensitive is the policy's verdict on a, the next action, on the newest
// screen. What the screen shows is part of it (the label under a tap, the
// app in front), so a screen that could not be read is never taken for a
// harmless one: the person is asked.
func (l *loopState) sensitive(a action.Action) Why {
	p := l.r.settings.Policy
	label, app := "", ""
	if l.currentEl != nil {
		label = l.currentEl.Label
	}
	if l.fresh {
		app = l.app
	}
	if why := p.Why(Target{Action: a, Label: label, App: app}); why.By != "" || p.Off {
		return why
	}
	// A rule may name the app as the person knows it ("支付宝") rather
	// than by its package.
	if l.fresh && l.appName != "" {
		if why := p.Why(Target{Action: a, Label: label, App: l.appName}); why.By != "" {
			return why
		}
	}
	_, hasTree := l.r.dev.(device.UITree)
	if a.Type.Pointed() && len(p.Words) > 0 && hasTree && l.r.settings.UITree && (!l.fresh || l.tree == nil) {
		return Why{By: "unread", Detail: "the screen's labels could not be read"}
	}
	_, hasApp := l.r.dev.(foregrounder)
	if len(p.Apps) > 0 && hasApp && app == "" {
		return Why{By: "unread", Detail: "the app in front could not be read"}
	}
	return Why{}
}

// elementAt is the UI-tree element under a pointed action, when the tree
// describes the screen the action was chosen on.
func (l *loopState) elementAt(a action.Action) *Element {
	if !a.Type.Pointed() || !l.fresh {
		return nil
	}
	if e, ok := elementAt(l.tree, a.X, a.Y); ok {
		return &e
	}
	return nil
}

// execute starts the current action.
func (l *loopState) execute() {
	a := *l.current
	l.to(Executing, "")
	if l.state != Executing {
		return
	}
	l.emitPlan()
	ctx, gen := l.newWork()
	l.actBefore = l.print
	l.actBeforeFrame, l.actBeforeTree = nil, nil
	if l.fresh {
		l.actBeforeFrame, l.actBeforeTree = l.frame, l.tree
	}
	l.actStarted = time.Now()
	l.fresh = false
	r := l.r
	l.spawn(func() {
		t0 := time.Now()
		ran, err := r.gate.do(func() error {
			actx, cancel := actionContext(ctx, a)
			defer cancel()
			return r.dev.Do(actx, a)
		})
		if !ran {
			return // stopped before it started
		}
		r.post(message{on: OnActionDone, gen: gen, acted: &actResult{err: err, ms: time.Since(t0).Milliseconds()}})
	})
}

// actionBound is how long Stop waits for an input already on its way to
// the device to return.
const actionBound = 5 * time.Second

// actionContext is the context a device action runs under. An input (a
// tap, a key, text) is not called back by cancelling its caller: adb's
// shell goes on and the tap lands anyway, so cancelling only made Do
// return early and "Stopped" could be announced before the tap reached the
// phone (issue 19: 1 run in 8, 2.2 ms later). Such an action runs to its
// end, bounded by actionBound; Stop waits for it at the action gate, so
// Stopped means nothing more will happen. A wait is no input: it stays
// cancellable.
func actionContext(ctx context.Context, a action.Action) (context.Context, context.CancelFunc) {
	if a.Type == action.Wait {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(context.WithoutCancel(ctx), actionBound)
}

// actionDone handles the end of a device action.
func (l *loopState) actionDone(res *actResult) {
	l.cancel = nil
	a := *l.current
	l.steps++
	result := "ok"
	if res.err != nil {
		result = res.err.Error()
	}
	l.setResult(result)
	l.r.rec.add(Entry{Kind: recAction, N: l.steps, Call: l.calls, Action: &a, Result: result, Ms: res.ms})
	l.r.hub.emit(Event{Kind: KindStep, Step: &StepEvent{N: l.steps, Action: a, Result: result, Ms: res.ms,
		Call: l.calls, Frame: l.callFrame, Usage: l.callUsage, Salvaged: l.callSalvaged, Cached: l.callCached}})
	l.callUsage, l.callSalvaged, l.callCached = nil, "", false
	l.emitUsage()
	if res.err != nil && errors.Is(res.err, device.ErrGone) {
		l.lost(res.err)
		return
	}
	if l.pauseAfter || l.takeOverAfter {
		l.current = nil
		l.doneActs = append(l.doneActs, a)
		if l.takeOverAfter {
			l.enterManual("the person took over", nil)
		} else {
			l.to(Paused, "paused by the person")
		}
		l.pauseAfter, l.takeOverAfter = false, false
		return
	}
	if res.err != nil {
		l.flushQueue(fmt.Sprintf("%s failed: %v.", a, res.err))
		// Only the person can fix these (a setting, an app to install): the
		// model would try again and again.
		if errors.Is(res.err, device.ErrPermission) || errors.Is(res.err, device.ErrNeedsKeyboard) {
			l.ask(Request{Kind: AskDevice, Message: fmt.Sprintf("%s failed: %v; fix it on the device and resume, or take over and do it yourself", a, res.err),
				Action: &a, Cause: &Cause{Code: CauseActionFailed, Detail: res.err.Error()}})
			return
		}
		l.current = nil
		l.plan("the action failed")
		return
	}
	if !a.Type.ChangesScreen() {
		l.next()
		return
	}
	l.to(WaitingForStability, "")
	ctx, gen := l.newWork()
	r := l.r
	cfg := l.r.settings.Stability
	var prepare func(image.Image)
	if p, ok := r.planner.(model.Preparer); ok {
		prepare = p.Prepare
	}
	look := len(l.queue) > 0 // a queued action is checked against this screen
	l.spawn(func() {
		s, err := waitStable(ctx, r.clock, r.shoot, cfg, prepare)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			r.postErr(ctx, gen, err)
			return
		}
		res := &stableResult{s: s}
		if look {
			res.tree = r.readTree(ctx)
			res.app = r.foreground(ctx)
		}
		r.post(message{on: OnStable, gen: gen, settled: res})
	})
}

// stable handles a settled screen after an action.
func (l *loopState) stable(res *stableResult) {
	l.cancel = nil
	s := res.s
	a := *l.current
	l.frame, l.print, l.tree, l.app, l.fresh = s.Frame, s.Print, res.tree, res.app, true
	diff := s.Print.Diff(l.actBefore)
	if l.actBefore.IsZero() {
		diff = 1
	}
	st := s.Stable
	l.r.rec.add(Entry{Kind: recStable, N: l.steps, Ms: s.Waited.Milliseconds(), Stable: &st, Diff: diff})
	th := l.r.settings.Stability.Threshold
	changed := screenChanged(l.actBeforeFrame, s.Frame, l.actBeforeTree, res.tree)
	l.actBeforeFrame, l.actBeforeTree = nil, nil
	switch v, why := l.loops.observe(a, l.actBefore, changed, th); v {
	case loopNudge:
		l.flushQueue("")
		l.note("It looks like you are going round in circles: " + why.String() + ". Look at the screen carefully and try something different; if the goal cannot be reached, finish and say why.")
		l.current = nil
		l.plan("loop detected: nudging the model")
		return
	case loopEscalate:
		l.flushQueue("")
		l.current = nil
		l.ask(Request{Kind: AskLoop, Message: "the agent seems stuck: " + why.String() + ". Answer with a hint, take over, resume, or stop.",
			Action: &a, Cause: &why})
		return
	}
	if len(l.queue) > 0 && diff > l.r.settings.Unexpected {
		l.flushQueue(fmt.Sprintf("After %s the screen changed more than expected (%.0f%% of it), so the rest of your plan was not done.", a, diff*100))
	}
	l.next()
}

// lost handles a device that went away (or could not be observed): the
// run pauses with the reason and resumes by itself when the device answers.
func (l *loopState) lost(err error) {
	l.cancelWork()
	if !errors.Is(err, device.ErrGone) {
		l.ask(Request{Kind: AskDevice, Message: err.Error() + "; fix it and resume", Cause: &Cause{Code: CauseDevice, Detail: deviceDetail(err)}})
		return
	}
	waiters := l.pauseAfter || l.takeOverAfter
	takeOver := l.takeOverAfter
	l.pauseAfter, l.takeOverAfter = false, false
	if l.current != nil {
		l.queue = append([]action.Action{*l.current}, l.queue...)
		l.current = nil
	}
	l.fresh, l.hasInfo = false, false
	if takeOver {
		// The person asked for the device while the action ran: they get
		// it (and their TakeOver returns), gone or not; a Paused run left
		// their command waiting until the run ended (sim seed 3391).
		l.enterManual("the person took over", nil)
		return
	}
	l.faults++
	if l.faults > maxFaults && !waiters {
		// It answers, then fails again: pausing and resuming by itself
		// would cycle for ever (issue 16: 162 times a minute).
		n := l.faults
		l.faults = 0
		l.ask(Request{Kind: AskDevice, Message: fmt.Sprintf("the device failed %d times in a row (%v); check it and resume, take over, or stop", n, err),
			Cause: &Cause{Code: CauseDeviceRepeated, N: fmt.Sprint(n), Detail: deviceDetail(err)}})
		return
	}
	l.deviceLost = true
	l.to(Paused, "device lost: "+err.Error())
	if l.state != Paused {
		return
	}
	l.watch(err)
}

// away handles a device that stays away: left > 0 is the countdown (seconds
// before the run gives up), 0 the end.
func (l *loopState) away(left int, cause error) {
	if l.state != Paused || !l.deviceLost {
		return
	}
	if left > 0 {
		l.to(Paused, fmt.Sprintf("device lost: %v; waiting %d s more for it", cause, left))
		return
	}
	l.end(Result{State: Failed, Reason: fmt.Sprintf("the device stayed away for %s: %v", l.r.settings.DeviceAwayMax, cause)})
}

// maxFaults is how many times in a row the device may be lost (and come
// back) before the person is asked.
const maxFaults = 3

// watch polls a lost device until it answers (the run then resumes by
// itself) or stays away longer than the settings allow (the run fails,
// its record intact). Every second it says how long it will still wait.
func (l *loopState) watch(cause error) {
	ctx, cancel := context.WithCancel(l.r.runCtx)
	l.watchCancel = cancel
	gen := l.gen
	r := l.r
	limit := l.r.settings.DeviceAwayMax
	l.spawn(func() {
		start := r.now()
		told := time.Duration(0)
		for {
			if r.clock.Sleep(ctx, 250*time.Millisecond) != nil {
				return
			}
			if away := r.since(start); away >= limit {
				r.post(message{on: OnDeviceAway, gen: gen, err: cause})
				return
			} else if away-told >= time.Second {
				told = away
				r.post(message{on: OnDeviceAway, gen: gen, n: int((limit - away + time.Second - 1) / time.Second), err: cause})
			}
			actx, acancel := context.WithTimeout(ctx, 2*time.Second)
			_, err := r.dev.Info(actx)
			acancel()
			if err == nil {
				r.post(message{on: OnDeviceBack, gen: gen})
				return
			}
		}
	})
}

// ---- the person's commands ----

func (l *loopState) pause(m message) error {
	switch l.state {
	case Executing:
		l.pauseAfter = true
		l.pauseWaiters = append(l.pauseWaiters, m.reply)
		return nil
	case Planning, WaitingForStability:
		l.cancelWork()
		if l.current != nil {
			l.doneActs = append(l.doneActs, *l.current)
			l.current = nil
		}
	}
	l.to(Paused, "paused by the person")
	return nil
}

func (l *loopState) resume() error {
	switch l.state {
	case Paused:
		l.resumeFromPause("resumed by the person")
	case WaitingForUser:
		switch l.request.Kind {
		case AskBudget:
			l.budget = l.budget.extend(l.r.settings.Budget, l.spent())
		case AskLoop, AskModelError, AskDevice:
			l.loops.reset()
		default:
			return &IllegalError{State: l.state, Trigger: OnResume, Why: "it waits for " + string(l.request.Kind) + ", not for resume"}
		}
		l.r.rec.add(Entry{Kind: recPerson, Command: "resume"})
		l.request = nil
		if l.current != nil && !l.edited {
			l.queue = append([]action.Action{*l.current}, l.queue...)
		}
		l.current = nil
		if l.edited {
			l.observe("resumed by the person")
			return nil
		}
		l.flushQueue("The run stopped to ask the person before these planned actions were done; decide again what to do.")
		l.plan("resumed by the person")
	}
	return nil
}

// resumeFromPause looks again and re-plans; what was still queued is told
// to the model rather than run blind.
func (l *loopState) resumeFromPause(reason string) {
	l.deviceLost = false
	l.fresh = false
	if l.current != nil {
		l.queue = append([]action.Action{*l.current}, l.queue...)
		l.current = nil
	}
	l.r.rec.add(Entry{Kind: recPerson, Command: "resume"})
	if l.edited {
		l.observe(reason)
		return
	}
	l.flushQueue("The run was paused before these planned actions were done; decide again what to do.")
	l.plan(reason)
}

func (l *loopState) takeOver(m message) error {
	if l.state == Executing {
		l.takeOverAfter = true
		l.takeOverWaiters = append(l.takeOverWaiters, m.reply)
		return nil
	}
	l.cancelWork()
	if l.current != nil && l.state == WaitingForStability {
		l.doneActs = append(l.doneActs, *l.current)
	}
	l.current = nil
	l.enterManual("the person took over", nil)
	return nil
}

func (l *loopState) enterManual(reason string, req *Request) {
	l.manualLog = nil
	l.takeOverAsked = ""
	if req != nil {
		l.takeOverAsked = req.Message
	}
	l.deviceLost = false
	l.to(Manual, reason)
	if l.state != Manual {
		return
	}
	if req != nil {
		l.request = req
		l.r.rec.add(Entry{Kind: recRequest, Request: req})
		l.r.hub.emit(Event{Kind: KindRequest, Request: req})
	}
}

func (l *loopState) manualInput(m message) error {
	if l.manualBusy {
		return ErrBusy
	}
	a := m.act
	if engineHandled(a.Type) {
		return fmt.Errorf("%w: %s is not an input", action.ErrInvalid, a.Type)
	}
	if err := a.Validate(l.info.Screen); err != nil {
		return err
	}
	l.manualBusy = true
	l.manualReply = m.reply
	r := l.r
	ctx := l.r.runCtx
	cfg := l.r.settings.Stability
	done := m.done // already on the device (a live touch): only its result is recorded
	l.spawn(func() {
		res := &manualResult{a: a, at: time.Now()}
		var err error
		if !done {
			var before image.Image
			if before, err = r.shoot(ctx); err == nil {
				res.beforePrint = FingerprintOf(before)
				res.before = r.rec.frame(ctx, before)
				t0 := time.Now()
				var ran bool
				ran, err = r.gate.do(func() error {
					actx, cancel := actionContext(ctx, a)
					defer cancel()
					return r.dev.Do(actx, a)
				})
				res.ms = time.Since(t0).Milliseconds()
				if !ran {
					err = ErrFinished
				}
			}
		}
		if err == nil {
			res.s, err = waitStable(ctx, r.clock, r.shoot, cfg, nil)
			if err == nil {
				res.after = r.rec.frame(ctx, res.s.Frame)
			}
		}
		res.err = err
		r.post(message{on: OnManualDone, manual: res})
	})
	return nil
}

func (l *loopState) manualDone(res *manualResult) {
	l.manualBusy = false
	l.manualLog = append(l.manualLog, manualInput{a: res.a, at: res.at, err: res.err})
	ev := &ManualEvent{Action: res.a, At: res.at, Before: res.before, After: res.after}
	result := "ok"
	if res.err != nil {
		ev.Error, result = res.err.Error(), res.err.Error()
	} else {
		l.frame, l.print, l.tree, l.app, l.fresh = res.s.Frame, res.s.Print, nil, "", true
	}
	a := res.a
	l.r.rec.add(Entry{Kind: recManual, T: res.at, Action: &a, Before: res.before, Frame: res.after, Result: result, Ms: res.ms})
	l.r.hub.emit(Event{Kind: KindManual, Manual: ev})
	l.r.hub.emit(Event{Kind: KindStep, Step: &StepEvent{N: l.steps, Action: a, Result: result, Ms: res.ms, ByPerson: true, Frame: res.before}})
	if l.manualReply != nil {
		l.manualReply <- res.err
		l.manualReply = nil
	}
}

func (l *loopState) handBack(note string, region *Region) error {
	if l.manualBusy {
		return &IllegalError{State: l.state, Trigger: OnHandBack, Why: "an input is still running"}
	}
	words := describeManual(l.manualLog, l.takeOverAsked, note, region)
	l.r.rec.add(Entry{Kind: recPerson, Command: "hand_back", Text: note, Region: region})
	acts := make([]action.Action, 0, len(l.manualLog))
	for _, in := range l.manualLog {
		if in.err == nil {
			acts = append(acts, in.a)
		}
	}
	step := model.Step{N: len(l.history) + 1, Actions: acts, Result: "done by the person", ByPerson: true, Note: strings.TrimSpace(note)}
	if region != nil {
		// Device pixels: each dialect tells the model in its own grid.
		r := image.Rect(region.X1, region.Y1, region.X2, region.Y2)
		step.Region = &r
	}
	l.history = append(l.history, step)
	l.histIdx = len(l.history) - 1
	l.recordHistory()
	l.note(words)
	l.manualLog = nil
	l.request = nil
	l.loops.reset()
	l.plan("handed back by the person")
	return nil
}

// describeManual tells the model, in words, what the person did.
func describeManual(log []manualInput, asked, note string, region *Region) string {
	// What the person did, their note and the region they marked are in
	// the history step (model.Step), which the dialect writes in the
	// model's own coordinates; this note only frames it.
	var b strings.Builder
	if asked != "" {
		fmt.Fprintf(&b, "You asked the person to take over (%s). ", asked)
	} else {
		b.WriteString("The person took over control. ")
	}
	ok := 0
	for _, in := range log {
		if in.err == nil {
			ok++
		}
	}
	if ok == 0 {
		b.WriteString("They made no input through Tandem.")
	} else {
		fmt.Fprintf(&b, "Their %d input(s) are the last step of the history.", ok)
	}
	if strings.TrimSpace(note) != "" || region != nil {
		b.WriteString(" Read their note and marked region there.")
	}
	b.WriteString(" They have handed control back to you: look at the current screen and continue.")
	return b.String()
}

// describeAction puts one action into words.
func describeAction(a action.Action) string {
	switch a.Type {
	case action.Tap:
		return fmt.Sprintf("tapped at (%d,%d)", a.X, a.Y)
	case action.DoubleTap:
		return fmt.Sprintf("double-tapped at (%d,%d)", a.X, a.Y)
	case action.LongPress:
		return fmt.Sprintf("long-pressed at (%d,%d)", a.X, a.Y)
	case action.RightClick:
		return fmt.Sprintf("right-clicked at (%d,%d)", a.X, a.Y)
	case action.Swipe:
		return fmt.Sprintf("swiped from (%d,%d) to (%d,%d)", a.X, a.Y, a.X2, a.Y2)
	case action.Drag:
		return fmt.Sprintf("dragged from (%d,%d) to (%d,%d)", a.X, a.Y, a.X2, a.Y2)
	case action.Scroll:
		return fmt.Sprintf("scrolled %s at (%d,%d)", a.Direction, a.X, a.Y)
	case action.TypeText:
		s := fmt.Sprintf("typed %q", a.Text)
		if a.Submit {
			s += " and submitted"
		}
		return s
	case action.Key:
		return "pressed the " + a.Key + " key"
	case action.Hotkey:
		return "pressed " + strings.Join(a.Keys, "+")
	case action.Launch:
		return "opened " + a.App
	case action.Wait:
		return fmt.Sprintf("waited %d ms", a.Ms)
	}
	return a.String()
}

func (l *loopState) stopGracefully(n int) error {
	switch l.state {
	case Planning, Executing, WaitingForStability:
		// The step under way is one of the n ("stop after this step" is
		// n = 1); with n = 0 it still ends, as an atomic action cannot be
		// called back.
		switch {
		case l.state == Executing && l.current != nil: // not yet counted in steps
			l.softLimit = l.steps + max(n, 1)
		case l.state == WaitingForStability && l.current != nil: // counted already
			l.softLimit = l.steps + max(n-1, 0)
		default:
			l.softLimit = l.steps + n
		}
		l.r.rec.add(Entry{Kind: recPerson, Command: "stop_gracefully", N: n})
		l.note(fmt.Sprintf("The person asked you to stop: you may take at most %d more action(s). Wrap up now: finish with a summary of what is done and what is still pending.", n))
		l.to(l.state, fmt.Sprintf("stopping gracefully: at most %d more step(s)", n))
	default:
		l.end(Result{State: Stopped, Reason: "stopped by the person"})
	}
	return nil
}

func (l *loopState) confirm() error {
	if l.request == nil || l.request.Kind != AskConfirm {
		return &IllegalError{State: l.state, Trigger: OnConfirm, Why: "nothing waits for confirmation"}
	}
	l.r.rec.add(Entry{Kind: recPerson, Command: "confirm", Action: l.current})
	l.request = nil
	l.confirmed = true
	if l.softLimit >= 0 && l.steps >= l.softLimit {
		l.end(Result{State: Stopped, Reason: "stopped gracefully"})
		return nil
	}
	l.execute()
	return nil
}

func (l *loopState) deny(reason string) error {
	if l.request == nil || l.request.Kind != AskConfirm {
		return &IllegalError{State: l.state, Trigger: OnDeny, Why: "nothing waits for confirmation"}
	}
	a := *l.current
	l.r.rec.add(Entry{Kind: recPerson, Command: "deny", Action: &a, Text: reason})
	l.setResult("denied by the person")
	msg := fmt.Sprintf("The person did NOT allow %s.", a)
	if strings.TrimSpace(reason) != "" {
		msg += fmt.Sprintf(" Their reason: %q.", strings.TrimSpace(reason))
	}
	msg += " Do not do it; find another way that respects this, or finish and say what is left."
	l.current = nil
	l.request = nil
	l.flushQueue("")
	l.note(msg)
	l.plan("denied by the person")
	return nil
}

func (l *loopState) answer(text string) error {
	if l.request == nil || l.request.Kind == AskConfirm {
		return &IllegalError{State: l.state, Trigger: OnAnswer, Why: "it waits for confirm or deny"}
	}
	req := *l.request
	l.r.rec.add(Entry{Kind: recPerson, Command: "answer", Text: text})
	switch req.Kind {
	case AskQuestion:
		l.note(fmt.Sprintf("You asked the person: %q. They answered: %q.", req.Message, text))
	default:
		l.note(fmt.Sprintf("The run stopped to ask the person (%s). Their guidance: %q.", req.Message, text))
		if req.Kind == AskBudget {
			l.budget = l.budget.extend(l.r.settings.Budget, l.spent())
		}
		l.loops.reset()
	}
	l.request = nil
	l.current = nil
	l.plan("answered by the person")
	return nil
}

func (l *loopState) editGoal(goal string) {
	l.goal = goal
	l.r.hub.setGoal(goal)
	l.r.rec.add(Entry{Kind: recPerson, Command: "edit_goal", Text: goal})
	if l.state == Idle {
		l.to(Idle, "goal edited")
		return
	}
	l.note(fmt.Sprintf("The person changed the goal. The goal is now: %q.", goal))
	if !l.edited {
		// A plan made for the old goal is dropped, unless the person set
		// the steps themselves (the pause panel edits both together).
		l.flushQueue("")
	}
	if l.state == Planning {
		l.cancelWork()
		l.plan("the goal changed")
		return
	}
	l.to(l.state, "goal edited")
}

func (l *loopState) editPending(acts []action.Action) error {
	for _, a := range acts {
		if err := a.Validate(l.info.Screen); err != nil {
			return err
		}
	}
	l.r.rec.add(Entry{Kind: recPerson, Command: "edit_pending", Actions: acts})
	l.queue = append([]action.Action(nil), acts...)
	l.edited = l.state == Paused || l.state == WaitingForUser
	l.to(l.state, "pending actions edited")
	l.emitPlan()
	return nil
}

// ---- helpers ----

// ask moves to WaitingForUser with a request.
func (l *loopState) ask(req Request) {
	l.cancelWork()
	l.to(WaitingForUser, req.Message)
	if l.state != WaitingForUser {
		return
	}
	if req.Frame == "" {
		req.Frame = l.callFrame
	}
	l.request = &req
	l.r.rec.add(Entry{Kind: recRequest, Request: &req})
	l.r.hub.emit(Event{Kind: KindRequest, Request: &req})
}

// end finishes the run. It closes the action gate first, so once the state
// reads Stopped no device action can start.
func (l *loopState) end(res Result) {
	if !allowed(l.state, l.on, res.State) && !strings.HasPrefix(res.Reason, "internal error") {
		res = Result{State: Failed, Reason: fmt.Sprintf("internal error: %s --%s--> %s is not in the transition table", l.state, l.on, res.State)}
	}
	l.cancelWork()
	l.r.runCancel()
	l.r.gate.close()
	if l.watchCancel != nil {
		l.watchCancel()
		l.watchCancel = nil
	}
	res.Steps, res.Calls, res.Usage = l.steps, l.calls, l.usage
	if res.State == Done && !res.Success && res.Reason == "" {
		res.Reason = "the model finished without success"
	}
	l.r.res = res
	reason := res.Reason
	if res.State == Done {
		reason = res.Summary
	}
	l.recordHistory()
	l.emitUsage() // the final figures, elapsed time included
	l.set(res.State, reason)
	r := res
	l.r.rec.add(Entry{Kind: recEnd, End: &r})
	l.r.hub.emit(Event{Kind: KindDone, Done: &r})
	for _, w := range append(l.pauseWaiters, l.takeOverWaiters...) {
		w <- ErrFinished
	}
	l.pauseWaiters, l.takeOverWaiters = nil, nil
	if l.manualReply != nil {
		l.manualReply <- ErrFinished
		l.manualReply = nil
	}
	// A finished run may be kept (a list of past runs); it must not pin
	// the last screen (megabytes) in memory.
	l.frame, l.tree = nil, nil
}

// flushQueue drops the queued actions; when why is set the model is told
// what was dropped.
func (l *loopState) flushQueue(why string) {
	if len(l.queue) > 0 && why != "" {
		parts := make([]string, len(l.queue))
		for i, a := range l.queue {
			parts[i] = a.String()
		}
		l.note(why + " Not done: " + strings.Join(parts, ", ") + ".")
	}
	l.queue = nil
}

func (l *loopState) note(s string) {
	l.notes = append(l.notes, s)
	l.r.rec.add(Entry{Kind: recNote, Text: s})
}

// setResult writes the outcome of the current action into the history.
func (l *loopState) setResult(result string) {
	if l.histIdx < 0 || l.histIdx >= len(l.history) {
		return
	}
	h := &l.history[l.histIdx]
	if h.Result == "" || h.Result == "ok" {
		h.Result = result
	} else if result != "ok" {
		h.Result += "; " + result
	}
	l.recordHistory()
}

func (l *loopState) recordHistory() {
	if l.histIdx < 0 || l.histIdx >= len(l.history) {
		return
	}
	s := l.history[l.histIdx]
	s.Actions = append([]action.Action(nil), s.Actions...)
	l.r.rec.add(Entry{Kind: recHistory, N: l.histIdx + 1, Step: &s})
}

func (l *loopState) recentHistory() []model.Step {
	h := l.history
	if n := l.r.settings.History; len(h) > n {
		h = h[len(h)-n:]
	}
	return append([]model.Step(nil), h...)
}

func (l *loopState) spent() spent {
	var el time.Duration
	if !l.started.IsZero() {
		el = l.r.since(l.started)
	}
	return spent{steps: l.steps, usage: l.usage, elapsed: l.elapsedPrior + el}
}

func (l *loopState) stepsLeft() int {
	left := 0
	if l.budget.Steps > 0 {
		left = l.budget.Steps - l.steps
	}
	if l.softLimit >= 0 {
		soft := l.softLimit - l.steps
		if left == 0 || soft < left {
			left = max(soft, 0)
			if left == 0 {
				left = 1 // a finish is still allowed
			}
		}
	}
	return left
}

func (l *loopState) emitPlan() {
	todo := make([]TodoItem, 0, len(l.doneActs)+1+len(l.queue))
	for _, a := range l.doneActs {
		todo = append(todo, TodoItem{Action: a, Status: TodoDone})
	}
	if l.current != nil {
		todo = append(todo, TodoItem{Action: *l.current, Status: TodoCurrent, Element: l.currentEl})
	}
	for _, a := range l.queue {
		todo = append(todo, TodoItem{Action: a, Status: TodoPending})
	}
	l.r.hub.emit(Event{Kind: KindPlan, Plan: &PlanEvent{Thought: l.thought, Todo: todo}})
}

func (l *loopState) emitUsage() {
	sp := l.spent()
	l.r.hub.emit(Event{Kind: KindUsage, Usage: &UsageEvent{Total: l.usage, Calls: l.calls, Steps: l.steps, ElapsedMs: sp.elapsed.Milliseconds()}})
}

// pendingOf returns the issues a finish leaves open: its Pending field
// when the dialect filled it, else lines of the summary marked as pending.
func pendingOf(a action.Action) []string {
	var out []string
	for _, line := range strings.Split(a.Summary, "\n") {
		t := strings.TrimSpace(line)
		for _, p := range []string{"pending:", "todo:", "待办:", "待办：", "未完成:", "未完成："} {
			if len(t) > len(p) && strings.EqualFold(t[:len(p)], p) {
				out = append(out, strings.TrimSpace(t[len(p):]))
			}
		}
	}
	return out
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// restore rebuilds a crashed run's progress from its record.
func (l *loopState) restore(entries []Entry) {
	var first, last time.Time
	hist := map[int]model.Step{}
	maxIdx := 0
	for _, e := range entries {
		if first.IsZero() {
			first = e.T
		}
		last = e.T
		switch e.Kind {
		case recStart:
			if e.Goal != "" && l.goal == "" {
				l.goal = e.Goal
			}
		case recPlan:
			l.calls = max(l.calls, e.Call)
			if e.Usage != nil {
				l.usage = l.usage.Add(*e.Usage)
			}
		case recAction:
			l.steps = max(l.steps, e.N)
		case recHistory:
			if e.Step != nil {
				hist[e.N] = *e.Step
				maxIdx = max(maxIdx, e.N)
			}
		case recPerson:
			if e.Command == "edit_goal" {
				l.goal = e.Text
			}
		}
	}
	for i := 1; i <= maxIdx; i++ {
		if s, ok := hist[i]; ok {
			l.history = append(l.history, s)
		}
	}
	l.histIdx = -1
	l.elapsedPrior = last.Sub(first)
	l.r.hub.setGoal(l.goal)
	l.note(fmt.Sprintf("This run was interrupted after %d action(s) and has been resumed from its record. The screen may have changed since: look at it again before you continue.", l.steps))
}
