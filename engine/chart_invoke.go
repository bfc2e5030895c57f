package engine

import (
	"context"
	"time"

	"tandem/engine/device"
)

// The chart's invoke and timeout columns, run by the interpreter (XState's
// invoke and after). The work a state stands for (a look and a model call,
// the action, the wait for a settled screen, the watch on a lost device)
// is started as the state is entered, once the row that entered it is
// done (so the row's data is the work's), and cancelled as the state is
// left; a state's timeout is a timer started and stopped the same way,
// whose firing is an event with a row. Each invocation gets an id, which
// its results carry (msgs.go: of): a result of an invocation that is no
// longer running reaches no row, whatever order it comes in. No handler
// starts, cancels or compares them.

// invocation is a state's invoke column: what the work is, in words for
// the picture, how it starts with its id (nil: drawn only; the person's
// input and the early call run under their own rules), and the effect
// that cancels it.
type invocation struct {
	words string
	start func(l *loopState, id uint64)
	stop  effect
}

// drawn is an invoke column the picture shows whose work its own rows
// start (the person's input, the early call): it runs to its end or is
// let go by the state's exit column.
func drawn(words string) invocation { return invocation{words: words} }

// timeout is a state's timeout column: in words, how long, and the event
// its firing sends (with its id).
type timeout struct {
	words string
	after func(l *loopState) time.Duration
	fire  func(l *loopState, id uint64) msg
}

// invocations is what the interpreter runs for the states the run is in:
// the work of one (its id is loopState.gen) and the timer of one.
type invocations struct {
	work    node // whose work runs (0: none)
	timer   node // whose timer runs (0: none)
	timerID uint64
	last    uint64 // the newest id given
}

// newID is an id no invocation had.
func (l *loopState) newID() uint64 {
	l.inv.last++
	return l.inv.last
}

// running reports whether id is an invocation still running.
func (l *loopState) running(id uint64) bool {
	return id != 0 && (l.inv.work != 0 && id == l.gen || l.inv.timer != 0 && id == l.inv.timerID)
}

// working reports whether the work of state n runs.
func (l *loopState) working(n node) bool { return l.inv.work == n }

// over ends invocation id, whose result was its last word.
func (l *loopState) over(id uint64) {
	if l.inv.work != 0 && id == l.gen {
		l.inv.work, l.gen = 0, l.newID()
	}
	if l.inv.timer != 0 && id == l.inv.timerID {
		l.inv.timer = 0
	}
}

// leave stops what state n and its substates run: the exit half of the
// invoke and timeout columns.
func (l *loopState) leave(n node) {
	if w := l.inv.work; w != 0 && l.chart.within(w, n) {
		l.inv.work, l.gen = 0, l.newID()
		l.out(l.chart.nodes[w].invoke.stop)
	}
	if t := l.inv.timer; t != 0 && l.chart.within(t, n) {
		l.inv.timer = 0
		l.out(fxStopTimer{})
	}
}

// invoke starts the work and the timer of the states the run is in, once
// a row is done: the innermost state's that has them. What runs for a
// state the run is no longer in (a substate its data changed) stops. An
// end waiting for what is on its way starts nothing.
func (l *loopState) invoke() {
	if l.ending != nil {
		return
	}
	var work, timer node
	for _, n := range l.chart.path(l.stateLeaf()) {
		spec := l.chart.nodes[n]
		if work == 0 && spec.invoke.start != nil {
			work = n
		}
		if timer == 0 && spec.timeout.fire != nil {
			timer = n
		}
	}
	if w := l.inv.work; w != 0 && w != work {
		l.leave(w)
	}
	if t := l.inv.timer; t != 0 && t != timer {
		l.leave(t)
	}
	if work != 0 && l.inv.work != work {
		l.inv.work, l.gen = work, l.newID()
		l.chart.nodes[work].invoke.start(l, l.gen)
	}
	if timer != 0 && l.inv.timer != timer {
		id := l.newID()
		l.inv.timer, l.inv.timerID = timer, id
		t := l.chart.nodes[timer].timeout
		l.out(fxTimer{after: t.after(l), fire: t.fire(l, id)})
	}
}

// within reports whether n is s or one of its substates.
func (c *chart) within(n, s node) bool {
	for ; n != 0; n = c.nodes[n].parent {
		if n == s {
			return true
		}
	}
	return false
}

// The invoke column's work.

// invokeCall is Planning.Asking's: the model call the core would make
// now, adopting the call started on the settled screen's first capture
// when it asks the same (speculate.go), else letting it go.
func invokeCall() invocation {
	return invocation{"look, then one model call (adopting the early call that asks the same)", func(l *loopState, id uint64) {
		s := screenNow{}
		if l.scr.fresh {
			s = l.scr.screenNow
		}
		w := l.planWork(s, l.notes)
		if l.spec != nil && sameWork(*l.spec, w) {
			l.spec = nil
			l.out(fxAdopt{id, w})
			return
		}
		l.dropSpec() // not the step's call (Speculating's exit left it to this choice)
		l.out(fxWork{id, w})
	}, fxCancel{}}
}

// invokeLook is Planning.Looking's: a look at the screen, no model call
// (the person's own steps run next).
func invokeLook() invocation {
	return invocation{"a look only (the person's steps run next)", func(l *loopState, id uint64) {
		var info *device.Info
		if l.dev.known {
			i := l.dev.info
			info = &i
		}
		l.out(fxWork{id, planWork{info: info}})
	}, fxCancel{}}
}

// invokeAction is Executing's: the current action, through the gate.
func invokeAction() invocation {
	return invocation{"one device action (runs to its end)", func(l *loopState, id uint64) {
		l.out(fxWork{id, actWork{*l.current}})
	}, fxCancel{}}
}

// invokeSettle is WaitingForStability's: the wait for the screen after
// the action; a queued action is checked against the settled screen, so
// the wait reads it too.
func invokeSettle() invocation {
	return invocation{"the wait for a settled screen", func(l *loopState, id uint64) {
		l.out(fxWork{id, stableWork{look: len(l.queue) > 0, since: l.before.at, before: l.scr.print}})
	}, fxCancel{}}
}

// invokeWatch is Paused.DeviceAway's: the lost device polled until it
// answers (the run resumes) with a countdown of the timeout.
func invokeWatch() invocation {
	return invocation{"the watch on the lost device", func(l *loopState, id uint64) {
		l.out(fxWatch{gen: id, cause: l.inPause.cause, limit: l.settings.DeviceAwayMax})
	}, fxUnwatch{}}
}

// deviceAwayMax is Paused.DeviceAway's timeout: a device away longer than
// the settings allow fails the run (OnDeviceAway with none left).
func deviceAwayMax() timeout {
	return timeout{"DeviceAwayMax: Failed",
		func(l *loopState) time.Duration { return l.settings.DeviceAwayMax },
		func(l *loopState, id uint64) msg {
			return msgDeviceAway{of: of{id}, cause: l.inPause.cause}
		}}
}

// fxTimer starts a state's timer: after that long, fire goes to the loop
// (unless fxStopTimer or the end came first).
type fxTimer struct {
	after time.Duration
	fire  msg
}

// fxStopTimer stops the state's timer.
type fxStopTimer struct{}

func (f fxTimer) perform(r *Run) {
	fxStopTimer{}.perform(r)
	ctx, cancel := context.WithCancel(r.runCtx)
	r.timerCancel = cancel
	deadline := r.now().Add(f.after)
	r.spawn("the state's timeout", func() {
		// On the run's clock, a second at a time: a virtual clock that
		// other sleepers move on is followed to the deadline.
		for left := f.after; left > 0; left = deadline.Sub(r.now()) {
			if r.clock.Sleep(ctx, min(left, time.Second)) != nil {
				return
			}
		}
		r.post(f.fire)
	})
}

func (fxStopTimer) perform(r *Run) {
	if r.timerCancel != nil {
		r.timerCancel()
		r.timerCancel = nil
	}
}
