package backend

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"tandem/engine"
	"tandem/engine/action"
)

// Replay plays a finished run's steps again without the model (issue 51):
// each recorded step's target is found on the screen as it is now and
// acted on there; the first step that is not on the screen goes to the
// model (replayplanner.go). The run is a normal run all the same: the
// policy judges every action, whoever chose it.

// Replay, in a RunChoice, names the finished run to play again.
type Replay struct {
	RunID string            // the record's folder name, as --resume takes it
	Subst map[string]string // recorded text -> text to use now (typed text and a target's words), for a chore's parameters
}

// ReplayStep is one step of a recorded run that a replay plays again: an
// action of the agent's that went through ("ok"). Finish is not a step;
// the record's end says how the run ended (ReplayPlan.Done).
type ReplayStep struct {
	N      int    `json:"n"`                // its number among the agent's steps in the record
	Kind   string `json:"kind"`             // the action's type: tap, type, swipe, key, launch, …
	Target string `json:"target,omitempty"` // the words on the element it hit (“+1”), "" when none
	Text   string `json:"text,omitempty"`   // the text it typed (type), else ""
	App    string `json:"app,omitempty"`    // the app in front on the screen it was chosen on
	// ID and Class are the resource id and class of the element it hit
	// ("" when the record does not say: records before issue 51); Box is
	// that element's box then (zero when not known).
	ID    string        `json:"id,omitempty"`
	Class string        `json:"class,omitempty"`
	Box   engine.Region `json:"box,omitzero"`
	// Action is the recorded action in the recorded screen's pixels;
	// Screen is that screen's size.
	Action action.Action `json:"action"`
	Screen action.Size   `json:"screen"`
}

// ReplayPlan is what a record replays: its goal, its steps and how it
// ended.
type ReplayPlan struct {
	RunID   string
	Goal    string
	Steps   []ReplayStep
	Success bool   // the run finished with success
	Summary string // its finish's summary
}

// ErrNotReplayable means a record has nothing a replay can play.
var ErrNotReplayable = errors.New("this run has no steps to replay")

// ReplaySteps returns the steps a replay of run runID plays, in order.
func (b *Backend) ReplaySteps(runID string) ([]ReplayStep, error) {
	p, err := readReplay(b.runs.dataDir, runID)
	return p.Steps, err
}

// readReplay reads what run id's record replays.
func readReplay(dataDir, id string) (ReplayPlan, error) {
	id = filepath.Base(strings.TrimSpace(id))
	if id == "" || id == "." || id == string(filepath.Separator) {
		return ReplayPlan{}, fmt.Errorf("%w: no run named", ErrNotReplayable)
	}
	entries, _, err := engine.ReadRecord(filepath.Join(dataDir, id))
	if err != nil {
		return ReplayPlan{}, err
	}
	return replayOf(id, entries)
}

// replayOf is what a run's entries replay.
func replayOf(id string, entries []engine.Entry) (ReplayPlan, error) {
	p := ReplayPlan{RunID: id}
	type seen struct {
		app    string
		screen action.Size
	}
	calls := map[int]seen{}
	for _, e := range entries {
		switch e.Kind {
		case engine.EntryStart:
			p.Goal = e.Goal
		case engine.EntryObserve:
			calls[e.Call] = seen{app: e.App, screen: e.Screen}
		case engine.EntryAction:
			if e.Action == nil || e.Result != "ok" || !replayable(e.Action.Type) {
				continue
			}
			s := calls[e.Call]
			st := ReplayStep{N: e.N, Kind: string(e.Action.Type), Target: e.Target, App: s.app, Action: *e.Action, Screen: s.screen}
			if e.Action.Type == action.TypeText {
				st.Text = e.Action.Text
			}
			if el := e.Element; el != nil {
				st.ID, st.Class, st.Box = el.ID, el.Class, el.Bounds
			}
			p.Steps = append(p.Steps, st)
		case engine.EntryEnd:
			if e.End != nil {
				p.Success = e.End.State == engine.Done && e.End.Success
				p.Summary = e.End.Summary
			}
		case engine.EntryState, engine.EntryPlan, engine.EntryRetry, engine.EntryStable, engine.EntryManual,
			engine.EntryNote, engine.EntryRequest, engine.EntryPerson, engine.EntryHistory, engine.EntryDropped:
		}
	}
	if len(p.Steps) == 0 {
		return p, fmt.Errorf("%w (%s)", ErrNotReplayable, id)
	}
	return p, nil
}

// replayable says whether a recorded action of type t is played again:
// what acts on the device; a wait is the stability wait's business now,
// and what asked the person asks again only if the model asks.
func replayable(t action.Type) bool {
	switch t {
	case action.Tap, action.DoubleTap, action.LongPress, action.Swipe, action.Drag, action.Scroll,
		action.TypeText, action.Key, action.Launch:
		return true
	case action.RightClick, action.Hotkey, action.Wait, action.Finish, action.Fail, action.AskUser, action.TakeOver:
	}
	return false
}

// subst applies a replay's substitutions to s: each recorded text (the
// longest first, so "Ann Lee" wins over "Ann") becomes the text to use now.
func subst(m map[string]string, s string) string {
	if len(m) == 0 || s == "" {
		return s
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != "" {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) > len(keys[j])
		}
		return keys[i] < keys[j]
	})
	pairs := make([]string, 0, 2*len(keys))
	for _, k := range keys {
		pairs = append(pairs, k, m[k])
	}
	return strings.NewReplacer(pairs...).Replace(s)
}

// replaySetup is RunSetup for a replay: the recorded run's steps in front
// of the chosen model, or of none when none is set up (a replay needs no
// model while every step is on the screen).
func (b *Backend) replaySetup(set Settings, c RunChoice) (Setup, error) {
	plan, err := readReplay(b.runs.dataDir, c.Replay.RunID)
	if err != nil {
		return Setup{}, err
	}
	s, err := b.modelSetup(set, c)
	switch {
	case errors.Is(err, errNoModel):
		p := Profile{Name: "none"}
		s = Setup{Settings: EngineSettings(set, p), Profile: p, StartedBy: c.StartedBy, NoModel: true}
		if c.MaxSteps > 0 {
			s.Settings.Budget.Steps = c.MaxSteps
		}
		if c.MaxMinutes > 0 {
			s.Settings.Budget.WallTime = time.Duration(c.MaxMinutes) * time.Minute
		}
	case err != nil:
		return Setup{}, err
	}
	s.Planner = newReplayPlanner(plan, c.Replay.Subst, s.Planner)
	s.Goal = subst(c.Replay.Subst, plan.Goal) // a chore's parameters are in its goal too
	return s, nil
}
