package sim

import (
	"fmt"
	"image"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"tandem/engine"
	"tandem/engine/action"
	"tandem/engine/model"
)

// checker holds what the invariants need to know and the violations found.
// The phone, the model, the person and the run's events all report to it.
//
// Everything runs on the scheduler's one goroutine; the atomics and the
// lock only keep the checks honest should that change.
type checker struct {
	run atomic.Pointer[engine.Run]
	// plant is a fault planted for the simulation's own tests: an action
	// that reaches the phone while a command of the person's is on its way
	// (inCmd) counts as a violation. Whether that happens is a matter of
	// interleaving alone, which a seed must decide.
	plant bool
	inCmd bool

	stopReturned atomic.Bool // the person's Stop returned
	ended        atomic.Bool // the run announced a terminal state
	checks       atomic.Int64
	ledger       ledger // what the phone did and what each run says it did

	mu         sync.Mutex
	violations []string
	trace      []string
	confirmed  *action.Action // the action the person just confirmed
	graceN     int            // the n of the StopGracefully on its way
	grace      bool           // a graceful stop is in force
	graceLeft  int            // device actions it still allows
	expect     *action.Action // what the person's edit says runs next
	pending    bool           // the edit has not returned yet: accepted or refused is not known
	armed      bool           // the run announced the edit: from now the next action must be it
	ranFirst   *action.Action // the first action that began after the run announced the edit
	handBack   *handBack      // what the next model call must be told of the person's hand back
	hbPending  bool           // HandBack has not returned yet
	hbCall     *model.Input   // the first live model call while it was pending
	hbSeq      atomic.Int64   // counts hand backs: a model call started before the last one is not judged
	agentActs  int
	started    bool // the action of the current Executing has started
	// underWay: the run took the edit in Executing before that state's
	// action reached the phone; the action is on its way and atomic, so it
	// is not the "next" one the edit is judged by.
	underWay bool
}

func (c *checker) fail(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.violations = append(c.violations, fmt.Sprintf(format, args...))
}

func (c *checker) log(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.trace = append(c.trace, fmt.Sprintf(format, args...))
}

func (c *checker) check(ok bool, format string, args ...any) {
	c.checks.Add(1)
	if !ok {
		c.fail(format, args...)
	}
}

// action is called as a device action starts (invariants 1, 2 and 5, and
// "stop after this step").
func (c *checker) action(a action.Action, sensitive, person bool) {
	state := engine.Idle
	if r := c.run.Load(); r != nil {
		state = r.State()
	}
	c.log("device: %s (state %s, person %v)", a, state, person)
	c.check(!c.plant || !c.inCmd, "planted: %s reached the phone while a command of the person's was on its way", a)
	c.check(!c.stopReturned.Load(), "invariant 1: %s started after Stop returned", a)
	if person {
		c.check(state == engine.Manual, "invariant 1: the person's %s ran in %s", a, state)
		return
	}
	c.check(state == engine.Executing, "invariant 1: %s ran in %s", a, state)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.agentActs++
	c.started = true
	if sensitive {
		ok := c.confirmed != nil && reflect.DeepEqual(*c.confirmed, a)
		c.checks.Add(1)
		if !ok {
			c.violations = append(c.violations, fmt.Sprintf("invariant 2: sensitive %s ran unconfirmed", a))
		}
	}
	c.confirmed = nil
	if c.grace {
		c.checks.Add(1)
		if c.graceLeft <= 0 {
			c.violations = append(c.violations, fmt.Sprintf("stop after this step: %s ran past the graceful stop", a))
		}
		c.graceLeft--
	}
	if c.expect != nil && c.underWay {
		c.underWay = false
	} else if c.expect != nil {
		if c.pending {
			// Judged once the edit returns (a refused edit expects
			// nothing); an action that began before the run took the edit
			// (the atomic action under way) is not the next one.
			if c.armed && c.ranFirst == nil {
				c.ranFirst = &a
			}
			return
		}
		c.judgeEditLocked(a)
	}
}

// judgeEditLocked checks that a is the person's edited step; c.mu is held.
func (c *checker) judgeEditLocked(a action.Action) {
	c.checks.Add(1)
	if !reflect.DeepEqual(*c.expect, a) {
		c.violations = append(c.violations, fmt.Sprintf("invariant 5: the person's edited step %s did not run next; %s did", *c.expect, a))
	}
	c.expect = nil
}

// editReturned settles an edit made while actions may already run:
// accepted, the first action that ran meanwhile (if any) must be the edited
// one; refused, nothing is expected.
func (c *checker) editReturned(accepted bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	first := c.ranFirst
	c.pending, c.armed, c.ranFirst = false, false, nil
	switch {
	case !accepted:
		c.expect = nil
	case first != nil && c.expect != nil:
		c.judgeEditLocked(*first)
	}
}

// landed is called when an action takes effect on the phone.
func (c *checker) landed(a action.Action, person bool) {
	c.check(!c.ended.Load(), "stopped means stopped: %s reached the phone after the run announced its end", a)
	c.ledger.landed(a, person)
}

// notTheRuns takes back the person's live touch the run refused: the
// phone has it, but as the person's own, with no run.
func (c *checker) notTheRuns(a action.Action) { c.ledger.unland(a) }

// failed reports whether an invariant broke already.
func (c *checker) failed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.violations) > 0
}

// Emit watches the run's events.
func (c *checker) Emit(e engine.Event) {
	switch e.Kind {
	case engine.KindState:
		s := e.State
		if s.State.Terminal() {
			c.ended.Store(true)
		}
		if s.State == engine.Executing && s.From != engine.Executing {
			c.mu.Lock()
			c.started = false
			c.mu.Unlock()
		}
		c.log("state: %s -> %s (%s) %s", s.From, s.State, s.By, s.Reason)
		if s.By == "edit_pending" {
			c.mu.Lock()
			c.armed = c.pending
			c.underWay = s.State == engine.Executing && !c.started
			c.mu.Unlock()
		}
		if s.By == "stop_gracefully" && !s.State.Terminal() {
			c.mu.Lock()
			// The step under way is one of the n; an atomic action already
			// asked for runs even with n = 0.
			left := c.graceN
			switch s.State {
			case engine.Executing:
				left = max(left, 1)
				if c.started {
					left--
				}
			case engine.WaitingForStability:
				left = max(left-1, 0)
			case engine.Idle, engine.Planning, engine.WaitingForUser, engine.Paused, engine.Manual,
				engine.Done, engine.Failed, engine.Stopped:
				// no step under way
			}
			c.grace, c.graceLeft = true, left
			c.mu.Unlock()
		}
	case engine.KindRequest:
		c.log("request: %s %s", e.Request.Kind, e.Request.Message)
	case engine.KindStep:
		c.ledger.step(*e.Step)
	case engine.KindSnapshot, engine.KindPlan, engine.KindThought, engine.KindRetry, engine.KindWaiting,
		engine.KindManual, engine.KindUsage, engine.KindDone, engine.KindPerson:
		// the checks read the states, requests and steps
	}
}

// handBack is what the person said when handing back.
type handBack struct {
	note   string
	region engine.Region
}

// expectHandBack expects the next model call to carry the person's hand
// back (invariant 4), pending until handBackReturned says whether it was
// accepted (the loop starts that call before HandBack returns).
func (c *checker) expectHandBack(h *handBack) {
	c.mu.Lock()
	c.hbSeq.Add(1) // under mu: modelCall compares and reads the expectation in one step
	c.handBack, c.hbPending, c.hbCall = h, true, nil
	c.mu.Unlock()
}

// handBackReturned settles the expectation: refused, nothing is expected;
// accepted, a call made meanwhile is judged now.
func (c *checker) handBackReturned(accepted bool) {
	c.mu.Lock()
	h, in := c.handBack, c.hbCall
	c.hbPending, c.hbCall = false, nil
	if !accepted {
		c.handBack = nil
		c.mu.Unlock()
		return
	}
	if in != nil {
		c.handBack = nil
	}
	c.mu.Unlock()
	if in != nil && h != nil {
		c.log("judging the model call made while HandBack was on its way")
		c.judgeHandBack(h, *in)
	}
}

// modelCall checks a model call's input against the person's last hand
// back (invariant 4). seq is hbSeq when the call began: a call that began
// before the hand back (cancelled by the take over, but already past its
// own check) carries what it was told then. The comparison and the read of
// the expectation are one step under mu: compared first and read after, a
// hand back in between made such a stale call look like the one after it
// (3 runs in 200,000, seed 4781 first; the engine was right).
func (c *checker) modelCall(in model.Input, seq int64) {
	c.mu.Lock()
	if seq != c.hbSeq.Load() {
		c.mu.Unlock()
		return
	}
	h := c.handBack
	if h != nil && c.hbPending {
		if c.hbCall == nil {
			c.hbCall = &in
		}
		c.mu.Unlock()
		return
	}
	c.handBack = nil
	c.mu.Unlock()
	if h != nil {
		c.judgeHandBack(h, in)
	}
}

// judgeHandBack: the history's last step is the person's, with their note
// and region, and a note tells the model they handed control back.
func (c *checker) judgeHandBack(h *handBack, in model.Input) {
	c.checks.Add(1)
	if len(in.History) == 0 {
		c.fail("invariant 4: after the person handed back, the model was told no history")
		return
	}
	last := in.History[len(in.History)-1]
	want := image.Rect(h.region.X1, h.region.Y1, h.region.X2, h.region.Y2)
	if !last.ByPerson || last.Note != h.note || last.Region == nil || *last.Region != want {
		ns := make([]int, 0, len(in.History))
		for _, st := range in.History {
			ns = append(ns, st.N)
		}
		c.fail("invariant 4: the step after the hand back is not the person's with their note %q and region %v: %+v (history steps %v)", h.note, want, last, ns)
	}
	told := false
	for _, n := range in.Notes {
		told = told || strings.Contains(n, "handed control back")
	}
	if !told {
		c.fail("invariant 4: the model was not told the person handed control back (notes %q)", in.Notes)
	}
}

// clearExpect forgets an edit's expectation (another command came after it).
func (c *checker) setExpect(a *action.Action) {
	c.mu.Lock()
	c.expect, c.pending, c.armed, c.ranFirst, c.underWay = a, false, false, nil, false
	c.mu.Unlock()
}

// expectEdit expects a, pending until editReturned says whether the edit
// was accepted.
func (c *checker) expectEdit(a *action.Action) {
	c.mu.Lock()
	c.expect, c.pending, c.armed, c.ranFirst, c.underWay = a, true, false, nil, false
	c.mu.Unlock()
}

// resumed starts over with a run resumed after a crash: what the crashed
// run was expected to do (a confirmation, an edit, a hand back, a graceful
// stop) went with it; the resumed run starts from its record.
func (c *checker) resumed(r *engine.Run, kept int) {
	c.ledger.begin(r, kept)
	c.mu.Lock()
	c.hbSeq.Add(1)
	c.confirmed, c.expect, c.pending, c.armed, c.ranFirst, c.underWay = nil, nil, false, false, nil, false
	c.handBack, c.hbPending, c.hbCall = nil, false, nil
	c.grace, c.graceLeft, c.graceN, c.started = false, 0, 0, false
	c.mu.Unlock()
	c.stopReturned.Store(false)
	c.ended.Store(false)
	c.run.Store(r)
	c.log("person: resumed the crashed run from its record")
}

func (c *checker) setConfirmed(a *action.Action) {
	c.mu.Lock()
	c.confirmed = a
	c.mu.Unlock()
}

func (c *checker) setGraceN(n int) {
	c.mu.Lock()
	c.graceN = n
	c.mu.Unlock()
}

func (c *checker) report() (violations, trace []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.violations...), append([]string(nil), c.trace...)
}

func joinLines(ss []string) string { return strings.Join(ss, "\n") }
