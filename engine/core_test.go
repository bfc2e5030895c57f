package engine

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/engine/model"
)

// The core alone (effects.go): no device, no model, no goroutine. The test
// plays the runner and the person, at random but from a seed: it starts
// each run, answers the work the core starts with results of the right
// generation (replies with several actions, "Pay" anywhere in them, trees
// and apps that could not be read, lost devices), and sends the person's
// commands at any moment. After every message it checks, on the effects the
// core returned, what the person is promised:
//
//   - a sensitive action runs only from a Confirm of that very action: a tap
//     on "Pay ¥99" (by where it is on the screen, whatever the tree said) or
//     any action while the shop is in front or the app in front is unknown;
//   - the work in flight is the work of the state (Planning looks or asks
//     the model, Executing acts, WaitingForStability waits; Paused, Manual,
//     WaitingForUser and the end have none), and the person's input runs in
//     Manual only;
//   - a refused command changes nothing: no effect, the same state;
//   - nothing is started after the run's end;
//   - what the device did is on the record, whatever arrives meanwhile: the
//     work of an action on its way (or of the person's input) is never
//     cancelled nor the run ended before its result is in, and a result
//     that comes in, Stop pressed or not, is recorded as a step at once;
//   - a model call started on the first capture after an action lives only
//     while the run waits for that screen, and is the step's only when the
//     wait settled on that very capture and the core asks for the same
//     call (core_spec_test.go);
//   - the record, cut at a random message and at the end and read back
//     through JSON, restores what the run had done (steps, calls, cost,
//     goal, history with the person's steps), as a resume reads it.

var coreRuns = flag.Int("core-runs", 3000, "random runs of the core (TestCoreKeepsThePromises)")

var (
	coreScreen = action.Size{W: 1080, H: 2400}
	payBounds  = image.Rect(700, 2200, 1000, 2300)
	addBounds  = image.Rect(100, 100, 500, 200)
	coreTree   = []byte(`<hierarchy><node text="Add one" bounds="[100,100][500,200]" /><node text="Pay ¥99" bounds="[700,2200][1000,2300]" /></hierarchy>`)
)

const (
	shopPkg  = "com.tandem.shop"
	otherPkg = "com.tandem.notes"
)

func coreEnvForTest() coreEnv {
	s := Settings{UITree: true, Policy: Policy{Words: []string{"pay"}, Apps: []string{"Shop"}}}.withDefaults()
	return coreEnv{
		settings: s,
		clock:    wallClock{}, // the core only reads it
		caps:     device.Capabilities{Actions: []action.Type{action.Tap, action.TypeText, action.Swipe, action.Key, action.Wait}},
		hasTree:  true,
		hasApp:   true,
		appNames: func(pkg string) []string {
			if pkg == shopPkg {
				return []string{"Shop", "商店"}
			}
			return nil
		},
	}
}

// coreRig is the runner and the person around one core.
type coreRig struct {
	l      *loopState
	rng    *rand.Rand
	live   work // the work in flight, as the runner would hold it
	gen    uint64
	manual *manualWork
	watch  *fxWatch
	app    string // the app in front as last reported to the core ("": unknown)
	ended  bool
	asked  *action.Action // the action the open confirmation is about
	trace  []string
	// confirmed counts the actions a Confirm ran, sensitive or not.
	confirmed int
	records   []Entry // what the core wrote to the record, in order
	// made are the person's inputs the core took and has not recorded yet.
	made []madeInput
	// stopped: the person's Stop has reached the core (the runner's gate
	// is closed: work not started yet will not reach the device).
	stopped bool
	// afterStop counts the actions whose result came in after Stop.
	afterStop int
	coreSpec
}

func (c *coreRig) logf(format string, args ...any) {
	c.trace = append(c.trace, fmt.Sprintf(format, args...))
}

func sensitiveTruth(a action.Action, app string) bool {
	if a.Type.Pointed() && image.Pt(a.X, a.Y).In(payBounds) {
		return true
	}
	return app != otherPkg
}

// send hands m to the core as the loop does and checks the effects.
func (c *coreRig) send(m message) error {
	l := c.l
	if !m.on.IsCommand() && m.on != OnManualDone && m.on != OnDropped && m.gen != l.gen {
		return nil // dropped, as the loop drops results of cancelled work
	}
	if m.on.IsCommand() {
		m.reply = make(chan error, 2)
	}
	var acted *action.Action // the action whose result this is
	if a, ok := c.live.(actWork); ok && m.on == OnActionDone && m.gen == c.gen {
		acted = &a.a
	}
	c.noteResult(m)
	before := l.state
	l.on = m.on
	err := l.turn(m)
	fx := l.take()
	c.logf("%s in %s -> %s (err %v) fx %s", m.on, before, l.state, err, describeFx(fx))
	if err := checkDropped(m, before, l.state, fx); err != nil {
		return err
	}
	if err != nil {
		if len(fx) > 0 || l.state != before {
			return fmt.Errorf("the refused %s changed the run: %s -> %s, effects %s", m.on, before, l.state, describeFx(fx))
		}
		if _, ok := lookup(before, m.on); !ok && !errors.As(err, new(*IllegalError)) && !errors.Is(err, ErrFinished) {
			return fmt.Errorf("%s in %s is not a move of the table but was refused with %v, not an IllegalError", m.on, before, err)
		}
	}
	if m.on == OnManualInput && err == nil {
		c.made = append(c.made, madeInput{m.act, m.done})
	}
	if err := c.apply(m, fx); err != nil {
		return err
	}
	if m.on == OnConfirm && err == nil {
		c.asked = nil
	}
	if m.on == OnStop && err == nil {
		c.stopped = true
	}
	if acted != nil && !m.acted.skipped && !recordsAction(fx, *acted) {
		return fmt.Errorf("the device did %s, but its result was not recorded as a step (stopped: %v)", *acted, c.stopped)
	}
	if acted != nil && c.stopped && !m.acted.skipped {
		c.afterStop++
	}
	return c.checkWork()
}

// apply follows the effects as the runner would, checking each.
func (c *coreRig) apply(m message, fx []effect) error {
	l := c.l
	ending := slices.ContainsFunc(fx, func(f effect) bool { _, ok := f.(fxEnd); return ok })
	for _, f := range fx {
		switch f := f.(type) {
		case fxCancel:
			if a, ok := c.live.(actWork); ok {
				return fmt.Errorf("the work of %s, on its way to the device, was cancelled: its result would be dropped", a.a)
			}
			c.live = nil
		case fxEnd:
			if err := c.checkEnd(); err != nil {
				return err
			}
			c.live, c.ended, c.made = nil, true, nil
		case fxWork:
			if c.ended {
				return fmt.Errorf("%T started after the end", f.w)
			}
			if a, ok := f.w.(actWork); ok && sensitiveTruth(a.a, c.app) {
				if m.on != OnConfirm {
					return fmt.Errorf("%s runs unconfirmed (app in front %q) on %s", a.a, c.app, m.on)
				}
			}
			if a, ok := f.w.(actWork); ok && m.on == OnConfirm {
				if c.asked == nil || !sameAction(*c.asked, a.a) {
					return fmt.Errorf("Confirm ran %s, the person was asked about %v", a.a, c.asked)
				}
				c.confirmed++
			}
			c.live, c.gen, c.glimpsed = f.w, f.gen, nil
		case fxSpeculate, fxDropSpec, fxAdopt:
			if err := c.applySpec(m, f); err != nil {
				return err
			}
		case fxManual:
			if l.state != Manual || c.ended {
				return fmt.Errorf("the person's input starts in %s", l.state)
			}
			if c.manual != nil {
				return fmt.Errorf("the person's input %v starts while %v still runs", f.w.a, c.manual.a)
			}
			w := f.w
			c.manual = &w
		case fxWatch:
			w := f
			c.watch = &w
		case fxUnwatch:
			c.watch = nil
		case fxEmit:
			if f.e.Kind == KindRequest && f.e.Request != nil {
				c.asked = f.e.Request.Action
			}
		case fxRecord:
			c.records = append(c.records, f.e)
			if err := c.checkMade(f.e, ending); err != nil {
				return err
			}
		default: // replies and the goal change nothing here
		}
	}
	return nil
}

// checkEnd: the run ends with nothing on its way to the device, and every
// live touch of the person's on the record.
func (c *coreRig) checkEnd() error {
	if a, ok := c.live.(actWork); ok {
		return fmt.Errorf("the run ended with %s on its way to the device: its result can no longer be recorded", a.a)
	}
	if c.manual != nil && !c.manual.look {
		return fmt.Errorf("the run ended with the person's %s on its way to the device: its result can no longer be recorded", c.manual.a)
	}
	for _, in := range c.made {
		if in.done {
			return fmt.Errorf("the run ended without recording the person's live touch %s, which reached the device", in.a)
		}
	}
	return nil
}

// madeInput is an input the person made; done: a live touch, already on
// the device.
type madeInput struct {
	a    action.Action
	done bool
}

// checkMade: every input the person made is recorded once, in the order
// they made it, before their hand back; as the run ends, the inputs still
// waiting their turn are not made, but the live touches among them are on
// the device already and are recorded.
func (c *coreRig) checkMade(e Entry, ending bool) error {
	switch {
	case e.Kind == recManual:
		i := slices.IndexFunc(c.made, func(in madeInput) bool { return sameAction(in.a, *e.Action) })
		skipped := c.made[:max(i, 0)]
		if i < 0 || len(skipped) > 0 && (!ending || slices.ContainsFunc(skipped, func(in madeInput) bool { return in.done })) {
			return fmt.Errorf("recorded the person's %v, but the next input they made is %v", *e.Action, c.made)
		}
		c.made = c.made[i+1:]
	case e.Kind == recPerson && e.Command == "hand_back" && len(c.made) > 0:
		return fmt.Errorf("handed back before the person's %v were recorded", c.made)
	}
	return nil
}

// checkWork: the work in flight is the work of the state.
func (c *coreRig) checkWork() error {
	l := c.l
	var want string
	switch l.state {
	case Planning:
		want = "planWork"
	case Executing:
		want = "actWork"
	case WaitingForStability:
		want = "stableWork"
	case Idle, WaitingForUser, Paused, Manual, Done, Failed, Stopped:
		// no work
	}
	if got := workName(c.live); got != want {
		return fmt.Errorf("in %s the work in flight is %q, want %q", l.state, got, want)
	}
	if err := c.checkSpec(); err != nil {
		return err
	}
	if l.state.Terminal() {
		c.ended = true
	}
	return nil
}

// recordsAction reports whether fx record a step of a.
func recordsAction(fx []effect, a action.Action) bool {
	for _, f := range fx {
		if r, ok := f.(fxRecord); ok && r.e.Kind == recAction && r.e.Action != nil && sameAction(*r.e.Action, a) {
			return true
		}
	}
	return false
}

func workName(w work) string {
	if w == nil {
		return ""
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", w), "engine.")
}

func describeFx(fx []effect) string {
	parts := make([]string, 0, len(fx))
	for _, f := range fx {
		switch f := f.(type) {
		case fxWork:
			parts = append(parts, fmt.Sprintf("work(%d,%s)", f.gen, workName(f.w)))
		case fxEmit:
			parts = append(parts, "emit("+string(f.e.Kind)+")")
		case fxRecord:
			parts = append(parts, "record("+string(f.e.Kind)+")")
		default:
			parts = append(parts, strings.TrimPrefix(fmt.Sprintf("%T", f), "engine."))
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// result finishes the work in flight.
func (c *coreRig) result() message {
	gen := c.gen
	switch w := c.live.(type) {
	case planWork:
		p := &planResult{only: w.call == 0}
		if w.info == nil {
			p.info = &device.Info{Screen: coreScreen}
		}
		if c.rng.IntN(12) == 0 {
			return message{on: OnDeviceLost, gen: gen, err: device.ErrGone}
		}
		p.frame = w.frame
		p.tree, p.app = w.tree, w.app
		if p.frame == nil || p.tree == nil || p.app == "" {
			p.frame = c.frame()
			p.tree, p.app = c.look()
		}
		p.print = FingerprintOf(p.frame)
		p.obs = model.Observation{Screen: coreScreen}
		if !p.only {
			switch c.rng.IntN(10) {
			case 0:
				p.err = errors.New("the model is unreachable")
			case 1:
				p.err = &model.ParseError{Reason: "garbage", Raw: "??"}
			default:
				p.plan.Usage = model.Usage{PromptTokens: 1000 + c.rng.IntN(500), CompletionTokens: c.rng.IntN(90), Cost: 0.001}
				n := 1 + c.rng.IntN(4)
				for range n {
					p.plan.Actions = append(p.plan.Actions, c.randomAction())
				}
			}
		}
		return message{on: OnPlanned, gen: gen, planned: p}
	case actWork:
		res := &actResult{}
		if c.stopped && c.rng.IntN(2) == 0 {
			res.skipped = true // the gate closed before it started
			return message{on: OnActionDone, gen: gen, acted: res}
		}
		switch c.rng.IntN(15) {
		case 0:
			res.err = device.ErrGone
		case 1:
			res.err = errors.New("input failed")
		default:
		}
		return message{on: OnActionDone, gen: gen, acted: res}
	case stableWork:
		if m, ok := c.glimpse(w, gen); ok {
			return m
		}
		f := c.frame()
		res := &stableResult{s: Settled{Frame: f, Print: FingerprintOf(f), Stable: true}}
		if w.look {
			res.tree, res.app = c.look()
		} else {
			c.app = "" // not read: unknown to the core
		}
		return message{on: OnStable, gen: gen, settled: res}
	default:
		return message{}
	}
}

// command is something the person does now.
func (c *coreRig) command() message {
	if _, ok := c.live.(actWork); ok && c.rng.IntN(6) == 0 {
		return message{on: OnStop} // while the action is on its way
	}
	switch c.rng.IntN(14) {
	case 0:
		return message{on: OnPause}
	case 1:
		return message{on: OnResume}
	case 2:
		return message{on: OnTakeOver}
	case 3:
		a := c.randomAction()
		if !a.Type.Pointed() {
			a = action.Action{Type: action.Tap, X: 300, Y: 150}
		}
		// a live touch (already on the phone) or an input to make
		return message{on: OnManualInput, act: a, done: c.rng.IntN(2) == 0}
	case 4:
		return message{on: OnHandBack, text: "did it", region: &Region{X1: 100, Y1: 100, X2: 500, Y2: 200}}
	case 5:
		if c.rng.IntN(6) == 0 {
			return message{on: OnStop}
		}
		return message{on: OnConfirm}
	case 6:
		return message{on: OnStopGracefully, n: c.rng.IntN(3)}
	case 7, 8:
		return message{on: OnConfirm}
	case 9:
		return message{on: OnDeny, text: "not now"}
	case 10:
		return message{on: OnAnswer, text: "the first"}
	case 11:
		return message{on: OnEditGoal, text: "买一个"}
	case 12:
		return message{on: OnEditPending, actions: []action.Action{c.randomAction(), c.randomAction()}}
	default:
		return message{on: OnStart}
	}
}

// other is what else may arrive: the person's input settling, the device
// coming back or staying away.
func (c *coreRig) other() (message, bool) {
	if m, ok := c.droppedCall(); ok {
		return m, true
	}
	if c.manual != nil {
		w := *c.manual
		c.manual = nil
		if c.stopped && !w.look && !w.done && c.rng.IntN(2) == 0 {
			// the gate closed before it started
			return message{on: OnManualDone, manual: &manualResult{a: w.a, skipped: true}}, true
		}
		f := c.frame()
		c.app = ""
		return message{on: OnManualDone, manual: &manualResult{look: w.look, a: w.a, s: Settled{Frame: f, Print: FingerprintOf(f), Stable: true}}}, true
	}
	if c.watch != nil {
		w := *c.watch
		if c.rng.IntN(3) == 0 {
			c.watch = nil
			return message{on: OnDeviceBack, gen: w.gen}, true
		}
		return message{on: OnDeviceAway, gen: w.gen, n: c.rng.IntN(3), err: w.cause}, true
	}
	return message{}, false
}

func runCore(seed uint64) (*coreRig, error) {
	const goal = "buy the cheapest one"
	c := &coreRig{l: newCore(coreEnvForTest(), goal), rng: rand.New(rand.NewPCG(seed, 19))}
	c.records = []Entry{{Kind: recStart, Goal: goal}} // as New writes it
	if err := c.send(message{on: OnStart}); err != nil {
		return c, err
	}
	cut := c.rng.IntN(150)
	for i := 0; i < 150 && !c.ended; i++ {
		if i == cut {
			if err := c.checkReplay(); err != nil {
				return c, err
			}
		}
		var m message
		switch k := c.rng.IntN(10); {
		case k < 5 && c.live != nil:
			m = c.result()
		case k < 7:
			var ok bool
			if m, ok = c.other(); !ok {
				m = c.command()
			}
		default:
			m = c.command()
		}
		if err := c.send(m); err != nil {
			return c, err
		}
	}
	return c, c.checkReplay()
}

// checkReplay: a run interrupted now resumes from its record (through
// JSON, as it is on disk) with what it had done: its steps, model calls,
// cost, goal and history, the person's steps with their notes and regions.
func (c *coreRig) checkReplay() error {
	b, err := json.Marshal(c.records)
	if err != nil {
		return err
	}
	var entries []Entry
	if err := json.Unmarshal(b, &entries); err != nil {
		return err
	}
	r := newCore(coreEnvForTest(), "")
	r.restore(entries)
	l := c.l
	type progress struct {
		Steps, Calls int
		Usage        model.Usage
		Goal         string
		History      []model.Step
	}
	got := progress{r.steps, r.calls, r.usage, r.goal, r.history}
	want := progress{l.steps, l.calls, l.usage, l.goal, l.history}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if string(gj) != string(wj) {
		return fmt.Errorf("the record restores\n%s\nthe run had\n%s", gj, wj)
	}
	return nil
}

func TestCoreKeepsThePromises(t *testing.T) {
	runs := *coreRuns
	if testing.Short() {
		runs /= 10
	}
	ends := map[State]int{}
	confirmed, afterStop, adopted := 0, 0, 0
	for seed := range uint64(runs) {
		c, err := runCore(seed)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, strings.Join(c.trace, "\n"))
		}
		ends[c.l.state]++
		confirmed += c.confirmed
		afterStop += c.afterStop
		adopted += c.adopted
	}
	// The runs must reach what they check: confirmations that run, actions
	// that land after Stop, and runs that end every way.
	if confirmed < runs/10 || afterStop < runs/200 || adopted < runs/100 || ends[Done] == 0 || ends[Stopped] == 0 || ends[Failed] == 0 {
		t.Errorf("the random runs do not reach the checks: %d confirmations run, %d actions landed after Stop, %d early calls adopted, ends %v", confirmed, afterStop, adopted, ends)
	}
	t.Logf("%d runs: %d confirmations run, %d actions landed after Stop, %d early calls adopted, ends %v", runs, confirmed, afterStop, adopted, ends)
}
