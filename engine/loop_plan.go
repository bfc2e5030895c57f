package engine

import (
	"context"
	"errors"
	"fmt"
	"image"

	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/engine/model"
)

// Planning: the work a step starts off the loop (observe the screen, ask the
// model once) and what the loop makes of its result.

// planning starts a Planning step: one observation and one model call
// (plan asks after first; Planning.Asking's invoke makes the call, or
// adopts the one started on the settled screen's first capture when it
// asks the same).
func (l *loopState) planning(reason string) {
	l.to(Planning, reason)
	if l.state != Planning {
		return
	}
	l.todo.edited = false
	l.flushQueue("")
	l.emitPlan()
	if r := l.reminder(); r != "" {
		l.note(r)
	}
	l.notesSent = len(l.notes)
}

// reminder is the note that tells the model how few steps are left, when
// few are.
func (l *loopState) reminder() string {
	if left := l.stepsLeft(); left > 0 && left <= l.settings.RemindAt {
		return fmt.Sprintf("Only %d step(s) are left. If the goal is reached, finish now with a summary; if it cannot be reached in time, finish and say what is missing.", left)
	}
	return ""
}

// screenNow is what the core knows of the screen a call is made on (all
// empty: nothing fresh, the worker looks).
type screenNow struct {
	frame image.Image
	print Fingerprint
	tree  []byte
	app   string
	name  string
	wins  []device.Window
}

// planWork is the model call the core would make now on screen s with
// notes: it changes nothing, so a glimpse can ask what plan will.
func (l *loopState) planWork(s screenNow, notes []string) planWork {
	in := model.Input{
		Goal:      l.goal,
		History:   l.recentHistory(),
		Notes:     append([]string(nil), notes...),
		StepsLeft: l.stepsLeft(),
		Supported: l.caps.Actions,
	}
	var info *device.Info
	if l.dev.known {
		i := l.dev.info
		info = &i
	}
	return planWork{call: l.calls + 1, in: in, info: info, frame: s.frame, print: s.print, tree: s.tree,
		app: s.app, name: s.name, wins: s.wins}
}

// observe looks at the screen again without asking the model and then
// runs the queue: the steps the person edited while the run was paused are
// what runs next (issue 19: they were thrown away on Continue), checked
// against the screen as it is now (Planning.Looking's invoke looks).
func (l *loopState) observe(reason string) {
	l.to(Planning, reason)
	if l.state != Planning {
		return
	}
	l.emitPlan()
}

// currentApper is a device that can name its foreground app (adb phones);
// the model is told it (AutoGLM's current_app) and the record keeps it.
type currentApper interface {
	CurrentApp(ctx context.Context) (string, error)
}

// do is the Planning worker: look at the screen (unless the loop already
// has a fresh frame from the stability wait), then ask the model once
// (call 0: only look).
func (w planWork) do(ctx context.Context, r *Run, gen uint64) {
	res, in, err := r.observe(ctx, w)
	if err != nil {
		r.postErr(ctx, gen, err)
		return
	}
	if w.call == 0 {
		res.only = true
		res.file = r.rec.frame(ctx, res.frame)
		r.post(msgPlanned{of{gen}, res})
		return
	}
	r.askModel(ctx, w.call, in, res, tellNow)
	if ctx.Err() != nil {
		return // cancelled: the loop has moved on
	}
	res.file = r.rec.frame(ctx, res.frame)
	r.post(msgPlanned{of{gen}, res})
}

// observe looks at the screen for w: the device's size when the loop does
// not know it, a screenshot (or the fresh frame w carries; a secure screen
// is said in words), the UI tree and the app in front where the policy or
// the dialect needs them. The frame is recorded; in is w's input with the
// observation.
func (r *Run) observe(ctx context.Context, w planWork) (*planResult, model.Input, error) {
	res := &planResult{}
	in, info, frame, print, tree, app := w.in, w.info, w.frame, w.print, w.tree, w.app
	t0 := r.now()
	if info == nil {
		i, err := r.dev.Info(ctx)
		if err != nil {
			return nil, in, err
		}
		info, res.info = &i, &i
	}
	// The tree, the app and the windows start with the capture; what the
	// settled frame of the last action came with is not read again.
	n := r.needs(true)
	n.tree = n.tree && tree == nil
	n.pkg = n.pkg && (app == "" || n.name && w.name == "")
	n.name = n.name && w.name == ""
	n.wins = n.wins && w.wins == nil
	lctx, cancel := context.WithCancel(ctx)
	ahead := r.lookAhead(lctx, n)
	defer func() { // the reads end with the work, never outlive it
		cancel()
		ahead()
	}()
	if frame == nil {
		img, err := r.screenshot(ctx)
		switch {
		case errors.Is(err, device.ErrSecureScreen):
			res.obs.Secure = true
		case err != nil:
			return nil, in, err
		default:
			frame, print = img, FingerprintOf(img)
			// Its resize and encode for the model are done while the
			// reads still run, rather than after them.
			if p, ok := r.planner.(model.Preparer); ok && n.any() {
				p.Prepare(img)
			}
		}
	}
	got := ahead()
	if n.tree {
		if got.treeErr != nil && (errors.Is(got.treeErr, device.ErrGone) || ctx.Err() != nil) {
			return nil, in, got.treeErr
		}
		tree = got.tree
	}
	if n.pkg && got.pkg != "" {
		app = got.pkg // the package, for the policy's app rules
	}
	res.app = app
	if res.wins = w.wins; n.wins {
		res.wins = got.wins // a desktop's windows, for the policy
	}
	// The name the model is told (AutoGLM's current_app), when its
	// dialect says it. Best effort: a step is planned without the name
	// rather than not at all.
	res.obs.App = w.name
	if n.name {
		res.obs.App = got.name
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
	res.observeMs = r.since(t0).Milliseconds()
	in.Observation = res.obs
	return res, in, nil
}

// askModel makes model call number call and puts its reply in res. A
// failed attempt that the client retries is told to the person (and kept
// in the record) rather than left as a long silent "Thinking…", as is each
// second it waits; the model's thought streams to the UI as it comes.
func (r *Run) askModel(ctx context.Context, call int, in model.Input, res *planResult, tell func(func())) {
	pctx := model.WithRetryNotice(ctx, func(rt model.Retry) {
		tell(func() {
			if ctx.Err() == nil {
				r.rec.add(Entry{Kind: recRetry, Call: call, Error: rt.Error, Ms: rt.WaitMs})
				r.hub.emit(Event{Kind: KindRetry, Retry: &RetryEvent{Call: call, Retry: rt}})
			}
		})
	})
	pctx = model.WithWaitNotice(pctx, func(w model.Waiting) {
		tell(func() {
			if ctx.Err() == nil {
				r.hub.emit(Event{Kind: KindWaiting, Waiting: &WaitingEvent{Call: call, Waiting: w}})
			}
		})
	})
	res.plan, res.err = r.planner.Plan(pctx, in, func(delta string) {
		tell(func() {
			if ctx.Err() == nil {
				r.hub.emit(Event{Kind: KindThought, Thought: &ThoughtEvent{Call: call, Delta: delta}})
			}
		})
	})
}

// foregrounder is a device that can name the app in front (the adb driver).
type foregrounder interface {
	ForegroundApp(ctx context.Context) (pkg, activity string, err error)
}

// appNamer is a device that knows the names people give an app (the adb
// driver's table of popular apps, and the parts of a package's name).
type appNamer interface {
	AppNames(pkg string) []string
}

// windows lists a desktop's windows for the policy; nil when the device
// has none to list, cannot read them, or no rule needs them.
func (r *Run) windows(ctx context.Context) []device.Window {
	w, ok := r.dev.(device.Windows)
	if p := r.settings.Policy; !ok || p.Off || len(p.Words) == 0 && len(p.Apps) == 0 {
		return nil
	}
	wins, err := w.Windows(ctx)
	r.unread.note("windows", err)
	if err != nil {
		return nil
	}
	if wins == nil {
		wins = []device.Window{} // read: a desktop with no window
	}
	return wins
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
		r.post(msgDeviceLost{of{gen}, err})
		return
	}
	r.post(msgDeviceLost{of{gen}, &observeError{err}})
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
func (l *loopState) planned(m msgPlanned) {
	p := m.res
	if p.info != nil {
		l.dev.info, l.dev.known = *p.info, true
	}
	if p.err == nil {
		l.dev.faults = 0
	}
	if p.frame != nil {
		l.scr.frame, l.scr.print, l.scr.tree, l.scr.fresh = p.frame, p.print, p.tree, true
		l.scr.app, l.scr.name, l.scr.wins = p.app, p.obs.App, p.wins
	}
	l.record(Entry{Kind: recObserve, Call: l.calls + 1, Frame: p.file, Screen: l.dev.info.Screen,
		App: p.obs.App, Secure: p.obs.Secure, Ms: p.observeMs})
	if p.only {
		l.todo.edited = false
		l.next()
		return
	}
	if p.err != nil {
		l.modelError(p)
		return
	}
	l.calls++
	if !p.plan.Asked() {
		l.unasked++
	}
	l.usage = l.usage.Add(p.plan.Usage)
	u := p.plan.Usage
	l.call.frame, l.call.usage = p.file, &u
	l.call.salvaged, l.call.cached = p.plan.Salvaged, p.plan.Cached
	// The thought and the reply, bounded (as the record bounds any text),
	// are kept once in the record: in this line, not in the history's
	// (recordHistory). The plan events carry the bounded thought too.
	thought, raw := cut(p.plan.Thought, maxFieldBytes), cut(p.plan.Raw, maxRawBytes)
	l.call.thought = thought
	l.record(Entry{Kind: recPlan, Call: l.calls, PromptBytes: p.plan.RequestBytes, Raw: raw,
		Thought: thought, Actions: p.plan.Actions, Usage: &u, Ms: p.plan.Latency.Milliseconds(),
		Salvaged: p.plan.Salvaged, Cached: p.plan.Cached, Replayed: p.plan.Replayed, Handed: p.plan.Handed})
	l.emitUsage()
	acts, err := l.accept(p.plan.Actions)
	if err != nil {
		l.modelError(&planResult{err: &model.ParseError{Reason: err.Error(), Raw: p.plan.Raw}})
		return
	}
	l.call.retried = false
	l.notes = l.notes[min(l.notesSent, len(l.notes)):]
	l.todo.thought = thought
	l.stepCalls[len(l.history)] = l.calls
	l.history = append(l.history, model.Step{N: len(l.history) + 1, Thought: thought, Actions: append([]action.Action(nil), acts...),
		Reply: raw, App: p.obs.App, Replay: p.plan.Replay})
	l.histIdx = len(l.history) - 1
	l.recordHistory()
	l.todo.done, l.current, l.queue = nil, nil, acts
	l.next()
}

// accept checks a reply's actions: everything after the first finish or
// fail is dropped, every action must be valid on this screen and one the
// device can do.
func (l *loopState) accept(acts []action.Action) ([]action.Action, error) {
	if len(acts) == 0 {
		return nil, errors.New("the reply has no action; answer with at least one action, or finish with a summary")
	}
	caps := l.caps
	out := make([]action.Action, 0, len(acts))
	for _, a := range acts {
		if err := a.Validate(l.dev.info.Screen); err != nil {
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
		l.record(Entry{Kind: recPlan, Call: l.calls, Raw: cut(pe.Raw, maxRawBytes), Error: pe.Error()})
		if !l.call.retried && !l.settings.NoParseRetry {
			l.call.retried = true
			l.note("Your previous reply could not be used: " + pe.Reason + ". Reply again, following the required format exactly.")
			l.plan("corrective retry after a reply that could not be used")
			return
		}
		l.call.retried = false
		l.ask(Request{Kind: AskModelError, Message: "the model's reply could not be used twice in a row: " + pe.Reason,
			Cause: &Cause{Code: CauseModelUnusable, Detail: pe.Reason}})
		return
	}
	l.calls++
	l.record(Entry{Kind: recPlan, Call: l.calls, Error: p.err.Error()})
	msg := "the model call failed: " + p.err.Error()
	if errors.Is(p.err, model.ErrAuth) {
		msg += " (check the model settings)"
	}
	c := modelCause(p.err)
	if c.Code == CauseModelUnreachable {
		msg = c.String() + " (" + p.err.Error() + ")"
	}
	l.ask(Request{Kind: AskModelError, Message: msg + "; resume to try again", Cause: &c})
}
