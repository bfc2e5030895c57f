package engine

import (
	"fmt"
	"sync"
)

// The chart's interpreter: fire resolves a trigger to a row, from the
// innermost state outwards, checks its guard and runs it; transit is the
// one place the run's state is written, leaving the states the move leaves
// (their exit work, innermost first) and entering the new ones (their
// entry work, outermost first) around the change itself.

// chart is the statechart, indexed.
type chart struct {
	nodes    map[node]nodeSpec
	rows     map[node][]row
	reenters map[reentry]bool
	of       map[State]node // the node of each State
	// takes is, for each State and trigger, the states it may lead to
	// (the rows of its node, its substates and its parents, gathered once).
	takes map[State]map[Trigger][]State
}

// theChart is the chart, built once: it never changes, so every run and
// every door's question share it (Accepts is asked for each of the
// person's inputs; building it each time cost some 70 µs).
var theChart = sync.OnceValue(newChart)

func newChart() *chart {
	c := &chart{nodes: chartNodes(), rows: map[node][]row{}, reenters: map[reentry]bool{}, of: map[State]node{}}
	for _, r := range chartRows() {
		c.rows[r.from] = append(c.rows[r.from], r)
	}
	for _, r := range chartReentries() {
		c.reenters[r] = true
	}
	for n, spec := range c.nodes {
		if spec.plain {
			continue
		}
		if p, ok := c.nodes[spec.parent]; ok && !p.plain && p.state == spec.state {
			continue // a substate: its parent is the State's node
		}
		c.of[spec.state] = n
	}
	c.takes = map[State]map[Trigger][]State{}
	for s := range c.of {
		c.takes[s] = map[Trigger][]State{}
		for _, r := range chartRows() {
			if to, ok := c.gather(s, r.on); ok {
				c.takes[s][r.on] = to
			}
		}
	}
	return c
}

// path is n and its parents, innermost first.
func (c *chart) path(n node) []node {
	var p []node
	for ; n != 0; n = c.nodes[n].parent {
		p = append(p, n)
	}
	return p
}

// resolve finds the row that takes on in leaf: the innermost state's
// first row for it whose guard allows it. why is the first guard's refusal
// when rows exist but none applies.
func (c *chart) resolve(l *loopState, leaf node, m msg) (r *row, why string) {
	for _, n := range c.path(leaf) {
		if all := c.nodes[n].every; all != nil {
			return &row{from: n, do: all}, ""
		}
		for i := range c.rows[n] {
			cand := &c.rows[n][i]
			if cand.on != m.trigger() {
				continue
			}
			if cand.guard != nil {
				if w := cand.guard(l, m); w != "" {
					if why == "" {
						why = w
					}
					continue
				}
			}
			return cand, ""
		}
	}
	return nil, why
}

// leaf is the innermost state the run is in now.
func (l *loopState) leaf() node {
	if l.ending != nil {
		return nEnding
	}
	return l.stateLeaf()
}

// stateLeaf is the innermost state of the run's State (an end waiting for
// an action keeps its State: a move from it leaves that State's states).
func (l *loopState) stateLeaf() node {
	switch l.state {
	case Executing:
		return [...]node{nExecPlain, nExecPauseAsked, nExecTakeOverAsked, nExecBothAsked}[l.inExec.how]
	case WaitingForStability:
		if l.spec != nil {
			return nSpeculating
		}
		return nSettling
	case Planning:
		if l.todo.edited {
			return nPlanLooking // the person's steps run next: a look first
		}
		return nPlanAsking
	case Paused:
		return [...]node{nPausedByPerson, nDeviceAway, nDeviceAwayHeld}[l.inPause.how]
	case Manual:
		return [...]node{nManualIdle, nManualLooking, nManualInFlight}[l.inManual.how]
	case Idle, WaitingForUser, Done, Failed, Stopped:
	}
	return l.chart.of[l.state]
}

// fire is the core's answer to m: the row the chart has for it, run,
// then what the states the run is now in invoke. A command no row takes
// is refused; a result of an invocation no longer running reaches no row
// (its state was left: the work no longer matters), nor does a result no
// row takes.
func (l *loopState) fire(e msg) error {
	on := e.trigger()
	if c, ok := e.(interface{ viaOf() string }); ok && l.ending == nil {
		l.via = c.viaOf()
		if l.state.Terminal() {
			return ErrFinished
		}
	}
	if res, ok := e.(result); ok {
		if !l.running(res.invocation()) {
			return nil
		}
		if res.last() {
			l.over(res.invocation())
		}
	}
	r, why := l.chart.resolve(l, l.leaf(), e)
	if r == nil {
		if on.IsCommand() {
			return &IllegalError{State: l.state, Trigger: on, Why: why}
		}
		return nil
	}
	if l.chart.reenters[reentry{r.from, r.on}] {
		l.leave(r.from)
	}
	err := r.do(l, e)
	l.invoke()
	return err
}

// lookup returns the states trigger on may lead to from state from: the
// rows of its node, of its substates and of its parents.
func lookup(from State, on Trigger) ([]State, bool) {
	return theChart().lookup(from, on)
}

func (c *chart) lookup(from State, on Trigger) ([]State, bool) {
	to, ok := c.takes[from][on]
	return to, ok
}

// gather is lookup, from the rows.
func (c *chart) gather(from State, on Trigger) ([]State, bool) {
	n, ok := c.of[from]
	if !ok {
		return nil, false
	}
	var to []State
	found := false
	add := func(r row) {
		found = true
		for _, s := range r.to {
			if !containsState(to, s) {
				to = append(to, s)
			}
		}
	}
	for _, p := range c.path(n) {
		for _, r := range c.rows[p] {
			if r.on == on {
				add(r)
			}
		}
	}
	for sub, spec := range c.nodes {
		if spec.parent == n {
			for _, r := range c.rows[sub] {
				if r.on == on {
					add(r)
				}
			}
		}
	}
	return to, found
}

func containsState(list []State, s State) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// allowed reports whether the chart lists from --on--> to.
func (c *chart) allowed(from State, on Trigger, to State) bool {
	tos, ok := c.lookup(from, on)
	return ok && containsState(tos, to)
}

// allowed reports whether the chart lists from --on--> to.
func allowed(from State, on Trigger, to State) bool {
	return theChart().allowed(from, on, to)
}

// finish moves the run to its end (inEnding.res). While an input is on
// its way to the device, into Ending: a move that leaves nothing (the
// state's work on its way runs on; its result is recorded first), after
// which Ending takes every trigger (whileEnding) until nothing is on its
// way, then finishes. Else into the final state: the move leaves Live
// (its exit, closeLive) and enters the final state (its entry, atTheEnd).
func (l *loopState) finish() {
	res := l.inEnding.res
	if l.onItsWay() {
		if l.ending == nil {
			l.ending, l.inEnding.on = &res, l.on
		}
		return
	}
	l.ending = nil
	res.Steps, res.Calls, res.Usage = l.steps, l.modelCalls(), l.usage // what is on its way is recorded
	if res.State == Done && !res.Success && res.Reason == "" {
		res.Reason = "the model finished without success"
	}
	l.inEnding.res = res
	reason, why := res.Reason, res.Why
	if res.State == Done {
		reason, why = res.Summary, nil
	}
	l.transit(res.State, reason, why)
}

// to moves the run to state s. The chart must list it for the trigger being
// handled; a move it does not list is a bug in the engine, and the run
// fails loudly rather than carrying on in a state nobody designed.
func (l *loopState) to(s State, reason string) {
	if !l.chart.allowed(l.state, l.on, s) {
		l.end(Result{State: Failed, Reason: fmt.Sprintf("internal error: %s --%s--> %s is not in the transition table", l.state, l.on, s)})
		return
	}
	l.transit(s, reason, nil)
}

// toFor is to for a reason the engine gives itself, in parts a UI words.
func (l *loopState) toFor(s State, why Cause) {
	if !l.chart.allowed(l.state, l.on, s) {
		l.to(s, why.String()) // fails the run as to does
		return
	}
	l.transit(s, why.String(), &why)
}

// transit is the transition itself: the exit work of the states left,
// the change (recorded and told), the entry work of the states entered. A
// move from a state to itself is internal: it is told, nothing is left.
func (l *loopState) transit(s State, reason string, why *Cause) {
	from := l.state
	var left, entered []node
	if from != s {
		left, entered = l.chart.between(l.stateLeaf(), l.chart.of[s])
	}
	for _, n := range left {
		if w := l.chart.nodes[n].onExit; w.do != nil {
			w.do(l, s)
		}
		l.leave(n)
	}
	l.state = s
	st := s
	ev := &StateEvent{State: s, From: from, Reason: reason, Why: why}
	if (l.on.IsCommand() && l.inEnding.stopFor == nil) || l.on == OnDeviceLost || l.on == OnDeviceAway {
		ev.By = l.on.String()
	}
	l.record(Entry{Kind: recState, State: &st, Reason: reason, By: ev.By})
	l.emit(Event{Kind: KindState, State: ev})
	l.personState()
	for _, n := range entered {
		if w := l.chart.nodes[n].onEntry; w.do != nil {
			w.do(l, s)
		}
	}
}

// between is what a move from a to b leaves (innermost first) and enters
// (outermost first): the states below their common parent.
func (c *chart) between(a, b node) (left, entered []node) {
	pa, pb := c.path(a), c.path(b)
	in := map[node]bool{}
	for _, n := range pb {
		in[n] = true
	}
	common := map[node]bool{}
	for _, n := range pa {
		if in[n] {
			common[n] = true
			continue
		}
		left = append(left, n)
	}
	for i := len(pb) - 1; i >= 0; i-- {
		if !common[pb[i]] {
			entered = append(entered, pb[i])
		}
	}
	return left, entered
}

// The rows' work besides the handlers of loop_*.go, which take their
// event (with, takes in msgs.go): the start, the stop, a hand back kept.

func doStart(l *loopState, _ msgStart) error {
	l.started = l.clock.Now()
	// The run's age from its first moment: a window that opens during the
	// first model call counts from the start, not from when it opened
	// (issue 49 item 11).
	l.emitUsage()
	l.plan("")
	return nil
}

func doStop(l *loopState, m msgStop) error {
	l.stop(m.cause)
	if l.ending != nil && m.reply != nil {
		l.inEnding.waiters = append(l.inEnding.waiters, m.reply)
	}
	return nil
}

// doHandBackLater keeps a hand back until the person's inputs on their way
// have been made and recorded (nextManual carries it out).
func doHandBackLater(l *loopState, m msgHandBack) error {
	l.inManual.handBack = &m
	return nil
}
