package engine

import (
	"errors"
	"fmt"

	"tandem/engine/action"
	"tandem/engine/device"
)

// A device that went away: the run pauses, counts down, and resumes by
// itself when the device answers again.

// lost handles a device that went away (or could not be observed): the
// run pauses with the reason and resumes by itself when the device answers.
func (l *loopState) lost(m msgDeviceLost) {
	err := m.err
	if !errors.Is(err, device.ErrGone) {
		l.ask(Request{Kind: AskDevice, Message: err.Error() + "; fix it and resume", Cause: &Cause{Code: CauseDevice, Detail: deviceDetail(err)}})
		return
	}
	asked := l.inExec.how
	l.inExec.how = execPlain
	waiters := asked != execPlain
	takeOver := asked.takeOverAsked()
	personPaused := asked.pauseAsked()
	if l.current != nil {
		l.queue = append([]action.Action{*l.current}, l.queue...)
		l.current = nil
	}
	l.scr.fresh, l.dev.known = false, false
	if takeOver {
		// The person asked for the device while the action ran: they get
		// it (and their TakeOver returns), gone or not; a Paused run left
		// their command waiting until the run ended (sim seed 3391).
		l.enterManual("the person took over", nil)
		return
	}
	l.dev.faults++
	if l.dev.faults > maxFaults && !waiters {
		// It answers, then fails again: pausing and resuming by itself
		// would cycle for ever (issue 16: 162 times a minute).
		n := l.dev.faults
		l.dev.faults = 0
		l.ask(Request{Kind: AskDevice, Message: fmt.Sprintf("the device failed %d times in a row (%v); check it and resume, take over, or stop", n, err),
			Cause: &Cause{Code: CauseDeviceRepeated, N: fmt.Sprint(n), Detail: deviceDetail(err)}})
		return
	}
	// The person asked to pause while the action ran: the run stays paused
	// once the device is back (sim seed 3955).
	how := pausedDeviceAway
	if personPaused {
		how = pausedDeviceAwayHeld
	}
	l.to(Paused, "device lost: "+err.Error())
	if l.state != Paused {
		return
	}
	l.inPause.how, l.inPause.cause = how, err // DeviceAway's invoke watches, its timeout gives up
}

// away handles a device that stays away: left > 0 is the countdown (seconds
// before the run gives up), 0 the end.
func (l *loopState) away(m msgDeviceAway) {
	left, cause := m.left, m.cause
	if l.state != Paused || l.inPause.how == pausedByPerson {
		return
	}
	if left > 0 {
		l.to(Paused, fmt.Sprintf("device lost: %v; waiting %d s more for it", cause, left))
		return
	}
	c := Cause{Code: CauseDeviceAway, N: l.settings.DeviceAwayMax.String(), Detail: fmt.Sprint(cause)}
	l.end(Result{State: Failed, Reason: c.String(), Why: &c})
}

// maxFaults is how many times in a row the device may be lost (and come
// back) before the person is asked.
const maxFaults = 3

// back handles the lost device answering again: a run paused for it
// resumes, unless the person paused it too.
func (l *loopState) back(msgDeviceBack) {
	if l.state != Paused || l.inPause.how == pausedByPerson {
		return
	}
	l.note("The device was disconnected for a while and is back; look at the screen again.")
	if l.inPause.how == pausedDeviceAwayHeld {
		// Paused by the person too: the device is back, the pause stays.
		l.inPause.how = pausedByPerson
		l.to(Paused, "the device is back; still paused as you asked")
		return
	}
	l.resumeFromPause("the device is back")
}
