package engine

// personState tells the UI about the person's commands that are only a
// state change (pause, take over, stop). The other commands are recorded as
// person entries, which the recorder hands to the hub (hub.personEntry);
// state changes are recorded with their By.
func (l *loopState) personState() {
	switch l.on {
	case OnPause, OnTakeOver, OnStop:
		if l.inEnding.stopFor == nil { // StopFor: not the person's
			l.emit(Event{Kind: KindPerson, Person: &PersonAct{Command: l.on.String()}})
		}
	case OnStart, OnResume, OnHandBack, OnStopGracefully, OnConfirm, OnDeny, OnAnswer, OnEditGoal, OnEditPending, OnManualInput:
		// recorded as person entries (a start as the record's start)
	case OnPlanned, OnActionDone, OnStable, OnDeviceLost, OnDeviceBack, OnManualDone, OnDeviceAway, OnGlimpse, OnDropped:
		// results of work, not the person's acts
	}
}
