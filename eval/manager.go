package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"tandem/backend"
)

// Evaluations are the window's evaluations: one at a time runs the suite
// (or a tier) for each chosen model, one model after another on the same
// virtual phones, and every one is kept as a file in the data dir, to be
// opened and compared later and written as an HTML report.
type Evaluations struct {
	b      *backend.Backend
	dir    string
	notify func(Progress)

	mu     sync.Mutex
	cur    *Evaluation
	cancel context.CancelFunc
	done   chan struct{}
}

// EvalRequest is what the person chose: the models (saved profiles by
// name, and the built-in oracle), which tasks and how many phones.
type EvalRequest struct {
	Profiles []string `json:"profiles"`
	Oracle   bool     `json:"oracle"`
	Tier     Tier     `json:"tier"`
	Tasks    string   `json:"tasks"`
	Seed     uint64   `json:"seed"`
	Phones   int      `json:"phones"`
}

// Evaluation is one evaluation: its request and each model's results.
type Evaluation struct {
	ID       string        `json:"id"`
	Started  time.Time     `json:"started"`
	Ended    *time.Time    `json:"ended,omitempty"`
	State    string        `json:"state"` // running, done, stopped, failed
	Error    string        `json:"error,omitempty"`
	Request  EvalRequest   `json:"request"`
	Tasks    []Task        `json:"tasks"`
	Models   []ModelResult `json:"models"`
	Declined []string      `json:"declined,omitempty"` // templates that succeed by declining
}

// ModelResult is one model's task runs and score.
type ModelResult struct {
	Name    string    `json:"name"`
	Results []TaskRun `json:"results"`
	Summary Summary   `json:"summary"`
}

// Progress is what the window hears while an evaluation runs.
type Progress struct {
	ID    string   `json:"id"`
	State string   `json:"state"`
	Model string   `json:"model"`
	Done  int      `json:"done"`
	Total int      `json:"total"`
	Last  *TaskRun `json:"last,omitempty"`
}

// EvalSummary is a saved evaluation in the list.
type EvalSummary struct {
	ID      string    `json:"id"`
	Started time.Time `json:"started"`
	State   string    `json:"state"`
	Models  []string  `json:"models"`
	Tasks   int       `json:"tasks"`
	Rates   []float64 `json:"rates"` // each model's success rate, in Models' order
}

// OracleName is the oracle's name among the models.
const OracleName = "Oracle (built-in)"

// NewEvaluations keeps evaluations in dir; notify hears their progress.
func NewEvaluations(b *backend.Backend, dir string, notify func(Progress)) *Evaluations {
	if notify == nil {
		notify = func(Progress) {}
	}
	return &Evaluations{b: b, dir: dir, notify: notify}
}

// ErrBusy is a second evaluation while one runs.
var ErrBusy = errors.New("an evaluation is running: stop it or wait for it to end")

// Start begins an evaluation and returns it as it starts.
func (e *Evaluations) Start(req EvalRequest) (Evaluation, error) {
	models := slices.Clone(req.Profiles)
	if req.Oracle {
		models = append([]string{OracleName}, models...)
	}
	if len(models) == 0 {
		return Evaluation{}, errors.New("choose at least one model to evaluate")
	}
	if req.Phones < 1 || req.Phones > 4 {
		req.Phones = 2
	}
	tasks, err := Suite(req.Seed, Filter{Tier: req.Tier, Tasks: req.Tasks})
	if err != nil {
		return Evaluation{}, err
	}
	if len(tasks) == 0 {
		return Evaluation{}, errors.New("no task matches that tier")
	}
	for _, p := range req.Profiles {
		if _, err := e.b.RunSetup(backend.RunChoice{Profile: p}); err != nil {
			return Evaluation{}, fmt.Errorf("%s: %w", p, err)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cur != nil {
		return Evaluation{}, ErrBusy
	}
	now := time.Now()
	ev := &Evaluation{ID: now.Format("20060102-150405"), Started: now, State: "running", Request: req, Tasks: tasks}
	for t := range Declined(tasks) {
		ev.Declined = append(ev.Declined, t)
	}
	for _, m := range models {
		ev.Models = append(ev.Models, ModelResult{Name: m})
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.cur, e.cancel, e.done = ev, cancel, make(chan struct{})
	go e.run(ctx, ev, e.done)
	return e.copyOf(ev), nil
}

// Stop ends the running evaluation (its task runs are stopped) and waits
// for it to be saved.
func (e *Evaluations) Stop(ctx context.Context) error {
	e.mu.Lock()
	cancel, done := e.cancel, e.done
	e.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops the running evaluation, as the window closes, and waits
// for it to be saved (10 s at most).
func (e *Evaluations) Close() {
	e.mu.Lock()
	cancel, done := e.cancel, e.done
	e.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
	}
}

// run plays every model in turn on the same phones, saving as it goes.
func (e *Evaluations) run(ctx context.Context, ev *Evaluation, done chan struct{}) {
	defer close(done)
	total := len(ev.Tasks) * len(ev.Models)
	count := 0
	var devs []string
	for range ev.Request.Phones {
		d, err := e.b.StartVirtualPhone(ctx)
		if err != nil {
			e.finish(ev, "failed", "starting a virtual phone: "+err.Error())
			return
		}
		devs = append(devs, d.ID)
	}
	var oracle *Oracle
	for i := range ev.Models {
		name := ev.Models[i].Name
		cfg := Config{Backend: e.b, ADB: e.b.ADBAddr(), Devices: devs, Repeat: 1, Seed: ev.Request.Seed,
			Choice: backend.RunChoice{Profile: name, StartedBy: "Evaluate"}}
		if name == OracleName {
			o, err := StartOracle(ctx, ev.Tasks, nil)
			if err != nil {
				e.finish(ev, "failed", err.Error())
				return
			}
			oracle = o
			cfg.ChoiceFor = func(t Task) backend.RunChoice {
				return backend.RunChoice{Model: &backend.Profile{Name: OracleName, BaseURL: o.BaseURL(), Model: ModelFor(t), Dialect: "tools", UITree: true},
					Key: o.Key(), StartedBy: "Evaluate"}
			}
		}
		start := time.Now()
		cfg.Finished = func(r TaskRun) {
			count++
			e.mu.Lock()
			ev.Models[i].Results = append(ev.Models[i].Results, r)
			ev.Models[i].Summary = Summarize(ev.Models[i].Results, declinedSet(ev.Declined), time.Since(start).Seconds())
			e.mu.Unlock()
			e.save(ev)
			e.notify(Progress{ID: ev.ID, State: "running", Model: name, Done: count, Total: total, Last: &r})
		}
		_, err := Run(ctx, cfg, ev.Tasks)
		if ctx.Err() != nil {
			break
		}
		if err != nil {
			e.finish(ev, "failed", err.Error())
			return
		}
	}
	if oracle != nil {
		oracle.Close()
	}
	if ctx.Err() != nil {
		e.finish(ev, "stopped", "")
		return
	}
	e.finish(ev, "done", "")
}

func declinedSet(ts []string) map[string]bool {
	m := map[string]bool{}
	for _, t := range ts {
		m[t] = true
	}
	return m
}

func (e *Evaluations) finish(ev *Evaluation, state, why string) {
	now := time.Now()
	e.mu.Lock()
	ev.State, ev.Error, ev.Ended = state, why, &now
	e.cur, e.cancel = nil, nil
	e.mu.Unlock()
	e.save(ev)
	n := 0
	for _, m := range ev.Models {
		n += len(m.Results)
	}
	e.notify(Progress{ID: ev.ID, State: state, Done: n, Total: len(ev.Tasks) * len(ev.Models)})
}

func (e *Evaluations) copyOf(ev *Evaluation) Evaluation {
	b, _ := json.Marshal(ev)
	var c Evaluation
	_ = json.Unmarshal(b, &c)
	return c
}

// save writes ev to its file (whole, through a temporary file). A write
// that fails is told in the evaluation's error, which the page shows, and
// tried again with the next task's result.
func (e *Evaluations) save(ev *Evaluation) {
	err := e.write(ev)
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case err != nil:
		ev.Error = "the evaluation could not be saved: " + err.Error()
	case strings.HasPrefix(ev.Error, "the evaluation could not be saved"):
		ev.Error = ""
	}
}

func (e *Evaluations) write(ev *Evaluation) error {
	e.mu.Lock()
	b, err := json.MarshalIndent(ev, "", " ")
	e.mu.Unlock()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(e.dir, 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(e.dir, ev.ID+".json.tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(e.dir, ev.ID+".json"))
}

// Current is the running evaluation, if any.
func (e *Evaluations) Current() (Evaluation, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cur == nil {
		return Evaluation{}, false
	}
	return e.copyOf(e.cur), true
}

// Load reads a saved evaluation.
func (e *Evaluations) Load(id string) (Evaluation, error) {
	if cur, ok := e.Current(); ok && cur.ID == id {
		return cur, nil
	}
	var ev Evaluation
	b, err := os.ReadFile(filepath.Join(e.dir, filepath.Base(id)+".json"))
	if err != nil {
		return ev, fmt.Errorf("no evaluation %s", id)
	}
	if err := json.Unmarshal(b, &ev); err != nil {
		return ev, fmt.Errorf("evaluation %s cannot be read: %w", id, err)
	}
	if ev.State == "running" { // its Tandem ended while it ran
		ev.State = "stopped"
	}
	return ev, nil
}

// List is the saved evaluations, newest first.
func (e *Evaluations) List() []EvalSummary {
	ents, _ := os.ReadDir(e.dir)
	out := []EvalSummary{} // a list, never null, for the page
	for _, en := range ents {
		id, ok := strings.CutSuffix(en.Name(), ".json")
		if !ok {
			continue
		}
		ev, err := e.Load(id)
		if err != nil {
			continue
		}
		s := EvalSummary{ID: ev.ID, Started: ev.Started, State: ev.State, Tasks: len(ev.Tasks)}
		for _, m := range ev.Models {
			s.Models = append(s.Models, m.Name)
			s.Rates = append(s.Rates, m.Summary.Rate)
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b EvalSummary) int { return b.Started.Compare(a.Started) })
	return out
}
