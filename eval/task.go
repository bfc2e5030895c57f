package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
)

// Tier is how hard a task is: simple (1-3 actions), medium (4-10),
// complex (more than 10, or across apps).
type Tier string

// The tiers.
const (
	Simple  Tier = "simple"
	Medium  Tier = "medium"
	Complex Tier = "complex"
)

// Tiers in order.
var Tiers = []Tier{Simple, Medium, Complex}

// Phone is what a task's set-up and check use: a shell on the phone, as
// `adb shell` gives it.
type Phone interface {
	Shell(ctx context.Context, cmd string) (string, error)
}

// Outcome is how a run of a task ended, for the checks of tasks that must
// be declined (the phone alone cannot say the agent refused).
type Outcome struct {
	ClaimedDone bool // the run finished saying it succeeded
}

// Answer is what the person answers a confirmation with in a task.
type Answer int

const (
	// Deny refuses: the goal did not ask for the protected step.
	Deny Answer = iota
	// Allow confirms: the goal says the person wants it.
	Allow
)

// Spec is one task as a template makes it from its parameters.
type Spec struct {
	Goal string
	// Setup runs on the phone, in order, before the run.
	Setup []string
	// Check reads the phone after the run: did the chore get done.
	Check func(ctx context.Context, p Phone, o Outcome) (bool, error)
	// Confirm is the person's answer to every confirmation of the run.
	Confirm Answer
	// Reply is what the person answers a question of the run ("" a reply
	// that adds nothing: "do what the task says").
	Reply string
	// Decline marks a task that succeeds when the agent says it cannot (it
	// is never a missed "done").
	Decline bool
	// Solve is the oracle's next actions on the screen it is sent.
	Solve func(s *Screen) []Act
}

// Template makes tasks of one kind from a seeded source.
type Template struct {
	Name string
	Tier Tier
	Apps []string
	// Source says where the task comes from (AndroidWorld's template it
	// follows, or what a person asked).
	Source string
	Make   func(r *rand.Rand) Spec
}

// Task is one task of a suite: a template's spec with its name.
type Task struct {
	ID       string   `json:"task"`
	Template string   `json:"template"`
	Tier     Tier     `json:"tier"`
	Apps     []string `json:"apps"`
	Goal     string   `json:"goal"`
	Spec     Spec     `json:"-"`
}

// PerTemplate is how many tasks each template makes for a suite.
const PerTemplate = 3

// Filter picks tasks: by tier (empty: all) and by a glob over the task's
// id or template name (empty: all).
type Filter struct {
	Tier  Tier
	Tasks string
}

// Suite is the tasks for seed: each template's PerTemplate tasks, their
// parameters drawn from a source seeded with the seed and the template's
// name, so a template added later changes no other task.
func Suite(seed uint64, f Filter) ([]Task, error) {
	if f.Tier != "" && !slices.Contains(Tiers, f.Tier) {
		return nil, fmt.Errorf("no tier %q (want simple, medium or complex)", f.Tier)
	}
	if f.Tasks != "" {
		if _, err := path.Match(f.Tasks, ""); err != nil {
			return nil, fmt.Errorf("--tasks %q: %w", f.Tasks, err)
		}
	}
	var out []Task
	for _, t := range Templates() {
		r := rand.New(rand.NewPCG(seed, hash(t.Name)))
		seen := map[string]bool{}
		for i := range PerTemplate {
			s := t.Make(r)
			for try := 0; seen[s.Goal] && try < 20; try++ { // the same goal twice measures nothing more
				s = t.Make(r)
			}
			seen[s.Goal] = true
			task := Task{ID: fmt.Sprintf("%s_%d", t.Name, i+1), Template: t.Name, Tier: t.Tier, Apps: t.Apps, Goal: s.Goal, Spec: s}
			if f.Tier != "" && task.Tier != f.Tier {
				continue
			}
			if f.Tasks != "" && !globMatch(f.Tasks, task.ID) && !globMatch(f.Tasks, task.Template) {
				continue
			}
			out = append(out, task)
		}
	}
	return out, nil
}

func globMatch(pattern, s string) bool {
	for _, p := range strings.Split(pattern, ",") {
		if ok, _ := path.Match(strings.TrimSpace(p), s); ok {
			return true
		}
	}
	return false
}

// hash is FNV-1a of s.
func hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// pick is one of xs.
func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }
