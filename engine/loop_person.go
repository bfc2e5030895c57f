package engine

import (
	"fmt"
	"image"
	"strconv"
	"strings"

	"tandem/engine/action"
	"tandem/engine/model"
)

// The person's commands, as the loop handles them.

func (l *loopState) pause(m msgPause) error {
	switch l.state {
	case Executing:
		// The run pauses once the atomic action returns; the person's act
		// is theirs now (timeline, History, report).
		asked := l.inExec.how
		switch asked {
		case execPlain:
			l.inExec.how = execPauseAsked
		case execTakeOverAsked:
			l.inExec.how = execBothAsked
		case execPauseAsked, execBothAsked: // asked already
		}
		if !asked.pauseAsked() {
			l.record(Entry{Kind: recPerson, Command: "pause"})
		}
		l.inExec.pauses = append(l.inExec.pauses, m.reply)
		return nil
	case Planning, WaitingForStability:
		// the chart's exit cancels the state's work
		if l.current != nil {
			l.todo.done = append(l.todo.done, *l.current)
			l.current = nil
		}
	case Idle, WaitingForUser, Paused, Manual, Done, Failed, Stopped:
		// no work under way (the transition table says which may pause)
	}
	l.to(Paused, "paused by the person")
	return nil
}

func (l *loopState) resume(msgResume) error {
	switch l.state {
	case Paused:
		l.resumeFromPause("resumed by the person")
	case WaitingForUser:
		switch l.request.Kind {
		case AskBudget:
			l.budget = l.budget.extend(l.settings.Budget, l.spent())
		case AskLoop, AskModelError, AskDevice:
			l.loops.reset()
		case AskConfirm, AskQuestion, AskTakeOver: // the chart's guard refuses resume (waitsForResume)
		}
		l.record(Entry{Kind: recPerson, Command: "resume", Request: asked(*l.request)})
		l.request = nil
		if l.current != nil && !l.todo.edited {
			l.queue = append([]action.Action{*l.current}, l.queue...)
		}
		l.current = nil
		if l.todo.edited {
			l.observe("resumed by the person")
			return nil
		}
		l.flushQueue("The run stopped to ask the person before these planned actions were done; decide again what to do.")
		l.plan("resumed by the person")
	case Idle, Planning, Executing, WaitingForStability, Manual, Done, Failed, Stopped:
		// the transition table refuses resume here
	}
	return nil
}

// resumeFromPause looks again and re-plans; what was still queued is told
// to the model rather than run blind.
func (l *loopState) resumeFromPause(reason string) {
	l.inPause.how = pausedByPerson
	l.scr.fresh = false
	if l.current != nil {
		l.queue = append([]action.Action{*l.current}, l.queue...)
		l.current = nil
	}
	l.record(Entry{Kind: recPerson, Command: "resume"})
	if l.todo.edited {
		l.observe(reason)
		return
	}
	l.flushQueue("The run was paused before these planned actions were done; decide again what to do.")
	l.plan(reason)
}

func (l *loopState) takeOver(m msgTakeOver) error {
	if l.state == Executing {
		asked := l.inExec.how
		switch asked {
		case execPlain:
			l.inExec.how = execTakeOverAsked
		case execPauseAsked:
			l.inExec.how = execBothAsked
		case execTakeOverAsked, execBothAsked: // asked already
		}
		if !asked.takeOverAsked() {
			l.record(Entry{Kind: recPerson, Command: "take_over"})
		}
		l.inExec.takeOvers = append(l.inExec.takeOvers, m.reply)
		return nil
	}
	// the chart's exit cancels the work of Planning or WaitingForStability
	if l.current != nil && l.state == WaitingForStability {
		l.todo.done = append(l.todo.done, *l.current)
	}
	l.current = nil
	l.enterManual("the person took over", nil)
	return nil
}

func (l *loopState) enterManual(reason string, req *Request) {
	l.inManual.log = nil
	l.inManual.asked = ""
	if req != nil {
		l.inManual.asked = req.Message
	}
	l.to(Manual, reason)
	if l.state != Manual {
		return
	}
	if l.scr.frame == nil && l.inManual.how == manualIdle {
		l.inManual.how = manualLooking
		l.out(fxManual{manualWork{look: true}})
	}
	if req != nil {
		l.request = req
		l.record(Entry{Kind: recRequest, Request: req})
		l.emit(Event{Kind: KindRequest, Request: req})
	}
}

// manualInput starts one input of the person, or queues it behind the one
// still settling: inputs are made and recorded one at a time, in the order
// the person made them. One that is already on the device (m.done: a live
// touch) is answered at once; one still to be made when it has settled.
func (l *loopState) manualInput(m msgManualInput) error {
	a := m.act
	if engineHandled(a.Type) {
		return fmt.Errorf("%w: %s is not an input", action.ErrInvalid, a.Type)
	}
	if err := a.Validate(l.dev.info.Screen); err != nil {
		return err
	}
	if len(l.inManual.queue) >= maxManualQueue {
		return ErrBusy
	}
	if m.done {
		m.reply = nil
	}
	if l.inManual.how != manualIdle {
		l.inManual.queue = append(l.inManual.queue, m)
		return nil
	}
	l.startManual(m)
	return nil
}

// maxManualQueue bounds the inputs waiting behind the one settling.
const maxManualQueue = 32

// startManual starts the person's input. One that is already on the device
// (done) is recorded with the screen the run last saw as the one before it:
// a live touch reaches the phone before Tandem hears of it.
func (l *loopState) startManual(m msgManualInput) {
	l.inManual.how = manualInFlight
	l.inManual.reply = m.reply // nil for a live touch: answered already
	w := manualWork{a: m.act, done: m.done}
	if m.done {
		w.before = l.scr.frame
	}
	l.out(fxManual{w})
}

func (l *loopState) manualDone(m msgManualDone) {
	res := m.res
	l.inManual.how = manualIdle
	defer l.nextManual()
	if res.look {
		if res.err == nil {
			l.scr.frame, l.scr.print, l.scr.fresh = res.s.Frame, res.s.Print, true
		}
		return
	}
	l.recordManual(res)
}

// recordManual records the person's input with its result and answers
// them.
func (l *loopState) recordManual(res *manualResult) {
	if res.skipped {
		// Stop closed the gate before it started: nothing reached the device.
		if l.inManual.reply != nil {
			l.reply(l.inManual.reply, ErrFinished)
			l.inManual.reply = nil
		}
		return
	}
	l.inManual.log = append(l.inManual.log, manualInput{a: res.a, at: res.at, err: res.err})
	ev := &ManualEvent{Action: res.a, At: res.at, Before: res.before, After: res.after}
	result := "ok"
	if res.err != nil {
		ev.Error, result = res.err.Error(), res.err.Error()
	} else if res.s.Frame != nil { // nil: the run ended before the screen settled
		l.scr.frame, l.scr.print, l.scr.tree, l.scr.app, l.scr.wins, l.scr.fresh = res.s.Frame, res.s.Print, nil, "", nil, true
	}
	a := res.a
	l.record(Entry{Kind: recManual, T: res.at, Action: &a, Before: res.before, Frame: res.after, Result: result, Ms: res.ms})
	l.personSteps++ // a step too, numbered with the agent's
	l.emit(Event{Kind: KindManual, Manual: ev})
	l.emit(Event{Kind: KindStep, Step: &StepEvent{N: l.steps + l.personSteps, Action: a, Result: result, Ms: res.ms, ByPerson: true, Frame: res.before}})
	l.emitUsage()
	if l.inManual.reply != nil {
		l.reply(l.inManual.reply, res.err)
		l.inManual.reply = nil
	}
}

// nextManual starts the next input waiting its turn, while the person
// still drives; once they do not, the waiting ones are refused.
func (l *loopState) nextManual() {
	if len(l.inManual.queue) == 0 {
		if hb := l.inManual.handBack; hb != nil && l.state == Manual {
			l.inManual.handBack = nil
			l.on = OnHandBack // the person's command, carried out now
			err := l.handBack(*hb)
			if hb.reply != nil {
				l.reply(hb.reply, err)
			}
		}
		return
	}
	if l.state != Manual {
		l.dropManualQueue(&IllegalError{State: l.state, Trigger: OnManualInput, Why: "the person no longer drives"})
		return
	}
	m := l.inManual.queue[0]
	l.inManual.queue = l.inManual.queue[1:]
	l.startManual(m)
}

// recordTouches records, as the run ends, the person's live touches still
// waiting their turn: they reached the device already (InputDone), so they
// are on the record, without the screen after them.
func (l *loopState) recordTouches() {
	keep := l.inManual.queue[:0]
	for _, m := range l.inManual.queue {
		if !m.done {
			keep = append(keep, m)
			continue
		}
		a := m.act
		now := l.clock.Now()
		l.inManual.log = append(l.inManual.log, manualInput{a: a, at: now})
		l.record(Entry{Kind: recManual, T: now, Action: &a, Result: "ok"})
		l.personSteps++
		l.emit(Event{Kind: KindManual, Manual: &ManualEvent{Action: a, At: now}})
		l.emit(Event{Kind: KindStep, Step: &StepEvent{N: l.steps + l.personSteps, Action: a, Result: "ok", ByPerson: true}})
	}
	l.inManual.queue = keep
}

// dropManualQueue answers the inputs waiting their turn with err.
func (l *loopState) dropManualQueue(err error) {
	for _, m := range l.inManual.queue {
		if m.reply != nil {
			l.reply(m.reply, err)
		}
	}
	l.inManual.queue = nil
}

func (l *loopState) handBack(m msgHandBack) error {
	note, region := m.note, m.region
	words := describeManual(l.inManual.log, l.inManual.asked, note, region)
	l.record(Entry{Kind: recPerson, Command: "hand_back", Text: note, Region: region})
	acts := make([]action.Action, 0, len(l.inManual.log))
	for _, in := range l.inManual.log {
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
	l.inManual.log = nil
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
	case action.Finish, action.Fail, action.AskUser, action.TakeOver:
		// the model's words, not an input: as written
	}
	return a.String()
}

func (l *loopState) stopGracefully(m msgStopGracefully) error {
	n := m.n
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
		l.record(Entry{Kind: recPerson, Command: "stop_gracefully", N: n})
		l.note(fmt.Sprintf("The person asked you to stop: you may take at most %d more action(s). Wrap up now: finish with a summary of what is done and what is still pending.", n))
		l.toFor(l.state, Cause{Code: CauseStoppingGracefully, N: strconv.Itoa(n)})
	case Idle, WaitingForUser, Paused, Manual, Done, Failed, Stopped: // no step under way: now
		l.end(stopped(CauseStoppedByPerson))
	}
	return nil
}

func (l *loopState) confirm(msgConfirm) error {
	// The act keeps what it answered (the element's words, the rule), as
	// an answer keeps its question: the Steps list and the report say what
	// was allowed, not where.
	l.record(Entry{Kind: recPerson, Command: "confirm", Action: l.current, Request: asked(*l.request)})
	l.request = nil
	if v := l.after(l.current, true); v.move != moveAct {
		l.follow(v, l.current, "")
		return nil
	}
	l.execute()
	return nil
}

func (l *loopState) deny(m msgDeny) error {
	reason := m.reason
	a := *l.current
	l.record(Entry{Kind: recPerson, Command: "deny", Action: &a, Text: reason, Request: asked(*l.request)})
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

func (l *loopState) answer(m msgAnswer) error {
	text := m.text
	req := *l.request
	l.record(Entry{Kind: recPerson, Command: "answer", Text: text, Request: asked(req)})
	switch req.Kind {
	case AskQuestion:
		l.note(fmt.Sprintf("You asked the person: %q. They answered: %q.", req.Message, text))
	case AskConfirm, AskTakeOver, AskLoop, AskBudget, AskModelError, AskDevice:
		l.note(fmt.Sprintf("The run stopped to ask the person (%s). Their guidance: %q.", req.Message, text))
		if req.Kind == AskBudget {
			l.budget = l.budget.extend(l.settings.Budget, l.spent())
		}
		l.loops.reset()
	}
	l.request = nil
	l.current = nil
	l.plan("answered by the person")
	return nil
}

func (l *loopState) editGoal(m msgEditGoal) {
	goal := m.goal
	l.goal = goal
	l.out(fxGoal{goal})
	l.record(Entry{Kind: recPerson, Command: "edit_goal", Text: goal})
	if l.state == Idle {
		return // the chart's row is internal: the person's act is the news
	}
	l.note(fmt.Sprintf("The person changed the goal. The goal is now: %q.", goal))
	if !l.todo.edited {
		// A plan made for the old goal is dropped, unless the person set
		// the steps themselves (the pause panel edits both together).
		l.flushQueue("")
	}
	if l.state == Planning && !l.todo.edited {
		l.plan("the goal changed") // the row re-enters Planning: its call starts afresh
		return
	}
	// Looking at the screen before the person's own steps (a resume after
	// the pause panel's edits): those run first; the model hears of the new
	// goal at its next call, from the note (sim seed 5163). The row is
	// internal: the person's act is the news, the state does not change.
}

func (l *loopState) editPending(m msgEditPending) error {
	acts := m.actions
	for _, a := range acts {
		if err := a.Validate(l.dev.info.Screen); err != nil {
			return err
		}
	}
	l.record(Entry{Kind: recPerson, Command: "edit_pending", Actions: acts})
	l.queue = append([]action.Action(nil), acts...)
	l.todo.edited = len(acts) > 0
	// Told as a state of its own too: the moment the run took the edit is
	// what says whether the action under way came before it (the
	// simulation's invariant 5 reads it).
	l.to(l.state, "pending actions edited")
	l.emitPlan()
	return nil
}

// stop ends the run at once: by the person's command, or for why when its
// caller stopped it for a reason of its own (StopFor), which the record and
// the result then give instead of the person.
func (l *loopState) stop(why *Cause) {
	if why == nil {
		l.end(stopped(CauseStoppedByPerson))
		return
	}
	l.inEnding.stopFor = why
	l.end(Result{State: Stopped, Reason: why.String(), Why: why})
}
