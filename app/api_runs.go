package app

import (
	"context"
	"time"

	"tandem/backend"
	"tandem/engine"
	"tandem/engine/action"
)

// ActiveRuns returns a snapshot of each device's newest run.
func (a *RunsAPI) ActiveRuns() []engine.Snapshot { return a.b.ActiveRuns() }

// StartRun starts a task on a device with the active model profile.
func (a *RunsAPI) StartRun(deviceID, goal string) (_ engine.Snapshot, err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(30 * time.Second)
	defer cancel()
	return a.b.StartRun(ctx, deviceID, goal, backend.RunChoice{})
}

// command gives the person's command f to run id, bounded.
func (a *RunsAPI) command(id string, f func(*backend.RunHandle, context.Context) error) error {
	r, err := a.b.Run(id, backend.ByWindow())
	if err != nil {
		return err
	}
	ctx, cancel := a.callCtx(10 * time.Second)
	defer cancel()
	return f(r, ctx)
}

// Pause pauses the run: an in-flight model call is cancelled at once.
func (a *RunsAPI) Pause(id string) (err error) {
	defer toUI(&err)
	return a.command(id, (*backend.RunHandle).Pause)
}

// Resume continues a paused run (or one waiting after an escalation).
func (a *RunsAPI) Resume(id string) (err error) {
	defer toUI(&err)
	return a.command(id, (*backend.RunHandle).Resume)
}

// TakeOver hands the device to the person.
func (a *RunsAPI) TakeOver(id string) (err error) {
	defer toUI(&err)
	return a.command(id, (*backend.RunHandle).TakeOver)
}

// HandBack returns control to the agent with the person's note and region.
func (a *RunsAPI) HandBack(id, note string, region *engine.Region) (err error) {
	defer toUI(&err)
	return a.command(id, func(r *backend.RunHandle, ctx context.Context) error { return r.HandBack(ctx, note, region) })
}

// Stop ends the run now.
func (a *RunsAPI) Stop(id string) (err error) {
	defer toUI(&err)
	return a.command(id, (*backend.RunHandle).Stop)
}

// StopAfter lets the run take at most n more steps.
func (a *RunsAPI) StopAfter(id string, n int) (err error) {
	defer toUI(&err)
	return a.command(id, func(r *backend.RunHandle, ctx context.Context) error { return r.StopGracefully(ctx, n) })
}

// Confirm lets a sensitive action go ahead.
func (a *RunsAPI) Confirm(id string) (err error) {
	defer toUI(&err)
	return a.command(id, (*backend.RunHandle).Confirm)
}

// Deny refuses a sensitive action; the model is told why.
func (a *RunsAPI) Deny(id, reason string) (err error) {
	defer toUI(&err)
	return a.command(id, func(r *backend.RunHandle, ctx context.Context) error { return r.Deny(ctx, reason) })
}

// Answer replies to the model's question or gives guidance.
func (a *RunsAPI) Answer(id, text string) (err error) {
	defer toUI(&err)
	return a.command(id, func(r *backend.RunHandle, ctx context.Context) error { return r.Answer(ctx, text) })
}

// EditGoal changes a run's goal.
func (a *RunsAPI) EditGoal(id, goal string) (err error) {
	defer toUI(&err)
	return a.command(id, func(r *backend.RunHandle, ctx context.Context) error { return r.EditGoal(ctx, goal) })
}

// EditPending replaces a run's queued actions.
func (a *RunsAPI) EditPending(id string, acts []action.Action) (err error) {
	defer toUI(&err)
	return a.command(id, func(r *backend.RunHandle, ctx context.Context) error { return r.EditPending(ctx, acts) })
}
