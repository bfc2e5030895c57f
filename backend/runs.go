package backend

import (
	"context"
	"errors"
	"fmt"
	"image"
	"path/filepath"
	"sync"
	"time"

	"tandem/devices/desktop/host"
	"tandem/engine"
	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/engine/model"
	"tandem/mirror"
)

// Runs holds the live run of each device (several devices, several runs,
// nothing shared between them) and forwards their events to the UI.
type Runs struct {
	devices *Devices
	hub     *mirror.Hub
	dataDir string
	emit    func(device string, e engine.Event) // every event of every run, with its device
	// hand is the input manager (Backend.Hand), for the person's acts the
	// desktop's guard reports.
	hand func(ctx context.Context, id string, in Input) (Outcome, error)
	// personDo is the one path of the person's input to a device (the
	// feed's), given to every run as its Config.PersonInput.
	personDo func(ctx context.Context, id string, dev device.Device, a action.Action) error
	// interrupted is Config.Interrupted, given to every run.
	interrupted func() bool
	// lease takes a device's lease for a run started by someone (lease.go).
	lease func(ctx context.Context, id, by string) (func(), error)
	// door names the door a run started by someone came in by, and name
	// a device's name as the list shows it: both for the record.
	door func(by string) string
	name func(ctx context.Context, id string) string
	// world, when set, runs every run of this backend on one scheduler
	// and virtual clock instead of goroutines, so the simulation of
	// several runs and one person (manyruns_sim_test.go) replays a seed
	// exactly. Nil for every real run.
	world *world

	leases sync.WaitGroup // the runs' leases, let go as each run ends

	mu       sync.Mutex
	byDevice map[string]*engine.Run
	byID     map[string]*engine.Run
}

func newRuns(devices *Devices, hub *mirror.Hub, dataDir string, emit func(string, engine.Event)) *Runs {
	return &Runs{devices: devices, hub: hub, dataDir: dataDir, emit: emit,
		byDevice: map[string]*engine.Run{}, byID: map[string]*engine.Run{}}
}

// world is a scheduler and a clock every run of a backend shares (Runs.world).
type world struct {
	sched *engine.Scheduler
	clock engine.Clock
}

// ErrDeviceBusy means the device already has a live run.
var ErrDeviceBusy = errors.New("a task is already running on this device: stop it first")

// ErrNoRun means the run id is unknown (it ended and was forgotten, or never existed).
var ErrNoRun = errors.New("that task is no longer running")

// Start opens the device and starts a run on it.
func (r *Runs) Start(ctx context.Context, deviceID, goal string, planner model.Planner, set engine.Settings, startedBy string) (engine.Snapshot, error) {
	return r.launch(ctx, deviceID, func(cfg engine.Config) (*engine.Run, error) {
		set.UITree = cfg.Device.Capabilities().UITree
		cfg.Goal, cfg.Planner, cfg.DataDir, cfg.Settings, cfg.StartedBy = goal, planner, r.dataDir, set, startedBy
		cfg.Door, cfg.DeviceName = r.doorAndName(ctx, deviceID, startedBy)
		return engine.New(cfg)
	}, startedBy)
}

// Resume continues the interrupted run id from its record, on the device
// and with the goal and settings the record names.
//
// A record whose first line is damaged resumes once given names its
// device and goal again (engine.Resume repairs it); otherwise they come
// from the record.
func (r *Runs) Resume(ctx context.Context, id string, planner model.Planner, given Given) (engine.Snapshot, error) {
	dir := filepath.Join(r.dataDir, filepath.Base(id))
	if err := engine.RecordInUse(dir); err != nil { // said as the run's, before its device's lease
		return engine.Snapshot{}, err
	}
	entries, _, err := engine.ReadRecord(dir)
	deviceID := given.Device
	switch {
	case errors.Is(err, engine.ErrDamagedRecord) && (given.Device == "" || given.Goal == ""):
		return engine.Snapshot{}, fmt.Errorf("%w; it can be resumed from what could be read once its goal and its device are given again", err)
	case errors.Is(err, engine.ErrDamagedRecord):
	case err != nil:
		return engine.Snapshot{}, err
	case deviceID == "":
		deviceID = entries[0].Device
	}
	return r.launch(ctx, deviceID, func(cfg engine.Config) (*engine.Run, error) {
		cfg.Goal, cfg.Planner = given.Goal, planner
		return engine.Resume(dir, cfg)
	}, "")
}

// Given is what a door gives again to resume a run whose record lost its
// first line: the device and the goal ("": the record's).
type Given struct{ Device, Goal string }

// publish hands every screen the run takes of device id to its mirror,
// so the person sees every frame the agent sees. The hub only keeps the
// newest; a viewer's stream encodes it, so a run nobody watches spends
// nothing on it.
func (r *Runs) publish(id string) func(image.Image, time.Time) {
	return func(img image.Image, at time.Time) { r.hub.Publish(id, img, at) }
}

// personInput is the run's path for the person's input on device id.
func (r *Runs) personInput(id string, dev device.Device) func(context.Context, action.Action) error {
	if r.personDo == nil {
		return nil
	}
	return func(ctx context.Context, a action.Action) error { return r.personDo(ctx, id, dev, a) }
}

// doorAndName are the door a run started by by came in by and device
// id's name ("" when the list knows none but its id); a list that does
// not answer in 2 s costs the name, never the run.
func (r *Runs) doorAndName(ctx context.Context, id, by string) (door, name string) {
	if r.door != nil {
		door = r.door(by)
	}
	if r.name != nil && r.world == nil {
		nctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		if n := r.name(nctx, id); n != id {
			name = n
		}
	}
	return door, name
}

// launch opens the device, makes the run with create from the config
// every run on it shares, files it under the device and starts it.
func (r *Runs) launch(ctx context.Context, deviceID string, create func(engine.Config) (*engine.Run, error), by string) (snap engine.Snapshot, err error) {
	r.mu.Lock()
	if cur, ok := r.byDevice[deviceID]; ok && !cur.Snapshot().State.Terminal() {
		r.mu.Unlock()
		return engine.Snapshot{}, ErrDeviceBusy
	}
	r.mu.Unlock()
	var run *engine.Run
	dev, held, err := r.openLeased(ctx, deviceID, by)
	if err != nil {
		return engine.Snapshot{}, err
	}
	defer func() { held(run) }()
	cfg := engine.Config{Device: dev, DeviceID: deviceID, PersonInput: r.personInput(deviceID, dev), OnScreen: r.publish(deviceID),
		Interrupted: r.interrupted}
	if r.world != nil {
		cfg.Scheduler, cfg.Clock = r.world.sched, r.world.clock
	} else if _, desktop := dev.(host.Driver); !desktop {
		// A phone's video stream (the mirror's, while someone watches)
		// judges its settled screen with one capture. Not the desktop's:
		// its pictures are this computer's own captures, 16 ms apart and
		// slower than a phone's encoder under load, too late to vouch for
		// a capture within the stream wait's 50 ms.
		cfg.Motion = func() engine.MotionState {
			last, echo, live, next := r.hub.Motion(deviceID)
			return engine.MotionState{Last: last, EchoUntil: echo, Live: live, Next: next}
		}
	}
	var guard *desktopGuard
	if d, ok := dev.(host.Driver); ok && r.hand != nil { // this computer: the person's own hand, the stop hotkey
		guard = newDesktopGuard(d, deviceID, r.hand)
		cfg.BeforeHandBack = guard.flush
	}
	made, err := create(cfg)
	if err != nil {
		dev.Close()
		return engine.Snapshot{}, err
	}
	r.mu.Lock()
	if cur, ok := r.byDevice[deviceID]; ok && !cur.Snapshot().State.Terminal() {
		r.mu.Unlock()
		dev.Close()
		return engine.Snapshot{}, ErrDeviceBusy
	}
	run = made
	if old, ok := r.byDevice[deviceID]; ok {
		delete(r.byID, old.ID())
	}
	r.byDevice[deviceID], r.byID[run.ID()] = run, run
	r.mu.Unlock()
	r.devices.NoteRun(deviceID, run.ID(), run.Snapshot().Goal) // another Tandem shows it
	run.Subscribe(engine.EmitterFunc(func(e engine.Event) { r.emit(deviceID, e) }))
	if guard != nil {
		guard.start(context.WithoutCancel(ctx), run) // lives as long as the run
	}
	if err := run.Start(ctx); err != nil {
		_ = run.Stop(ctx)
		return engine.Snapshot{}, err
	}
	go func() { // the run's last picture need not stay raw (mirror.Hub.Settle)
		<-run.Done()
		r.hub.SettleLater(deviceID)
	}()
	return run.Snapshot(), nil
}

// openLeased takes device id's lease for a run started by by, and opens
// it; held is to be called with the run made (nil when none was). The
// lease is let go when the run's device closes, after it gave the phone
// back; or, for a device that cannot carry it, when the run ends.
func (r *Runs) openLeased(ctx context.Context, id, by string) (dev device.Device, held func(*engine.Run), err error) {
	if r.lease == nil || r.world != nil { // a simulation's phones are its own
		dev, err := r.devices.Open(ctx, id)
		if err != nil {
			return nil, nil, fmt.Errorf("open %s: %w", id, err)
		}
		return dev, func(*engine.Run) {}, nil
	}
	release, err := r.lease(ctx, id, by)
	if err != nil {
		return nil, nil, err
	}
	dev, tied, err := r.devices.OpenHeld(ctx, id, release)
	switch {
	case err != nil:
		release()
		return nil, nil, fmt.Errorf("open %s: %w", id, err)
	case tied:
		return dev, func(*engine.Run) {}, nil
	}
	return dev, func(run *engine.Run) { r.holdLease(run, release) }, nil
}

// holdLease keeps a device's lease for run until it ends (StopAll waits
// for it); with no run (it did not start) it lets go at once.
func (r *Runs) holdLease(run *engine.Run, release func()) {
	if run == nil {
		release()
		return
	}
	r.leases.Add(1)
	go func() {
		defer r.leases.Done()
		<-run.Done()
		release()
	}()
}

// Get returns a live or just-ended run by id.
func (r *Runs) Get(id string) (*engine.Run, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	run, ok := r.byID[id]
	if !ok {
		return nil, ErrNoRun
	}
	return run, nil
}

// Active returns the snapshot of each device's newest run.
func (r *Runs) Active() []engine.Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]engine.Snapshot, 0, len(r.byDevice))
	for _, run := range r.byDevice {
		out = append(out, run.Snapshot())
	}
	return out
}

// AgentBusy reports whether the agent drives the device now, so its own
// screenshots keep the mirror fresh.
func (r *Runs) AgentBusy(deviceID string) bool {
	r.mu.Lock()
	run, ok := r.byDevice[deviceID]
	r.mu.Unlock()
	if !ok {
		return false
	}
	switch run.State() {
	case engine.Planning, engine.Executing, engine.WaitingForStability:
		return true
	case engine.Idle, engine.WaitingForUser, engine.Paused, engine.Manual, engine.Done, engine.Failed, engine.Stopped:
	}
	return false
}

// OnDevice returns the device's newest run, if it has one.
func (r *Runs) OnDevice(deviceID string) (*engine.Run, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	run, ok := r.byDevice[deviceID]
	return run, ok
}

// StopAll stops every live run (the window is closing) and waits a little
// for them to restore their devices.
func (r *Runs) StopAll(ctx context.Context) {
	r.mu.Lock()
	runs := make([]*engine.Run, 0, len(r.byDevice))
	for _, run := range r.byDevice {
		runs = append(runs, run)
	}
	r.mu.Unlock()
	for _, run := range runs {
		_ = run.Stop(ctx)
	}
	for _, run := range runs {
		_, _ = run.Wait(ctx)
	}
	released := make(chan struct{}) // before this Tandem is gone, its devices are free
	go func() { r.leases.Wait(); close(released) }()
	select {
	case <-released:
	case <-ctx.Done():
	}
}
