package engine

import (
	"fmt"

	"tandem/engine/action"
)

// What runs next: one rule (after), asked on every path. The normal path
// follows what it says (next, plan, confirm); the early call (glimpse,
// speculate.go) asks it about the glimpsed screen and starts only when it
// says "plan". So the budget and the graceful stop's limit are checked in
// one place: a model call never starts, early or not, once either is used
// up (issue 50: the early call had its own copy of the rule, and without
// its budget check `tandem run --max-steps N` sent N+1 requests).

// move is what runs next.
type move int

const (
	moveAct  move = 1 // the next queued action goes to the device
	moveAsk  move = 2 // the person is asked (verdict.req)
	movePlan move = 3 // one model call
	moveEnd  move = 4 // the run ends (verdict.res)
)

// verdict is after's answer.
type verdict struct {
	move move
	req  Request // moveAsk
	res  Result  // moveEnd
}

// after decides what runs next once a step's work is done, with a the
// next queued action (nil: none is queued, so a model call would come)
// and allowed whether the person already confirmed a. It changes nothing.
//
// In order: the model's finish or fail ends the run; the graceful stop's
// limit ends it; the model's question or hand-over goes to the person; a
// used-up budget asks the person before any model call or device action;
// with nothing queued the model is asked; the policy asks the person
// before a sensitive action; else the action runs.
func (l *loopState) after(a *action.Action, allowed bool) verdict {
	if a != nil {
		switch a.Type {
		case action.Finish:
			success := a.Success == nil || *a.Success
			return verdict{move: moveEnd, res: Result{State: Done, Success: success, Summary: a.Summary, Pending: pendingOf(*a)}}
		case action.Fail:
			return verdict{move: moveEnd, res: Result{State: Failed, Reason: a.Reason}}
		case action.Tap, action.DoubleTap, action.LongPress, action.Swipe, action.Drag, action.RightClick, action.Scroll,
			action.TypeText, action.Key, action.Hotkey, action.Launch, action.Wait, action.AskUser, action.TakeOver:
			// the run goes on
		}
	}
	if l.softLimit >= 0 && l.steps >= l.softLimit {
		return verdict{move: moveEnd, res: stopped(CauseStoppedGracefully)}
	}
	if a != nil {
		if v, ok := personsTurn(*a); ok {
			return v
		}
	}
	if c := l.budget.exceeded(l.spent()); c.Code != "" {
		return verdict{move: moveAsk, req: Request{Kind: AskBudget, Message: c.String() + "; resume to allow as much again, or stop", Cause: &c}}
	}
	if a == nil {
		return verdict{move: movePlan}
	}
	if allowed {
		return verdict{move: moveAct}
	}
	if why := l.sensitive(*a); why.By != "" {
		act := *a
		req := Request{Kind: AskConfirm, Message: fmt.Sprintf("%s needs your confirmation: %s", act, why), Action: &act, Why: &why}
		if why.By == "unread" {
			if req.Cause = l.unreadCause(why.What); req.Cause != nil && req.Cause.Detail != "" {
				req.Message += " (" + req.Cause.Detail + ")" // the terminal's and a client's words say why too
			}
		}
		if e := l.elementAt(act); e != nil {
			req.Label = e.Shown
		}
		return verdict{move: moveAsk, req: req}
	}
	return verdict{move: moveAct}
}

// personsTurn is the verdict on an action the model gives to the person:
// its question, or the device to drive.
func personsTurn(a action.Action) (verdict, bool) {
	switch a.Type {
	case action.AskUser:
		return verdict{move: moveAsk, req: Request{Kind: AskQuestion, Message: a.Question}}, true
	case action.TakeOver:
		reason := a.Reason
		if reason == "" {
			reason = "the model asked the person to take over"
		}
		return verdict{move: moveAsk, req: Request{Kind: AskTakeOver, Message: reason}}, true
	case action.Tap, action.DoubleTap, action.LongPress, action.Swipe, action.Drag, action.RightClick, action.Scroll,
		action.TypeText, action.Key, action.Hotkey, action.Launch, action.Wait, action.Finish, action.Fail:
		// for the device, or the end
	}
	return verdict{}, false
}

// next decides what follows once a step's work is done: the next queued
// action, a new model call, the person, or an end (after says which).
func (l *loopState) next() {
	if l.current != nil {
		l.todo.done = append(l.todo.done, *l.current)
		l.current = nil
	}
	if len(l.queue) == 0 {
		l.plan("")
		return
	}
	a := l.queue[0]
	l.queue = l.queue[1:]
	l.current = &a
	l.todo.el = l.elementAt(a)
	l.follow(l.after(&a, false), &a, "")
}

// plan starts a Planning step (one observation and one model call) when
// after says a model call comes next; else it does what after says (asks
// the person about a used-up budget, or ends at the graceful stop's
// limit). reason is the Planning state's.
func (l *loopState) plan(reason string) {
	l.follow(l.after(nil, false), nil, reason)
}

// follow does what after decided about a, the current action (nil: none
// is next, a model call would be).
func (l *loopState) follow(v verdict, a *action.Action, reason string) {
	switch v.move {
	case moveEnd:
		if a != nil && a.Type.Terminal() {
			l.setResult("ok")
		}
		l.end(v.res)
		return
	case movePlan:
		l.planning(reason)
		return
	case moveAsk, moveAct:
	}
	if a == nil {
		l.ask(v.req) // only a budget stops a model call
		return
	}
	l.emitPlan()
	if v.move == moveAct {
		l.execute()
		return
	}
	switch v.req.Kind {
	case AskQuestion:
		l.setResult("asked the person")
	case AskTakeOver:
		l.setResult("handed to the person")
		l.enterManual(v.req.Message, &v.req)
		return
	case AskBudget:
		// a waits for the person's answer: the run goes on with it
		l.queue = append([]action.Action{*a}, l.queue...)
		l.current = nil
	case AskConfirm, AskLoop, AskModelError, AskDevice:
	}
	l.ask(v.req)
}
