package app

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"tandem/engine"
	"tandem/engine/action"
	"tandem/engine/model"
	"tandem/engine/model/dialect"
)

// ActiveRuns returns a snapshot of each device's newest run.
func (a *RunsAPI) ActiveRuns() []engine.Snapshot { return a.runs.Active() }

// Pause pauses the run: an in-flight model call is cancelled at once.
func (a *RunsAPI) Pause(id string) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(10 * time.Second)
	defer cancel()
	return a.withRun(id, func(r *engine.Run) error { return r.Pause(ctx) })
}

// Resume continues a paused run (or one waiting after an escalation).
func (a *RunsAPI) Resume(id string) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(10 * time.Second)
	defer cancel()
	return a.withRun(id, func(r *engine.Run) error { return r.Resume(ctx) })
}

// TakeOver hands the device to the person.
func (a *RunsAPI) TakeOver(id string) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(10 * time.Second)
	defer cancel()
	return a.withRun(id, func(r *engine.Run) error { return r.TakeOver(ctx) })
}

// HandBack returns control to the agent with the person's note and region.
func (a *RunsAPI) HandBack(id, note string, region *engine.Region) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(10 * time.Second)
	defer cancel()
	return a.withRun(id, func(r *engine.Run) error { return r.HandBack(ctx, note, region) })
}

// Stop ends the run now.
func (a *RunsAPI) Stop(id string) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(10 * time.Second)
	defer cancel()
	return a.withRun(id, func(r *engine.Run) error { return r.Stop(ctx) })
}

// StopAfter lets the run take at most n more steps.
func (a *RunsAPI) StopAfter(id string, n int) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(10 * time.Second)
	defer cancel()
	return a.withRun(id, func(r *engine.Run) error { return r.StopGracefully(ctx, n) })
}

// Confirm lets a sensitive action go ahead.
func (a *RunsAPI) Confirm(id string) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(10 * time.Second)
	defer cancel()
	return a.withRun(id, func(r *engine.Run) error { return r.Confirm(ctx) })
}

// Deny refuses a sensitive action; the model is told why.
func (a *RunsAPI) Deny(id, reason string) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(10 * time.Second)
	defer cancel()
	return a.withRun(id, func(r *engine.Run) error { return r.Deny(ctx, reason) })
}

// Answer replies to the model's question or gives guidance.
func (a *RunsAPI) Answer(id, text string) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(10 * time.Second)
	defer cancel()
	return a.withRun(id, func(r *engine.Run) error { return r.Answer(ctx, text) })
}

// Input is one of the person's inputs while they drive a run.
func (a *RunsAPI) Input(id string, act action.Action) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(20 * time.Second)
	defer cancel()
	defer a.feed.Poke()
	return a.runs.Input(ctx, id, act)
}

// EditGoal changes a run's goal.
func (a *RunsAPI) EditGoal(id, goal string) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(10 * time.Second)
	defer cancel()
	return a.withRun(id, func(r *engine.Run) error { return r.EditGoal(ctx, goal) })
}

// EditPending replaces a run's queued actions.
func (a *RunsAPI) EditPending(id string, acts []action.Action) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(10 * time.Second)
	defer cancel()
	return a.withRun(id, func(r *engine.Run) error { return r.EditPending(ctx, acts) })
}

// StartRun starts a task on a device with the active model profile.
func (a *RunsAPI) StartRun(deviceID, goal string) (_ engine.Snapshot, err error) {
	defer toUI(&err)
	goal = strings.TrimSpace(goal)
	if goal == "" {
		return engine.Snapshot{}, errNoGoal
	}
	planner, set, err := a.plannerNow()
	if err != nil {
		return engine.Snapshot{}, err
	}
	ctx, cancel := a.callCtx(30 * time.Second)
	defer cancel()
	return a.runs.Start(ctx, deviceID, goal, planner, set)
}

func (a *App) withRun(id string, f func(r *engine.Run) error) error {
	r, err := a.runs.Get(id)
	if err != nil {
		return err
	}
	return f(r)
}

// plannerNow is a planner for the active model profile and the run
// settings of the person's settings as they are now.
func (a *App) plannerNow() (model.Planner, engine.Settings, error) {
	set, _, err := a.settings.Load()
	if err != nil {
		return nil, engine.Settings{}, err
	}
	p, key, err := a.profile(set.ActiveProfile)
	if err != nil {
		return nil, engine.Settings{}, err
	}
	d, err := dialect.New(p.Dialect, p.Variant)
	if err != nil {
		return nil, engine.Settings{}, err
	}
	prices, _ := loadPrices(a.cfg.ConfigDir) // read per run: an edit counts from the next task
	if _, ok := prices.Lookup(p.Model); !ok && set.Budget.MaxCost > 0 {
		// The limit could never trigger: say so rather than run unguarded.
		return nil, engine.Settings{}, fmt.Errorf("a cost limit is set but no price is known for %s: add it to %s, or set the cost limit to 0",
			p.Model, filepath.Join(a.cfg.ConfigDir, pricesFile))
	}
	c, err := clientFor(p, key, 120*time.Second, 3, prices)
	if err != nil {
		return nil, engine.Settings{}, err
	}
	return model.NewPlanner(c, d, a.plannerOptions(p)), EngineSettings(set, p), nil
}
