package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"tandem/engine/action"
	"tandem/engine/device"
)

// Acting: what runs next, the policy's check before each action, one atomic
// device action at a time, and the wait for the screen to settle.

// sensitive is the policy's verdict on a, the next action, on the newest
// screen. What the screen shows is part of it (the label under a tap, the
// app in front), so a screen that could not be read is never taken for a
// harmless one: the person is asked.
func (l *loopState) sensitive(a action.Action) Why {
	s := scene{canTree: l.hasTree && l.settings.UITree, canApp: l.hasApp, canWins: l.hasWins}
	if l.scr.fresh {
		// A rule may name the app as the person knows it ("支付宝",
		// "Shop") rather than by its package.
		s.tree, s.app, s.wins = l.scr.tree, l.scr.app, l.scr.wins
		s.names = []string{l.scr.name}
		if l.appNames != nil {
			s.names = append(s.names, l.appNames(l.scr.app)...)
		}
	}
	if !l.hasTree {
		s.thought = l.todo.thought // no labels to read: the model's own words for the step
	}
	return judge(l.settings.Policy, a, s)
}

// elementAt is the UI-tree element the action aims at (under its point,
// or the focused one a key presses), when the tree describes the screen
// the action was chosen on.
func (l *loopState) elementAt(a action.Action) *Element {
	if !l.scr.fresh {
		return nil
	}
	if e, ok := targetOf(l.scr.tree, a); ok {
		return &e
	}
	return nil
}

// execute moves to Executing, whose invoke starts the current action.
func (l *loopState) execute() {
	l.to(Executing, "")
	if l.state != Executing {
		return
	}
	l.emitPlan()
	l.before.print = l.scr.print
	l.before.frame, l.before.tree = nil, nil
	if l.scr.fresh {
		l.before.frame, l.before.tree = l.scr.frame, l.scr.tree
	}
	l.scr.fresh = false
	// Executing's invoke starts the action.
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

// recordAction records the current action's result as a step.
func (l *loopState) recordAction(res *actResult) {
	a := *l.current
	l.steps++
	result := "ok"
	if res.err != nil {
		result = res.err.Error()
	}
	l.setResult(result)
	target := ""
	if l.todo.el != nil {
		target = l.todo.el.Shown
	}
	l.record(Entry{Kind: recAction, N: l.steps, Call: l.calls, Action: &a, Result: result, Ms: res.ms, Target: target, Element: l.todo.el})
	l.emit(Event{Kind: KindStep, Step: &StepEvent{N: l.steps + l.personSteps, Action: a, Result: result, Ms: res.ms, Target: target,
		Call: l.calls, Frame: l.call.frame, Usage: l.call.usage, Salvaged: l.call.salvaged, Cached: l.call.cached, Thought: l.call.thought}})
	l.call.thought = ""
	l.call.usage, l.call.salvaged, l.call.cached = nil, "", false
	l.emitUsage()
}

// actionDone handles the end of a device action.
func (l *loopState) actionDone(m msgActionDone) {
	res := m.res
	if res.skipped {
		// Only Stop closes the gate before an action starts; the run ends
		// as it asked (the loop tells the core of a Stop first, so this is
		// for a core that did not hear of it).
		l.current = nil
		l.end(stopped(CauseStoppedByPerson))
		return
	}
	a := *l.current
	l.recordAction(res)
	if res.err != nil && errors.Is(res.err, device.ErrGone) {
		l.lost(msgDeviceLost{err: res.err}) // the action found the device gone
		return
	}
	if asked := l.inExec.how; asked != execPlain {
		l.current = nil
		l.todo.done = append(l.todo.done, a)
		l.inExec.how = execPlain
		if asked.takeOverAsked() {
			l.enterManual("the person took over", nil)
		} else {
			l.to(Paused, "paused by the person")
		}
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
	l.before.at = res.at
	l.to(WaitingForStability, "") // its invoke waits for the screen
}

// stable handles a settled screen after an action.
func (l *loopState) stable(m msgStable) {
	res := m.res
	s := res.s
	a := *l.current
	l.scr.frame, l.scr.print, l.scr.tree, l.scr.app, l.scr.wins, l.scr.fresh = s.Frame, s.Print, res.tree, res.app, res.wins, true
	l.scr.name = res.name
	diff := s.Print.Diff(l.before.print)
	if l.before.print.IsZero() {
		diff = 1
	}
	st := s.Stable
	l.record(Entry{Kind: recStable, N: l.steps, Ms: s.Waited.Milliseconds(), Stable: &st, Diff: diff})
	th := l.settings.Stability.Threshold
	changed := screenChanged(l.before.frame, s.Frame, l.before.tree, res.tree)
	l.before.frame, l.before.tree = nil, nil
	if l.todo.edited && len(l.queue) > 0 {
		// The person edited the steps while this action ran: theirs run
		// next, whatever the detector would have told the model (sim seed
		// 712157: the nudge dropped them).
		l.todo.edited = false
		l.loops.reset()
		l.next()
		return
	}
	switch v, why := l.loops.observe(a, l.before.print, changed, th); v {
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
	case loopNone:
	}
	if len(l.queue) > 0 && diff > l.settings.Unexpected {
		l.flushQueue(fmt.Sprintf("After %s the screen changed more than expected (%.0f%% of it), so the rest of your plan was not done.", a, diff*100))
	}
	l.next()
}
