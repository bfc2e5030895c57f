package backend

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"tandem/backend/chore"
	"tandem/engine"
	"tandem/engine/device"
)

// Chore is a saved chore (backend/chore), as every door reads it; its
// parameters and schedule are the doors' as well.
type (
	Chore         = chore.Chore
	ChoreParam    = chore.Param
	ChoreSchedule = chore.Schedule
	ScheduleKind  = chore.Kind
)

// The schedules a chore can have (chore.Kind).
const (
	ScheduleDaily    = chore.Daily
	ScheduleWeekdays = chore.Weekdays
	ScheduleHourly   = chore.Hourly
)

// ChoreDraft is a chore made of a finished run, before the person saves
// it: the parameters made of what it typed, and the words of elements it
// tapped that the goal names, offered as more parameters.
type ChoreDraft struct {
	Chore   Chore    `json:"chore"`
	Suggest []string `json:"suggest"`
}

// AllPhones names every ready phone in a chore's devices.
const AllPhones = "all"

func (b *Backend) choreStore() *chore.Store {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.chores == nil {
		b.chores = chore.NewStore(b.cfg.ConfigDir)
	}
	return b.chores
}

// Chores lists the saved chores by name.
func (b *Backend) Chores() ([]Chore, error) {
	list, err := b.choreStore().List()
	if list == nil {
		list = []Chore{}
	}
	return list, err
}

// Chore finds a saved chore by its name or id.
func (b *Backend) Chore(key string) (Chore, error) { return b.choreStore().Get(key) }

// SaveChore adds or changes a chore and tells the scheduler.
func (b *Backend) SaveChore(c Chore) (Chore, error) {
	saved, err := b.choreStore().Save(c, time.Now())
	if err == nil {
		b.choresChanged()
	}
	return saved, err
}

// DeleteChore removes a chore (its runs stay in History).
func (b *Backend) DeleteChore(key string) error {
	err := b.choreStore().Delete(key)
	if err == nil {
		b.choresChanged()
	}
	return err
}

// DraftChore makes a chore of a finished run for the person to name and
// save: its goal, a parameter for each text it typed, and the replay of
// its steps.
func (b *Backend) DraftChore(runID string) (ChoreDraft, error) {
	d, err := b.RunSteps(runID)
	if err != nil {
		return ChoreDraft{}, err
	}
	rs, err := b.ReplaySteps(runID)
	if err != nil {
		return ChoreDraft{}, err
	}
	steps := make([]chore.Step, len(rs))
	for i, s := range rs {
		steps[i] = chore.Step{Kind: s.Kind, Target: s.Target, Text: s.Text}
	}
	name := []rune(strings.TrimSpace(d.Run.Goal))
	if len(name) > 40 {
		name = append(name[:39], '…')
	}
	c := chore.FromRun(string(name), runID, d.Run.Goal, steps)
	return ChoreDraft{Chore: c, Suggest: chore.Suggest(d.Run.Goal, steps)}, nil
}

// ChoreRun is a chore made ready to run: the goal with its values in and
// the run choice that replays its run first.
type ChoreRun struct {
	Chore  Chore
	Goal   string
	Choice RunChoice
}

// PrepareChore fills a chore's parameters (a name it does not have is an
// error listing the ones it has) and makes the choice that replays its
// run: c is the door's choice of model, to which the replay is added.
func (b *Backend) PrepareChore(key string, values map[string]string, c RunChoice) (ChoreRun, error) {
	ch, err := b.Chore(key)
	if err != nil {
		return ChoreRun{}, err
	}
	f, err := ch.Fill(values)
	if err != nil {
		return ChoreRun{}, err
	}
	if ch.FromRun != "" {
		c.Replay = &Replay{RunID: ch.FromRun, Subst: f.Subst}
	}
	return ChoreRun{Chore: ch, Goal: f.Goal, Choice: c}, nil
}

// ChoreStart is what starting a chore on one device came to: its run, or
// why it did not start.
type ChoreStart struct {
	Device string          `json:"device"`
	Run    engine.Snapshot `json:"run"`
	Error  string          `json:"error,omitempty"`
}

// StartChore starts a chore on each device at once, each its own run
// with its own record and its own confirmations ("all" is every ready
// phone). A device that cannot start (busy, gone) says why beside the
// others, which start anyway; the error is for what stops them all.
func (b *Backend) StartChore(ctx context.Context, key string, values map[string]string, devices []string, c RunChoice) ([]ChoreStart, error) {
	cr, err := b.PrepareChore(key, values, c)
	if err != nil {
		return nil, err
	}
	if len(devices) == 0 {
		devices = cr.Chore.Devices
	}
	devs, err := b.resolveDevices(ctx, devices)
	if err != nil {
		return nil, err
	}
	out := make([]ChoreStart, 0, len(devs))
	for _, d := range devs {
		// Each device gets its own planner: a replay's place in the
		// recorded steps is its own.
		s, err := b.RunSetup(cr.Choice)
		if err != nil {
			return nil, err
		}
		snap, err := b.Launch(ctx, d, cr.Goal, s)
		st := ChoreStart{Device: d, Run: snap}
		if err != nil {
			st.Error = err.Error()
		}
		out = append(out, st)
	}
	return out, nil
}

// resolveDevices turns "all" into every ready phone (never this
// computer's displays) and keeps the others as named, once each.
func (b *Backend) resolveDevices(ctx context.Context, names []string) ([]string, error) {
	var out []string
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == AllPhones {
			lctx, cancel := context.WithTimeout(ctx, 15*time.Second)
			list, _ := b.ListDevices(lctx)
			cancel()
			for _, e := range list {
				if e.Kind == device.Phone && e.Usable() && !slices.Contains(out, e.ID) {
					out = append(out, e.ID)
				}
			}
			continue
		}
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no device to run the chore on: no phone is ready, or none was named")
	}
	return out, nil
}

// choreStarted says what a scheduled start came to, for the log line.
func choreStarted(name string, starts []ChoreStart) string {
	parts := make([]string, 0, len(starts))
	for _, s := range starts {
		if s.Error != "" {
			parts = append(parts, fmt.Sprintf("%s: %s", s.Device, s.Error))
		} else {
			parts = append(parts, s.Device+": "+s.Run.ID)
		}
	}
	return fmt.Sprintf("chore %q: %s", name, strings.Join(parts, "; "))
}
