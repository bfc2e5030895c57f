package backend

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"tandem/engine"
	"tandem/engine/model"
	"tandem/engine/model/dialect"
	"tandem/engine/observe"
)

// The planner factory: every door starts a run from the same person's
// settings, model profile, key and prices, so a run from the command line
// asks before the same payments as one from the window.

// RunChoice is what a door chose for one run on top of the person's
// settings. The zero value is the window's Start: the active profile and
// the settings as they are.
type RunChoice struct {
	// Profile names a saved model profile (its name or id); "" is the
	// active one.
	Profile string
	// Model, when set, is a model the door gave in full (the command
	// line's --base-url without --profile), used instead of a saved one.
	Model *Profile
	// Edit changes the chosen profile for this run (the command line's
	// flags); nil leaves it as saved.
	Edit func(*Profile)
	// Key replaces the profile's stored API key when not empty.
	Key string
	// MaxSteps and MaxMinutes replace the settings' step and time budgets
	// when above 0.
	MaxSteps, MaxMinutes int
	// StartedBy names who started the run when it was not the person at
	// the door (an MCP client: "mcp:<its name>"), for the record.
	StartedBy string
	// VerbatimSteps is how many recent steps the model sees in full (0:
	// the planner's default).
	VerbatimSteps int
	// Replay, when set, plays a finished run's steps before (and instead of) the model.
	Replay *Replay
	// NoVideo keeps no video of the run (the command line's --no-video),
	// whatever the settings say.
	NoVideo bool
}

// Setup is what a run starts with: the planner, the engine's settings and
// the model profile they came from (its key is not in it).
type Setup struct {
	Planner  model.Planner
	Settings engine.Settings
	Profile  Profile
	// Saved says whether Profile is one of the person's saved profiles.
	Saved bool
	// StartedBy is the choice's StartedBy, for the record.
	StartedBy string
	// Goal is a replay's goal (the recorded run's, with its
	// substitutions made), used when the door gives none.
	Goal string
	// NoModel says a replay has no model behind it: a step that is not
	// on the screen asks the person.
	NoModel bool
	// Video says whether the run keeps a video (the settings' switch and
	// the choice's NoVideo), and KeepGB the settings' retention limit.
	Video  bool
	KeepGB float64
}

// EngineSettings turns the person's settings into a run's settings.
func EngineSettings(s Settings, p Profile) engine.Settings {
	return engine.Settings{
		Budget: engine.Budget{Steps: s.Budget.MaxSteps, Tokens: s.Budget.MaxTokens, Cost: s.Budget.MaxCost,
			WallTime: time.Duration(s.Budget.MaxMinutes) * time.Minute},
		Policy:    engine.Policy{Words: s.PolicyWords, Apps: s.PolicyApps},
		Stability: engine.StabilityConfig{Max: time.Duration(s.StabilityMs) * time.Millisecond, WaitToAsk: s.WaitToAsk},
		Model:     p.Model, Dialect: p.Dialect, BaseURL: p.BaseURL,
	}
}

// RunSetup makes a run's planner and settings from the person's settings
// as they are now, the chosen profile and its key, and the price table
// (read per run: an edit counts from the next task), with c on top.
func (b *Backend) RunSetup(c RunChoice) (Setup, error) {
	set, _, err := b.settings.Load()
	if err != nil {
		return Setup{}, err
	}
	if c.Replay != nil {
		return b.replaySetup(set, c)
	}
	return b.modelSetup(set, c)
}

// modelSetup is RunSetup's planner of a model.
func (b *Backend) modelSetup(set Settings, c RunChoice) (Setup, error) {
	var err error
	var p Profile
	var key string
	saved := c.Model == nil
	if saved {
		if p, key, err = b.findProfile(set, c.Profile); err != nil {
			return Setup{}, err
		}
	} else {
		p = *c.Model
	}
	if c.Edit != nil {
		c.Edit(&p)
	}
	if c.Key != "" {
		key = c.Key
	}
	if p, err = p.check(!saved); err != nil {
		return Setup{}, err
	}
	d, err := dialect.New(p.Dialect, p.Variant)
	if err != nil {
		return Setup{}, err
	}
	prices, _ := loadPrices(b.cfg.ConfigDir)
	if _, ok := prices.Lookup(p.Model); !ok && set.Budget.MaxCost > 0 {
		// The limit could never trigger: say so rather than run unguarded.
		return Setup{}, fmt.Errorf("a cost limit is set but no price is known for %s: add it to %s, or set the cost limit to 0",
			p.Model, filepath.Join(b.cfg.ConfigDir, pricesFile))
	}
	client, err := clientFor(p, key, 120*time.Second, 3, prices, b.limits.of(p, saved))
	if err != nil {
		return Setup{}, err
	}
	es := EngineSettings(set, p)
	if c.MaxSteps > 0 {
		es.Budget.Steps = c.MaxSteps
	}
	if c.MaxMinutes > 0 {
		es.Budget.WallTime = time.Duration(c.MaxMinutes) * time.Minute
	}
	opts := b.plannerOptions(p)
	opts.VerbatimSteps = c.VerbatimSteps
	return Setup{Planner: model.NewPlanner(client, d, opts), Settings: es, Profile: p, Saved: saved, StartedBy: c.StartedBy,
		Video: !set.VideoOff && !c.NoVideo, KeepGB: set.VideoKeepGB}, nil
}

// ErrNoModel means no model is set up yet (errNoModel says where to set
// one up; a door may add its own way).
var ErrNoModel = errors.New("no model is set up")

var errNoModel = fmt.Errorf("%w: open Settings → Models and add one", ErrNoModel)

// findProfile is the saved profile called name (or with that id; "" the
// active one) and its stored key.
func (b *Backend) findProfile(s Settings, name string) (Profile, string, error) {
	if name == "" {
		name = s.ActiveProfile
	}
	var names []string
	for _, p := range s.Profiles {
		names = append(names, p.Name)
		if p.Name != name && p.ID != name {
			continue
		}
		key, err := b.secrets.Get(p.ID)
		if err != nil && !errors.Is(err, ErrNoSecret) {
			return p, "", fmt.Errorf("read the API key of %q: %w", p.Name, err)
		}
		return p, key, nil
	}
	switch {
	case len(names) == 0:
		return Profile{}, "", errNoModel
	case name == "":
		return Profile{}, "", fmt.Errorf("no model is chosen (saved: %s): pick one in Settings → Models", strings.Join(names, ", "))
	}
	return Profile{}, "", fmt.Errorf("no saved model profile called %q (saved: %s)", name, strings.Join(names, ", "))
}

// clientFor builds the model client for a stored profile; prices (nil for
// a call whose cost nobody sees) prices its usage; limit (nil: none) is
// the one its runs share with every other run of its server and model.
func clientFor(p Profile, key string, timeout time.Duration, retries int, prices *model.PriceTable, limit *model.Limiter) (*model.Client, error) {
	if key == "" {
		key = "none" // local servers accept any key; go-openai needs one
	}
	return model.NewClient(model.ClientConfig{BaseURL: p.BaseURL, APIKey: key, Model: p.Model,
		Timeout: timeout, Retries: retries, Prices: prices, Sampling: p.sampling(), Limit: limit})
}

// plannerOptions are the profile's planner settings; runs of profiles with
// the action cache share the app's one cache.
func (a *Backend) plannerOptions(p Profile) model.PlannerOptions {
	o := model.PlannerOptions{ContextTokens: p.ContextTokens, SmallModel: p.VisionOnDemand, UITree: p.UITree}
	if p.ActionCache {
		a.mu.Lock()
		if a.cache == nil {
			a.cache = observe.NewActionCache[model.Plan](0)
		}
		o.Cache = a.cache
		a.mu.Unlock()
	}
	return o
}

// sampling is what the profile's requests send: its model family's
// reference values, with the profile's own on top.
func (p Profile) sampling() model.Sampling {
	return model.DefaultSampling(p.Dialect, p.Variant).Over(model.Sampling{
		Temperature: p.Temperature, TopP: p.TopP, MaxTokens: p.MaxTokens})
}
