package engine

import (
	"context"
	"image"
	"reflect"
	"sync"

	"tandem/engine/action"
	"tandem/engine/model"
)

// Planning on the first capture (issue 31). After an action the screen is
// judged settled by a second capture an interval later (stability.go); the
// model call the step then makes used to wait for it. Now the stability
// wait tells the core of its first capture (a glimpse), and when the core,
// asked what it would do were that capture the settled screen, would plan
// (no queued step, no loop, budget left), the call starts at once on it,
// while the wait goes on confirming. The call is the step's only when the
// wait settles on that capture (or one of the same pixels, as a stream's
// wait may capture again) and the core, deciding as always,
// asks for the same call (same screen, goal, history and notes): then it
// is adopted, and the time the model spent meanwhile is saved. Anything
// else (the screen moved, the person paused or spoke, the run ended)
// cancels it; nothing of a call not adopted is told, recorded or acted on,
// so the model never plans a step on a screen that was still moving.
//
// A wait that saw the screen move follows it with captures a frame
// apart, and tells the core of a candidate too: the first frame two such
// captures found still (waitHooks.candidate). A call starts on it as on a
// first capture, an interval before the wait confirms it: the model is
// asked within some 40 ms of the end of an animation, not an interval
// and a capture after it.
//
// The price is a call cancelled now and then (a screen still moving at
// its first capture, or slowing but not done at its candidate: at most two
// a step): StabilityConfig.WaitToAsk turns it off for those who pay for
// every call.

// dropped puts a cancelled early call on the record, and what it cost
// in the run's totals when it had answered: the person pays for it.
func (l *loopState) dropped(m msgDropped) {
	p := m.res
	e := Entry{Kind: recDropped}
	if u := p.plan.Usage; u != (model.Usage{}) {
		l.usage = l.usage.Add(u)
		e.Usage = &u
	}
	l.record(e)
	if e.Usage != nil {
		l.emitUsage()
	}
}

// glimpse handles the wait's first capture after an action: the call the
// step would make on it starts now (fxSpeculate) when the core would plan
// on it.
func (l *loopState) glimpse(m msgGlimpse) {
	res := m.res
	if l.settings.Stability.WaitToAsk || l.state != WaitingForStability || l.current == nil {
		return
	}
	// Would the loop detector speak up? Asked of a copy: only the settled
	// screen is observed.
	d := l.loops
	changed := screenChanged(l.before.frame, res.s.Frame, l.before.tree, res.tree)
	if v, _ := d.observe(*l.current, l.before.print, changed, l.settings.Stability.Threshold); v != loopNone {
		return
	}
	// What runs next, were this the settled screen: only a model call is
	// started early (not a queued action, the person, or the end).
	var head *action.Action
	if len(l.queue) > 0 {
		head = &l.queue[0]
	}
	if l.after(head, false).move != movePlan {
		return
	}
	notes := l.notes
	if r := l.reminder(); r != "" {
		notes = append(append([]string(nil), notes...), r)
	}
	s := res.s
	w := l.planWork(screenNow{frame: s.Frame, print: s.Print, tree: res.tree, app: res.app, name: res.name, wins: res.wins}, notes)
	l.dropSpec()
	l.spec = &w
	l.out(fxSpeculate{w})
}

// dropSpec cancels the call started on a glimpse, if any.
func (l *loopState) dropSpec() {
	if l.spec != nil {
		l.spec = nil
		l.out(fxDropSpec{})
	}
}

// sameWork reports whether two model calls would ask the same: the same
// screen (the same capture, or one of the same pixels), reads, input and
// device.
func sameWork(a, b planWork) bool {
	return a.call == b.call && a.frame != nil && sameFrame(a.frame, b.frame) &&
		string(a.tree) == string(b.tree) && (a.tree == nil) == (b.tree == nil) &&
		a.app == b.app && a.name == b.name && reflect.DeepEqual(a.wins, b.wins) &&
		reflect.DeepEqual(a.in, b.in) && reflect.DeepEqual(a.info, b.info)
}

// fxSpeculate starts w's model call before the core asked for it.
type fxSpeculate struct{ w planWork }

// fxDropSpec cancels the call fxSpeculate started.
type fxDropSpec struct{}

// fxAdopt makes the call started on a glimpse the work of invocation gen
// (Planning.Asking's), whose result comes back as that invocation's (w: the call the core asks for,
// made afresh should the early one have failed to start).
type fxAdopt struct {
	gen uint64
	w   planWork
}

// specRun is a call started on a glimpse. Until adopted, what it would
// tell (the model's thought as it streams, a retry) is held, and its
// result too; adopted, the holds are let go in order.
type specRun struct {
	cancel context.CancelFunc

	mu      sync.Mutex
	dropped bool
	adopted bool
	gen     uint64
	actx    context.Context // the adopting work's context
	held    []func()
	done    bool
	err     error // it could not look at its screen: the adopted work's failure
	res     *planResult
	print   Fingerprint // the settled screen's, from the adopting work
}

func (f fxSpeculate) perform(r *Run) {
	fxDropSpec{}.perform(r)
	ctx, cancel := context.WithCancel(r.runCtx)
	s := &specRun{cancel: cancel}
	r.spec = s
	r.spawn("plan on the first capture", func() { s.run(ctx, r, f.w) })
}

func (fxDropSpec) perform(r *Run) {
	if r.spec != nil {
		r.spec.drop(r)
		r.spec = nil
	}
}

// drop cancels the call; the loop hears of it (OnDropped: the record
// keeps it, with its cost when it had answered) from whichever of drop and
// run comes second.
func (s *specRun) drop(r *Run) {
	s.mu.Lock()
	s.dropped = true
	done, res := s.done, s.res
	s.mu.Unlock()
	s.cancel()
	if done && res != nil {
		r.spawn("the dropped call's cost", func() { r.post(msgDropped{res}) })
	}
}

func (f fxAdopt) perform(r *Run) {
	s := r.spec
	r.spec = nil
	if s == nil {
		fxWork{f.gen, f.w}.perform(r)
		return
	}
	fxCancel{}.perform(r)
	ctx, cancel := context.WithCancel(r.runCtx)
	// Cancelling the work cancels the adopted call at once, in the same
	// turn (context.AfterFunc would do it from a goroutine of its own, a
	// moment later: on the scheduler the call could still begin after a
	// take over; sim seed 26193).
	r.workCancel = func() { cancel(); s.cancel() }
	s.mu.Lock()
	s.adopted, s.gen, s.actx, s.print = true, f.gen, ctx, f.w.print
	held := s.held
	s.held = nil
	for _, h := range held {
		h()
	}
	done := s.done
	s.mu.Unlock()
	if done {
		r.spawn("the early plan's result", func() { s.post(r) })
	}
}

// tell does f now once adopted, else holds it.
func (s *specRun) tell(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.adopted {
		f()
		return
	}
	s.held = append(s.held, f)
}

// run looks (from what the glimpse brought) and asks the model.
func (s *specRun) run(ctx context.Context, r *Run, w planWork) {
	res, in, err := r.observe(ctx, w)
	if err == nil {
		r.askModel(ctx, w.call, in, res, s.tell)
	}
	s.mu.Lock()
	if s.dropped {
		s.mu.Unlock()
		if res != nil {
			r.post(msgDropped{res})
		}
		return
	}
	if ctx.Err() != nil {
		s.mu.Unlock()
		return // the adopting work was cancelled, as any work may be
	}
	s.done, s.res, s.err = true, res, err
	adopted := s.adopted
	s.mu.Unlock()
	if adopted {
		s.post(r)
	}
}

// post hands the adopted call's result to the loop as its work's.
func (s *specRun) post(r *Run) {
	s.mu.Lock()
	res, err, ctx, gen := s.res, s.err, s.actx, s.gen
	s.mu.Unlock()
	if err != nil {
		r.postErr(ctx, gen, err)
		return
	}
	if ctx.Err() != nil {
		return
	}
	res.print = s.print
	res.file = r.rec.frame(ctx, res.frame)
	r.post(msgPlanned{of{gen}, res})
}

// tellNow is how askModel tells what a call the core asked for says as it
// goes: at once.
func tellNow(f func()) { f() }

// sameFrame reports whether a and b are the same capture, or captures of
// the same pixels (a stream's wait may capture the settled screen again).
func sameFrame(a, b image.Image) bool {
	return sameCapture(a, b) || samePixels(a, b)
}

// sameCapture reports whether a and b are the very same capture.
func sameCapture(a, b image.Image) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if !va.IsValid() || !vb.IsValid() || va.Type() != vb.Type() {
		return false
	}
	if va.Comparable() {
		return a == b
	}
	return reflect.DeepEqual(a, b)
}
