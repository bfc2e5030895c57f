package app

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"tandem/engine"
	"tandem/engine/action"
	"tandem/engine/model"
	"tandem/engine/model/dialect"
	"tandem/mirror"
)

// The methods below are bound to the UI. Each takes only JSON-friendly
// arguments, bounds its own time, and returns an error the person can read.

// ListDevices returns phones, virtual phones and this computer's displays.
// An adb problem is shown as an error only when there is nothing to list.
func (a *App) ListDevices() (_ []DeviceEntry, err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(15 * time.Second)
	defer cancel()
	list, err := a.devices.List(ctx)
	if list == nil {
		list = []DeviceEntry{}
	}
	if len(list) > 0 {
		return list, nil
	}
	return list, err
}

// ConnectDevice connects a phone over Wi-Fi ("ip:port").
func (a *App) ConnectDevice(addr string) (_ DeviceEntry, err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(20 * time.Second)
	defer cancel()
	return a.devices.Connect(ctx, addr)
}

// MirrorURL starts keeping the device's mirror fresh and returns the
// stream's URL (loopback, with the per-launch token).
func (a *App) MirrorURL(id string) (_ string, err error) {
	defer toUI(&err)
	a.mu.Lock()
	srv := a.mirrorSrv
	a.mu.Unlock()
	if srv == nil {
		return "", errMirrorDown
	}
	ctx, cancel := a.callCtx(15 * time.Second)
	defer cancel()
	if err := a.feed.Watch(ctx, id); err != nil {
		return "", err
	}
	return srv.StreamURL(id), nil
}

// DeviceInput performs the person's input on a device with no run (the
// mirror as a remote control).
func (a *App) DeviceInput(id string, act action.Action) (err error) {
	defer toUI(&err)
	if a.runs.AgentBusy(id) {
		return ErrDeviceBusy
	}
	ctx, cancel := a.callCtx(20 * time.Second)
	defer cancel()
	return a.feed.Do(ctx, id, act)
}

// Frames tells the UI where recorded screens are served: a step's
// thumbnail is URL + "<run>/<frame>?token=" + Token.
type Frames struct {
	URL   string `json:"url"`
	Token string `json:"token"`
}

// FramesBase returns where the timeline fetches recorded screens.
func (a *App) FramesBase() (_ Frames, err error) {
	defer toUI(&err)
	a.mu.Lock()
	srv := a.mirrorSrv
	a.mu.Unlock()
	if srv == nil {
		return Frames{}, errMirrorDown
	}
	return Frames{URL: srv.FramesURL(), Token: srv.Token()}, nil
}

// MirrorTouch sends one phase of the person's finger ("down", "move", "up",
// "cancel") at device pixels straight to the phone, live, when its mirror
// runs over scrcpy (a drag follows the mouse). Other paths refuse with
// ErrNoLiveInput; the UI then sends the whole gesture with DeviceInput/Input.
//
// While a run is on the device only the person driving it (Manual) may
// touch: the finished gesture is recorded in the run like any input of
// theirs, so the model is told on hand back.
func (a *App) MirrorTouch(id, phase string, x, y int) (err error) {
	defer toUI(&err)
	manual, live := a.runs.PersonDrives(id)
	if live && !manual {
		return ErrDeviceBusy
	}
	ctx, cancel := a.callCtx(5 * time.Second)
	defer cancel()
	if err := a.feed.Touch(ctx, id, phase, x, y); err != nil {
		a.gestures.track(id, "cancel", x, y, action.Size{}, time.Now())
		return err
	}
	var screen action.Size
	if f, _ := a.hub.Latest(id); f != nil {
		screen = action.Size{W: f.Width, H: f.Height}
	}
	if g, ok := a.gestures.track(id, phase, x, y, screen, time.Now()); ok && manual {
		return a.runs.InputDone(ctx, id, g)
	}
	return nil
}

// MirrorPath says how the device's mirror is fed ("scrcpy", "screenrecord",
// "screencap", "desktop") and why; the stream also sends it on change.
func (a *App) MirrorPath(id string) mirror.Path { return a.hub.PathOf(id) }

// ActiveRuns returns a snapshot of each device's newest run.
func (a *App) ActiveRuns() []engine.Snapshot { return a.runs.Active() }

func (a *App) withRun(id string, f func(r *engine.Run) error) error {
	r, err := a.runs.Get(id)
	if err != nil {
		return err
	}
	return f(r)
}

// Pause pauses the run: an in-flight model call is cancelled at once.
func (a *App) Pause(id string) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(10 * time.Second)
	defer cancel()
	return a.withRun(id, func(r *engine.Run) error { return r.Pause(ctx) })
}

// Resume continues a paused run (or one waiting after an escalation).
func (a *App) Resume(id string) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(10 * time.Second)
	defer cancel()
	return a.withRun(id, func(r *engine.Run) error { return r.Resume(ctx) })
}

// TakeOver hands the device to the person.
func (a *App) TakeOver(id string) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(10 * time.Second)
	defer cancel()
	return a.withRun(id, func(r *engine.Run) error { return r.TakeOver(ctx) })
}

// HandBack returns control to the agent with the person's note and region.
func (a *App) HandBack(id, note string, region *engine.Region) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(10 * time.Second)
	defer cancel()
	return a.withRun(id, func(r *engine.Run) error { return r.HandBack(ctx, note, region) })
}

// Stop ends the run now.
func (a *App) Stop(id string) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(10 * time.Second)
	defer cancel()
	return a.withRun(id, func(r *engine.Run) error { return r.Stop(ctx) })
}

// StopAfter lets the run take at most n more steps.
func (a *App) StopAfter(id string, n int) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(10 * time.Second)
	defer cancel()
	return a.withRun(id, func(r *engine.Run) error { return r.StopGracefully(ctx, n) })
}

// Confirm lets a sensitive action go ahead.
func (a *App) Confirm(id string) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(10 * time.Second)
	defer cancel()
	return a.withRun(id, func(r *engine.Run) error { return r.Confirm(ctx) })
}

// Deny refuses a sensitive action; the model is told why.
func (a *App) Deny(id, reason string) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(10 * time.Second)
	defer cancel()
	return a.withRun(id, func(r *engine.Run) error { return r.Deny(ctx, reason) })
}

// Answer replies to the model's question or gives guidance.
func (a *App) Answer(id, text string) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(10 * time.Second)
	defer cancel()
	return a.withRun(id, func(r *engine.Run) error { return r.Answer(ctx, text) })
}

// Input is one of the person's inputs while they drive a run.
func (a *App) Input(id string, act action.Action) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(20 * time.Second)
	defer cancel()
	defer a.feed.Poke()
	return a.runs.Input(ctx, id, act)
}

// EditGoal changes a run's goal.
func (a *App) EditGoal(id, goal string) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(10 * time.Second)
	defer cancel()
	return a.withRun(id, func(r *engine.Run) error { return r.EditGoal(ctx, goal) })
}

// EditPending replaces a run's queued actions.
func (a *App) EditPending(id string, acts []action.Action) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(10 * time.Second)
	defer cancel()
	return a.withRun(id, func(r *engine.Run) error { return r.EditPending(ctx, acts) })
}

// PastRuns lists recorded runs, newest first.
// A run still going is listed with its live state, not as interrupted.
func (a *App) PastRuns() (_ []RunSummary, err error) {
	defer toUI(&err)
	list, err := PastRuns(a.runs.dataDir)
	for i, s := range list {
		if r, gerr := a.runs.Get(s.ID); gerr == nil && s.State == StateInterrupted {
			list[i].State = r.Snapshot().State.String()
		}
	}
	return list, err
}

// ResumeRun continues an interrupted run from its record on its device,
// with the active model profile.
func (a *App) ResumeRun(id string) (_ engine.Snapshot, err error) {
	defer toUI(&err)
	planner, _, err := a.plannerNow() // the record's settings hold
	if err != nil {
		return engine.Snapshot{}, err
	}
	ctx, cancel := a.callCtx(30 * time.Second)
	defer cancel()
	return a.runs.Resume(ctx, id, planner)
}

// RunSteps returns a recorded run step by step, for the history view.
func (a *App) RunSteps(id string) (_ RunDetail, err error) {
	defer toUI(&err)
	return ReadRun(a.runs.dataDir, id)
}

// ExportReport writes a run's self-contained HTML report and returns its path.
func (a *App) ExportReport(id string) (_ string, err error) {
	defer toUI(&err)
	return ExportReport(a.runs.dataDir, id)
}

// StartVirtualPhone starts a virtual phone inside Tandem and attaches it to
// the adb server, so a person can try the agent without a phone.
func (a *App) StartVirtualPhone() (_ DeviceEntry, err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(30 * time.Second)
	defer cancel()
	serial, err := a.virtual.Start(ctx)
	if err != nil {
		return DeviceEntry{}, err
	}
	list, err := a.devices.List(ctx)
	for _, e := range list {
		if e.ID == serial {
			a.notify.Notify("devices", list)
			return e, nil
		}
	}
	if err == nil {
		err = errors.New("the virtual phone started but the adb server does not list it")
	}
	return DeviceEntry{}, err
}

// StartRun starts a task on a device with the active model profile.
func (a *App) StartRun(deviceID, goal string) (_ engine.Snapshot, err error) {
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
