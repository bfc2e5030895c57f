package engine

import (
	"context"
	"image"
	"time"

	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/engine/model"
)

// The loop's handlers decide; they do not do. A handler reads the run's
// state and a message and changes the state; everything it wants done in
// the world (write the record, tell the UI, answer a waiting command, start
// or cancel work on the device or the model, end the run) it appends as an
// effect. The loop performs the effects in order once the handler returns
// (Run.perform), before it answers the command and before it reads the
// next message. So the core (loopState) holds no device, model, record or
// channel of its own: what it decided is a list a test can read, and the
// guarantees are checked where the decision is made (core_test.go).

// effect is one thing the core asks the runner to do.
type effect interface{ perform(r *Run) }

// fxRecord writes an entry to the run's record.
type fxRecord struct{ e Entry }

// fxEmit tells the UI (and the snapshot) about an event.
type fxEmit struct{ e Event }

// fxGoal sets the goal the snapshot shows.
type fxGoal struct{ goal string }

// fxSteps sets the steps the snapshot shows: a resumed run's, read back
// from its record. They are not news, so no event tells them; a
// subscriber finds them in the snapshot it gets first.
type fxSteps struct{ steps []StepEvent }

// fxReply answers a command that was waiting for its outcome.
type fxReply struct {
	to  chan error
	err error
}

// fxCancel cancels the work in flight (its results, should they come,
// are of an invocation no longer running: they reach no row).
type fxCancel struct{}

// fxWork starts work off the loop under a fresh context, cancelled by the
// next fxCancel; its results carry gen, the id of the invocation
// (chart_invoke.go) it is.
type fxWork struct {
	gen uint64
	w   work
}

// fxManual starts the person's input under the run's context: nothing the
// agent does cancels it.
type fxManual struct{ w manualWork }

// fxWatch polls a lost device until it answers, telling how long the
// state's timeout still waits; gen is the invocation's id.
type fxWatch struct {
	gen   uint64
	cause error
	limit time.Duration
}

// fxUnwatch stops the device watch.
type fxUnwatch struct{}

// fxEnd ends the run: all work is cancelled and the action gate closed, so
// from here on no device action can start.
type fxEnd struct{ res Result }

// work is a piece of work the loop starts off its goroutine.
type work interface {
	do(ctx context.Context, r *Run, gen uint64)
}

// planWork observes the screen and (call > 0) asks the model once.
type planWork struct {
	call  int
	in    model.Input
	info  *device.Info
	frame image.Image
	print Fingerprint
	tree  []byte
	app   string
	name  string // the app's name, for the dialects that tell the model
	wins  []device.Window
}

// actWork performs one device action through the gate.
type actWork struct{ a action.Action }

// stableWork waits for the screen to settle after an action; look: also
// read the settled screen's tree and app, for the queue's policy check.
type stableWork struct {
	look bool
	// since is when the action began and before the screen it was made
	// on: a stream of the screen judges the settle from them
	// (streamWait).
	since  time.Time
	before Fingerprint
}

// manualWork is one input of the person (done: it already happened on the
// device, only its result is recorded).
type manualWork struct {
	a    action.Action
	done bool
	// before is the screen the run last saw, for an input already done.
	before image.Image
	// look: no input, only the screen as the person takes over, when the
	// run has not seen it yet (their first live touch is recorded on it).
	look bool
}

func (f fxRecord) perform(r *Run) { r.rec.add(f.e) }
func (f fxEmit) perform(r *Run)   { r.hub.emit(f.e) }
func (f fxGoal) perform(r *Run)   { r.hub.setGoal(f.goal) }
func (f fxSteps) perform(r *Run)  { r.hub.setSteps(f.steps) }
func (f fxReply) perform(*Run)    { f.to <- f.err }

func (fxCancel) perform(r *Run) {
	if r.workCancel != nil {
		r.workCancel()
		r.workCancel = nil
	}
}

func (f fxWork) perform(r *Run) {
	fxCancel{}.perform(r)
	ctx, cancel := context.WithCancel(r.runCtx)
	r.workCancel = cancel
	r.spawn(describeWork(f.w), func() { f.w.do(ctx, r, f.gen) })
}

func (f fxManual) perform(r *Run) {
	ctx := r.runCtx
	name := "the person's " + f.w.a.String()
	if f.w.look {
		name = "look at the screen as the person takes over"
	}
	r.spawn(name, func() { f.w.do(ctx, r) })
}

func (f fxWatch) perform(r *Run) {
	fxUnwatch{}.perform(r)
	ctx, cancel := context.WithCancel(r.runCtx)
	r.watchCancel = cancel
	r.spawn("watch the lost device", func() { r.watchDevice(ctx, f.gen, f.cause, f.limit) })
}

func (fxUnwatch) perform(r *Run) {
	if r.watchCancel != nil {
		r.watchCancel()
		r.watchCancel = nil
	}
}

func (f fxEnd) perform(r *Run) {
	fxCancel{}.perform(r)
	r.runCancel()
	r.gate.close()
	fxUnwatch{}.perform(r)
	fxStopTimer{}.perform(r)
	fxDropSpec{}.perform(r)
	r.res = f.res
}

// perform does what the core decided, in order. The snapshot is read
// between turns, never in the middle of one: a reader that sees
// WaitingForUser also sees its request, which is a later event of the
// same turn.
func (r *Run) perform(fx []effect) {
	defer r.hub.hold()()
	for _, f := range fx {
		f.perform(r)
	}
}

// spawn runs f off the loop: in a goroutine, or as an item of the run's
// scheduler (name says what it is, for its trace).
func (r *Run) spawn(name string, f func()) {
	r.wg.Add(1)
	g := func() {
		defer r.wg.Done()
		f()
	}
	if r.sched != nil {
		r.sched.spawn(r, name, g, false)
		return
	}
	go g()
}

// do performs the action. Its result always comes back, even once Stop has
// begun: what the device did is recorded whatever arrives meanwhile, and a
// run that ends waits for it (loopState.end).
func (w actWork) do(ctx context.Context, r *Run, gen uint64) {
	t0 := r.now()
	ran, err := r.gate.do(func() error {
		actx, cancel := actionContext(ctx, w.a)
		defer cancel()
		if tc, ok := r.dev.(device.TypeChecker); ok && w.a.Type == action.TypeText && !r.settings.NoTypingCheck {
			return tc.TypeChecked(actx, w.a)
		}
		return r.dev.Do(actx, w.a)
	})
	if !ran {
		// Stopped before it started: nothing reached the device.
		r.post(msgActionDone{of{gen}, &actResult{skipped: true}})
		return
	}
	r.post(msgActionDone{of{gen}, &actResult{err: err, ms: r.since(t0).Milliseconds(), at: t0}})
}

func (w stableWork) do(ctx context.Context, r *Run, gen uint64) {
	var prepare func(image.Image)
	if p, ok := r.planner.(model.Preparer); ok {
		prepare = p.Prepare
	}
	// What the step after this one needs besides the picture is read with
	// each capture that may be the settled screen (the wait says which):
	// the screen that settles is the one it describes.
	need := r.needs(!w.look)
	lctx, cancel := context.WithCancel(ctx)
	ahead := func() seen { return seen{} }
	reads := func() {
		cancel()
		lctx, cancel = context.WithCancel(ctx)
		ahead = r.lookAhead(lctx, need)
	}
	var glimpse func(image.Image)
	if !w.look && !r.settings.Stability.WaitToAsk {
		glimpse = r.glimpser(ctx, gen, func() func() seen { return ahead })
	}
	s, err := r.settle(ctx, settleHooks{reads: reads, prepare: prepare, glimpse: glimpse}, w.since, w.before)
	if err != nil || ctx.Err() != nil {
		cancel() // the reads end with the work, never outlive it
		ahead()
		r.postErr(ctx, gen, err)
		return
	}
	got := ahead()
	cancel()
	r.post(msgStable{of{gen}, &stableResult{s: s, tree: got.tree, app: got.pkg, name: got.name, wins: got.wins}})
}

// glimpser tells the loop (OnGlimpse) of a capture the model call may
// start on while the wait confirms it (speculate.go), with what the reads
// started with that capture found. reads returns the wait for the reads
// of the newest capture.
func (r *Run) glimpser(ctx context.Context, gen uint64, reads func() func() seen) func(image.Image) {
	return func(img image.Image) {
		got := reads()
		tell := func() {
			s := got()
			if ctx.Err() == nil {
				// No fingerprint: the core judges a glimpse by its frame, and
				// an adopted call takes the settled screen's (fxAdopt).
				r.post(msgGlimpse{of{gen}, &stableResult{s: Settled{Frame: img},
					tree: s.tree, app: s.pkg, name: s.name, wins: s.wins}})
			}
		}
		if r.sched != nil {
			tell() // the reads are done: they ran as they started
			return
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			tell()
		}()
	}
}

// settleHooks is what a stability wait does besides capturing: reads
// starts (again) the reads of the screen a step needs with a capture that
// may be the settled screen, prepare gets such a capture for the model.
// Either may be nil.
type settleHooks struct {
	reads   func()
	prepare func(image.Image)
	// glimpse gets the captures a model call may start on before the
	// wait settles: its first, and the candidate of a wait that followed
	// a moving screen (waitHooks.candidate).
	glimpse func(image.Image)
}

// settle waits for the screen to settle after an action that began at
// since on the screen before: judged by the stream of it when one is live
// (Config.Motion: one capture) and a capture takes longer than the
// interval (a real phone's 0.2–0.7 s: the second capture is what the
// stream saves; a faster one costs less than the stream's own pauses),
// else by captures an interval apart (also when since or before is
// unknown).
func (r *Run) settle(ctx context.Context, h settleHooks, since time.Time, before Fingerprint) (Settled, error) {
	slow := time.Duration(r.shotTook.Load()) > r.settings.Stability.withDefaults().Interval
	first := true
	offer := func(img image.Image) {
		if h.prepare != nil {
			h.prepare(img)
		}
		if first && h.glimpse != nil {
			h.glimpse(img)
		}
		first = false
	}
	if r.cfg.Motion != nil && slow && !since.IsZero() && !before.IsZero() {
		w := streamWait{clock: r.clock, shoot: r.shoot, cfg: r.settings.Stability, motion: r.cfg.Motion,
			onShoot: h.reads, onRun: offer, since: since, before: before}
		if s, ok, err := w.wait(ctx); ok {
			return s, err
		}
	}
	// Captures compared: the reads start with the first and again with
	// the first of each new run of similar frames the wait offers.
	if h.reads != nil {
		h.reads()
	}
	runs := 0
	return waitStable(ctx, r.clock, r.shoot, r.settings.Stability, waitHooks{
		run: func(img image.Image) {
			if runs++; runs > 1 && h.reads != nil {
				h.reads()
			}
			offer(img)
		},
		candidate: h.glimpse,
		unchanged: r.unchanged,
	})
}

// lookTimeout bounds the look at the screen as the person takes over.
const lookTimeout = 5 * time.Second

func (w manualWork) do(ctx context.Context, r *Run) {
	if w.look {
		res := &manualResult{look: true}
		lctx, cancel := context.WithTimeout(ctx, lookTimeout)
		defer cancel()
		var img image.Image
		if img, res.err = r.shoot(lctx); res.err == nil {
			res.s = Settled{Frame: img, Print: FingerprintOf(img)}
		}
		r.post(msgManualDone{res})
		return
	}
	a := w.a
	res := &manualResult{a: a, at: r.now()}
	var err error
	if w.done && w.before != nil {
		res.before = r.rec.frame(ctx, w.before)
	}
	if !w.done {
		var before image.Image
		if before, err = r.shoot(ctx); err == nil {
			res.before = r.rec.frame(ctx, before)
			t0 := r.now()
			var ran bool
			ran, err = r.gate.do(func() error {
				actx, cancel := actionContext(ctx, a)
				defer cancel()
				return r.personDo(actx, a)
			})
			res.ms = r.since(t0).Milliseconds()
			res.skipped = !ran
		}
	}
	if err == nil && !res.skipped {
		// The input is done; a screen that does not settle (the run ends,
		// the device goes away) leaves only the screen after it unknown:
		// the input is recorded as made, as the device made it.
		if s, serr := r.settle(ctx, settleHooks{}, time.Time{}, Fingerprint{}); serr == nil {
			res.s, res.after = s, r.rec.frame(ctx, s.Frame)
		}
	}
	res.err = err
	r.post(msgManualDone{res})
}

// watchDevice polls a lost device until it answers (the run then resumes
// by itself). Every second it says how long the state's timeout will
// still wait (at limit the timeout fails the run, its record intact).
func (r *Run) watchDevice(ctx context.Context, gen uint64, cause error, limit time.Duration) {
	start := r.now()
	told := time.Duration(0)
	for {
		if r.clock.Sleep(ctx, 250*time.Millisecond) != nil {
			return
		}
		// Giving up is Paused.DeviceAway's timeout (the chart's), not the
		// watch's: it only counts down.
		if away := r.since(start); away < limit && away-told >= time.Second {
			told = away
			r.post(msgDeviceAway{of{gen}, int((limit - away + time.Second - 1) / time.Second), cause})
		}
		actx, acancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := r.dev.Info(actx)
		acancel()
		if err == nil {
			r.post(msgDeviceBack{of{gen}})
			return
		}
	}
}
