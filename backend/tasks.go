package backend

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"tandem/engine"
	"tandem/engine/model"
)

// What every door asks of runs, devices and history.

// StartRun starts goal on a device with the person's settings and the
// run choice (the window's zero choice: the active profile). A replay
// may give no goal: the recorded run's is used.
func (b *Backend) StartRun(ctx context.Context, deviceID, goal string, c RunChoice) (engine.Snapshot, error) {
	goal = strings.TrimSpace(goal)
	if goal == "" && c.Replay == nil {
		return engine.Snapshot{}, ErrNoGoal
	}
	s, err := b.RunSetup(c)
	if err != nil {
		return engine.Snapshot{}, err
	}
	return b.Launch(ctx, deviceID, goal, s)
}

// Launch starts goal on a device with a setup RunSetup made (a door that
// shows the person the setup first: the command line).
func (b *Backend) Launch(ctx context.Context, deviceID, goal string, s Setup) (engine.Snapshot, error) {
	goal = strings.TrimSpace(goal)
	if goal == "" {
		goal = strings.TrimSpace(s.Goal) // a replay's: the recorded run's
	}
	if goal == "" {
		return engine.Snapshot{}, ErrNoGoal
	}
	hold, attach := b.beginVideo(ctx, deviceID, s)
	snap, err := b.runs.Start(ctx, deviceID, goal, hold(s.Planner), s.Settings, s.StartedBy)
	b.attachVideo(attach, snap, err)
	return snap, err
}

// attachVideo hands a run that started (or none) to its video.
func (b *Backend) attachVideo(attach func(*engine.Run), snap engine.Snapshot, err error) {
	var run *engine.Run
	if err == nil {
		run, _ = b.runs.Get(snap.ID)
	}
	attach(run)
}

// Resume continues run id from its record with s's planner (the record's
// settings hold); given names the device and goal again for a record
// whose first line is damaged.
func (b *Backend) Resume(ctx context.Context, id string, s Setup, given Given) (engine.Snapshot, error) {
	hold, attach := func(p model.Planner) model.Planner { return p }, func(*engine.Run) {}
	if dev := b.resumeDevice(id, given); dev != "" {
		hold, attach = b.beginVideo(ctx, dev, s)
	}
	snap, err := b.runs.Resume(ctx, id, hold(s.Planner), given)
	b.attachVideo(attach, snap, err)
	return snap, err
}

// ResumeRun continues an interrupted run from its record on its device,
// with the active model profile (the record's settings hold).
func (b *Backend) ResumeRun(ctx context.Context, id string) (engine.Snapshot, error) {
	s, err := b.RunSetup(RunChoice{})
	if err != nil {
		return engine.Snapshot{}, err
	}
	return b.Resume(ctx, id, s, Given{})
}

// RunAgain replays finished run id on a device (History's Run again):
// its steps without the model, the first one not on the screen handed to
// the active model (or, with none set up, to the person).
func (b *Backend) RunAgain(ctx context.Context, id, deviceID string) (engine.Snapshot, error) {
	return b.StartRun(ctx, deviceID, "", RunChoice{Replay: &Replay{RunID: id}})
}

// ActiveRuns returns a snapshot of each device's newest run.
func (b *Backend) ActiveRuns() []engine.Snapshot { return b.runs.Active() }

// PastRuns lists recorded runs, newest first. A run of this backend still
// going is listed with its live state (and no summary yet: it is going on
// here, not "in another Tandem"); one another Tandem writes is listed as
// running there (its record is locked), never as interrupted.
func (b *Backend) PastRuns() ([]RunSummary, error) {
	list, err := PastRuns(b.runs.dataDir)
	for i, s := range list {
		if r, gerr := b.runs.Get(s.ID); gerr == nil && (s.State == StateInterrupted || s.State == StateElsewhere) {
			list[i].State, list[i].Summary = r.State().String(), ""
		}
	}
	return list, err
}

// RunSteps returns a recorded run step by step, for the history view.
func (b *Backend) RunSteps(id string) (RunDetail, error) {
	b.wholeVideos(id)
	return ReadRun(b.runs.dataDir, id)
}

// wholeVideos waits for run id's video being closed, if any, and makes a
// killed run's whole, before History, a report or a clip reads it.
func (b *Backend) wholeVideos(id string) {
	if id != "" && !strings.ContainsAny(id, `/\`) && id != "." && id != ".." {
		dir := filepath.Join(b.runs.dataDir, id)
		b.videos.whole(dir)
		finalizeVideos(dir)
	}
}

// ExportReport writes a run's self-contained HTML report and returns its path.
func (b *Backend) ExportReport(id string) (string, error) {
	b.wholeVideos(id)
	return ExportReport(b.runs.dataDir, id)
}

// ClipSteps are the steps a clip goes from and to (History's numbers).
type ClipSteps struct {
	From int `json:"from"`
	To   int `json:"to"`
}

// ExportClip cuts run id's video from step from to step to into a file of
// its own beside the record and returns its path.
func (b *Backend) ExportClip(id string, from, to int) (string, error) {
	b.wholeVideos(id)
	return ExportClip(b.runs.dataDir, id, from, to)
}

// ExportPersonReport is ExportReport for the person: in the language they
// read (UILang), for the window's Open and Save.
func (b *Backend) ExportPersonReport(id string) (string, error) {
	b.wholeVideos(id)
	return ExportReportIn(b.runs.dataDir, id, b.UILang())
}

// ListDevices returns phones, virtual phones and this computer's displays
// (never nil), and what went wrong with a source (a *ListError naming
// each), beside what the others listed.
func (b *Backend) ListDevices(ctx context.Context) ([]DeviceEntry, error) {
	list, err := b.devices.List(ctx)
	if list == nil {
		list = []DeviceEntry{}
	}
	return list, err
}

// ConnectDevice connects a phone over Wi-Fi ("ip:port").
func (b *Backend) ConnectDevice(ctx context.Context, addr string) (DeviceEntry, error) {
	return b.devices.Connect(ctx, addr)
}

// DeviceName is the device's name as the list shows it (its id when none).
func (b *Backend) DeviceName(ctx context.Context, id string) string {
	if list, err := b.devices.List(ctx); err == nil {
		for _, e := range list {
			if e.ID == id && e.Name != "" {
				return e.Name
			}
		}
	}
	return id
}

// StartVirtualPhone starts a virtual phone inside Tandem and attaches it to
// the adb server, so a person can try the agent without a phone.
func (b *Backend) StartVirtualPhone(ctx context.Context) (DeviceEntry, error) {
	serial, err := b.virtual.Start(ctx)
	if err != nil {
		return DeviceEntry{}, err
	}
	list, err := b.devices.List(ctx)
	for _, e := range list {
		if e.ID == serial {
			b.notifier().Notify("devices", list)
			return e, nil
		}
	}
	if err == nil {
		err = errors.New("the virtual phone started but the adb server does not list it")
	}
	return DeviceEntry{}, err
}
