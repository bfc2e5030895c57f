package engine

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"tandem/engine/action"
	"tandem/engine/model"
)

// What the loop's handlers share: asking the person, ending the run, notes
// to the model, the history, the events of the plan and the usage.

// ask moves to WaitingForUser with a request.
func (l *loopState) ask(req Request) {
	l.to(WaitingForUser, req.Message)
	if l.state != WaitingForUser {
		return
	}
	if req.Frame == "" {
		req.Frame = l.call.frame
	}
	l.request = &req
	l.record(Entry{Kind: recRequest, Request: &req})
	l.emit(Event{Kind: KindRequest, Request: &req})
}

// end finishes the run with res: the chart's way (finish, in
// chart_run.go) into Ending while an action is on its way to the device
// (the agent's, or the person's input), which is not called back: it
// lands, so the end waits for its result and records it first (issue 27:
// a confirmed Pay landed while the run showed no step); then into the
// final state, whose move leaves Live (its exit closes the action gate
// before the state reads final) and whose entry records and tells the end
// and answers every reply still waiting.
func (l *loopState) end(res Result) {
	if !l.chart.allowed(l.state, l.on, res.State) && !strings.HasPrefix(res.Reason, "internal error") {
		res = Result{State: Failed, Reason: fmt.Sprintf("internal error: %s --%s--> %s is not in the transition table", l.state, l.on, res.State)}
	}
	l.inEnding.res = res
	l.finish()
}

// closeLive is the exit of Live, the end's first half: the person's live
// touches recorded, the gate closed and all work cancelled (fxEnd), the
// history and the final figures written.
func (l *loopState) closeLive() {
	l.recordTouches()
	l.out(fxEnd{l.inEnding.res})
	l.recordHistory()
	l.emitUsage() // the final figures, elapsed time included
}

// atTheEnd is the entry of a final state, the end's second half: the end
// recorded and told, then every reply still waiting answered (a pause, a
// take over, an input or a hand back: the run is finished; a Stop: it
// has ended).
func (l *loopState) atTheEnd() {
	r := l.inEnding.res
	l.record(Entry{Kind: recEnd, End: &r})
	l.emit(Event{Kind: KindDone, Done: &r})
	for _, w := range append(l.inExec.pauses, l.inExec.takeOvers...) {
		l.reply(w, ErrFinished)
	}
	l.inExec.pauses, l.inExec.takeOvers = nil, nil
	if l.inManual.reply != nil {
		l.reply(l.inManual.reply, ErrFinished)
		l.inManual.reply = nil
	}
	l.dropManualQueue(ErrFinished)
	if hb := l.inManual.handBack; hb != nil && hb.reply != nil {
		l.reply(hb.reply, ErrFinished)
	}
	l.inManual.handBack = nil
	for _, w := range l.inEnding.waiters {
		l.reply(w, nil)
	}
	l.inEnding.waiters = nil
	// A finished run may be kept (a list of past runs); it must not pin
	// the last screen (megabytes) in memory.
	l.scr.frame, l.scr.tree = nil, nil
}

// onItsWay reports whether an input is on its way to the device: the
// action of Executing, or the person's input (not a mere look).
func (l *loopState) onItsWay() bool {
	return l.working(nExecuting) || l.inManual.how == manualInFlight
}

// whileEnding handles m while the end waits for what is on its way to the
// device: its result is recorded, then the run ends; a Stop returns once
// it has; every other command is refused, and nothing else starts.
func (l *loopState) whileEnding(m msg) error {
	switch m := m.(type) {
	case msgStop:
		if m.reply != nil {
			l.inEnding.waiters = append(l.inEnding.waiters, m.reply)
		}
		return nil
	case msgDropped:
		l.dropped(m)
		return nil
	case msgActionDone: // the action's, by its invocation (fire)
		if !m.res.skipped {
			l.recordAction(m.res)
			l.todo.done = append(l.todo.done, *l.current)
		}
		l.current = nil
	case msgManualDone:
		l.inManual.how = manualIdle
		if !m.res.look {
			l.recordManual(m.res)
		}
	default:
		if m.trigger().IsCommand() {
			return ErrFinished
		}
		return nil // nothing else matters now
	}
	if !l.onItsWay() {
		l.on = l.inEnding.on
		l.finish()
	}
	return nil
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
	l.queue, l.todo.edited = nil, false
}

func (l *loopState) note(s string) {
	l.notes = append(l.notes, s)
	l.record(Entry{Kind: recNote, Text: s})
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

// recordHistory records the current history step as it now is. A step the
// model decided names its call, and leaves out the thought and the reply:
// the call's plan entry holds them, once (restore puts them back).
func (l *loopState) recordHistory() {
	if l.histIdx < 0 || l.histIdx >= len(l.history) {
		return
	}
	s := l.history[l.histIdx]
	s.Actions = append([]action.Action(nil), s.Actions...)
	call := l.stepCalls[l.histIdx]
	if call > 0 {
		s.Thought, s.Reply = "", ""
	}
	l.record(Entry{Kind: recHistory, N: l.histIdx + 1, Call: call, Step: &s})
}

func (l *loopState) recentHistory() []model.Step {
	h := l.history
	if n := l.settings.History; len(h) > n {
		h = h[len(h)-n:]
	}
	return append([]model.Step(nil), h...)
}

func (l *loopState) spent() spent { return l.spentAt(l.clock.Now()) }

// spentAt is what the run has spent, its elapsed time measured at now.
func (l *loopState) spentAt(now time.Time) spent {
	var el time.Duration
	if !l.started.IsZero() {
		el = now.Sub(l.started)
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
	todo := make([]TodoItem, 0, len(l.todo.done)+1+len(l.queue))
	for _, a := range l.todo.done {
		todo = append(todo, TodoItem{Action: a, Status: TodoDone})
	}
	if l.current != nil {
		todo = append(todo, TodoItem{Action: *l.current, Status: TodoCurrent, Element: l.todo.el})
	}
	for _, a := range l.queue {
		todo = append(todo, TodoItem{Action: a, Status: TodoPending})
	}
	l.emit(Event{Kind: KindPlan, Plan: &PlanEvent{Thought: l.todo.thought, Todo: todo}})
}

// modelCalls is how many times a model was asked: every decision but the
// replayed, cached and handed ones.
func (l *loopState) modelCalls() int { return l.calls - l.unasked }

func (l *loopState) emitUsage() {
	at := l.clock.Now()
	sp := l.spentAt(at)
	l.emit(Event{Kind: KindUsage, Usage: &UsageEvent{Total: l.usage, Calls: l.modelCalls(), Steps: l.steps, PersonSteps: l.personSteps,
		ElapsedMs: sp.elapsed.Milliseconds(), At: at}})
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

// restoreStep appends a recorded history step. A step the model decided
// names its call; its thought and reply are in that call's plan entry
// (records written before this carry them in the step itself).
func (l *loopState) restoreStep(s model.Step, call int, said model.Step) {
	if call > 0 {
		if s.Thought == "" && s.Reply == "" {
			s.Thought, s.Reply = said.Thought, said.Reply
		}
		l.stepCalls[len(l.history)] = call
	}
	l.history = append(l.history, s)
}

// cut bounds s to n bytes (never splitting a character), marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// restore rebuilds a crashed run's progress from its record.
func (l *loopState) restore(entries []Entry) {
	var first, last time.Time
	hist := map[int]Entry{}
	said := map[int]model.Step{} // a call's thought and reply, from its plan entry
	maxIdx := 0
	var steps stepsRead
	for _, e := range entries {
		steps.read(e)
		if first.IsZero() {
			first = e.T
		}
		last = e.T
		switch e.Kind {
		case recStart:
			if e.Goal != "" && l.goal == "" {
				l.goal = e.Goal
			}
		case recDropped:
			if e.Usage != nil {
				l.usage = l.usage.Add(*e.Usage)
			}
		case recPlan:
			l.calls = max(l.calls, e.Call)
			if e.Error == "" && (e.Replayed || e.Cached || e.Handed) {
				l.unasked++
			}
			if e.Usage != nil {
				l.usage = l.usage.Add(*e.Usage)
			}
			if e.Error == "" {
				said[e.Call] = model.Step{Thought: e.Thought, Reply: e.Raw}
			}
		case recAction:
			l.steps = max(l.steps, e.N)
		case recManual:
			if e.Action != nil {
				l.personSteps++
			}
		case recHistory:
			if e.Step != nil {
				hist[e.N] = e
				maxIdx = max(maxIdx, e.N)
			}
		case recPerson:
			if e.Command == "edit_goal" {
				l.goal = e.Text
			}
		case recState, recObserve, recRetry, recStable, recNote, recRequest, recEnd:
			// what the run did is in the kinds above
		default: // a kind this Tandem does not know (a newer record's): skipped
		}
	}
	for i := 1; i <= maxIdx; i++ {
		if e, ok := hist[i]; ok {
			l.restoreStep(*e.Step, e.Call, said[e.Call])
		}
	}
	l.histIdx = -1
	l.elapsedPrior = last.Sub(first)
	l.out(fxGoal{l.goal})
	l.out(fxSteps{steps.list})
	l.note(fmt.Sprintf("This run was interrupted after %d action(s) and has been resumed from its record. The screen may have changed since: look at it again before you continue.", l.steps))
}

// stopped is the result of a run the engine stopped for code: its reason
// in English for the record, and in parts for a UI.
func stopped(code string) Result {
	c := Cause{Code: code}
	return Result{State: Stopped, Reason: c.String(), Why: &c}
}

// asked is the request a person's answer or resume replied to, as the act
// records it: what was asked and why. A confirmation keeps its screen, the
// picture the person allowed or denied on (the Steps list, History and the
// report show it with the act: a denied action is no step, and its screen
// would be shown nowhere else); for anything else the request's own entry
// has it.
func asked(r Request) *Request {
	if r.Kind != AskConfirm {
		r.Frame = ""
	}
	return &r
}

// stepsRead rebuilds from a record the steps a resumed run's Steps list
// shows, as the run emitted them: the agent's and the person's in one
// count, each with the screen it was chosen on, a call's cost on its
// first action only.
type stepsRead struct {
	list          []StepEvent
	frames        map[int]string // a call's screen, from its observe entry
	plans         map[int]Entry  // a call's plan entry
	costed        map[int]bool   // calls whose first action has been listed
	agent, person int            // the steps of each so far
}

func (s *stepsRead) read(e Entry) {
	if s.frames == nil {
		s.frames, s.plans, s.costed = map[int]string{}, map[int]Entry{}, map[int]bool{}
	}
	switch e.Kind {
	case recObserve:
		s.frames[e.Call] = e.Frame
	case recPlan:
		s.plans[e.Call] = e
	case recAction:
		if e.Action == nil {
			return
		}
		s.agent = e.N
		st := StepEvent{N: s.agent + s.person, Action: *e.Action, Result: e.Result, Ms: e.Ms, Call: e.Call, Frame: s.frames[e.Call], Target: e.Target}
		if p, ok := s.plans[e.Call]; ok && !s.costed[e.Call] {
			st.Usage, st.Salvaged, st.Cached, st.Thought = p.Usage, p.Salvaged, p.Cached, p.Thought
		}
		s.costed[e.Call] = true
		s.list = append(s.list, st)
	case recManual:
		if e.Action == nil {
			return
		}
		s.person++
		result := e.Result
		if result == "" {
			result = "ok"
		}
		s.list = append(s.list, StepEvent{N: s.agent + s.person, Action: *e.Action, Result: result, Ms: e.Ms, ByPerson: true, Frame: e.Before})
	case recStart, recState, recRetry, recStable, recNote, recRequest, recPerson, recHistory, recEnd, recDropped:
		// no step in these
	default: // a kind this Tandem does not know (a newer record's): skipped
	}
}
