// Package chore is a person's saved chores: a named goal with parameters to
// fill in, optionally the finished run it replays first, and a schedule.
// It is pure data and rules (what a chore's goal becomes with its
// parameters, which times a schedule falls on, which slots were missed) and
// the one file the chores are kept in; it runs nothing. The backend runs a
// chore as a normal run (a replay of its run when it has one), so a
// scheduled run is watched, paused, confirmed and stopped like any other;
// the window, `tandem chore` and the scheduler all read this one list.
//
// A chore's parameters are named in its goal as {name}; a parameter made
// from a run's step also names the text that step recorded (the typed
// text, the tapped contact), which the replay replaces with the value
// given now.
package chore

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Chore is one saved chore.
type Chore struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Goal is what the agent is asked to do; {name} stands for a
	// parameter's value.
	Goal   string  `json:"goal"`
	Params []Param `json:"params,omitempty"`
	// FromRun is the finished run the chore replays first ("" asks the
	// model from the first step).
	FromRun string `json:"from_run,omitempty"`
	// Devices are the devices a scheduled run starts on ("all": every
	// ready phone); a run from a door names its own.
	Devices  []string  `json:"devices,omitempty"`
	Schedule *Schedule `json:"schedule,omitempty"`
	Created  time.Time `json:"created,omitzero"`
	Updated  time.Time `json:"updated,omitzero"`
}

// Param is one value to fill in when the chore runs.
type Param struct {
	Name string `json:"name"`
	// Value is the value used when none is given.
	Value string `json:"value"`
	// Recorded is the text the replayed run recorded for it (typed, or
	// the words of the element tapped), replaced by the value given now.
	Recorded string `json:"recorded,omitempty"`
}

// Limits of what a chore holds, so a file edited by hand cannot make the
// window draw a megabyte of goal.
const (
	MaxName   = 80
	MaxGoal   = 2000
	MaxParams = 12
	MaxValue  = 500
)

// Errors a door words for the person.
var (
	ErrNoName      = errors.New("a chore needs a name")
	ErrNoGoal      = errors.New("a chore needs a goal")
	ErrNameTaken   = errors.New("another chore has that name")
	ErrNotFound    = errors.New("no chore by that name")
	ErrUnknownName = errors.New("the chore has no parameter by that name")
)

// Check refuses a chore that cannot be saved, naming what is wrong.
func (c Chore) Check() error {
	switch {
	case strings.TrimSpace(c.Name) == "":
		return ErrNoName
	case utf8.RuneCountInString(c.Name) > MaxName:
		return fmt.Errorf("a chore's name has at most %d characters", MaxName)
	case strings.TrimSpace(c.Goal) == "":
		return ErrNoGoal
	case utf8.RuneCountInString(c.Goal) > MaxGoal:
		return fmt.Errorf("a chore's goal has at most %d characters", MaxGoal)
	case len(c.Params) > MaxParams:
		return fmt.Errorf("a chore has at most %d parameters", MaxParams)
	}
	seen := map[string]bool{}
	for _, p := range c.Params {
		if !ValidParamName(p.Name) {
			return fmt.Errorf("%q cannot name a parameter: use letters, digits and _", p.Name)
		}
		if seen[p.Name] {
			return fmt.Errorf("two parameters are named %q", p.Name)
		}
		seen[p.Name] = true
		if utf8.RuneCountInString(p.Value) > MaxValue || utf8.RuneCountInString(p.Recorded) > MaxValue {
			return fmt.Errorf("parameter %q: a value has at most %d characters", p.Name, MaxValue)
		}
	}
	if c.Schedule != nil {
		if err := c.Schedule.Check(); err != nil {
			return err
		}
		if len(c.Devices) == 0 {
			return errors.New("a scheduled chore needs the devices it runs on")
		}
	}
	return nil
}

// ValidParamName says whether s can name a parameter: letters (any
// script), digits and _, at most 32 characters.
func ValidParamName(s string) bool {
	if s == "" || utf8.RuneCountInString(s) > 32 {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' {
			return false
		}
	}
	return true
}

// Filled is a chore made ready to run: its goal with the values in, and
// what the replay types or looks for instead of what it recorded.
type Filled struct {
	Goal  string
	Subst map[string]string
}

// Fill puts values (by parameter name) into the chore; a parameter not
// given keeps its saved value. A name the chore does not have is an error
// that lists the names it has.
func (c Chore) Fill(values map[string]string) (Filled, error) {
	have := map[string]bool{}
	for _, p := range c.Params {
		have[p.Name] = true
	}
	var unknown []string
	for k := range values {
		if !have[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		names := make([]string, 0, len(c.Params))
		for _, p := range c.Params {
			names = append(names, p.Name)
		}
		return Filled{}, fmt.Errorf("%w: %s (it has: %s)", ErrUnknownName, strings.Join(unknown, ", "), orNone(names))
	}
	f := Filled{Goal: c.Goal, Subst: map[string]string{}}
	for _, p := range c.Params {
		v, ok := values[p.Name]
		if !ok {
			v = p.Value
		}
		if utf8.RuneCountInString(v) > MaxValue {
			return Filled{}, fmt.Errorf("parameter %q: a value has at most %d characters", p.Name, MaxValue)
		}
		f.Goal = strings.ReplaceAll(f.Goal, "{"+p.Name+"}", v)
		if p.Recorded != "" && v != p.Recorded {
			f.Subst[p.Recorded] = v
		}
	}
	return f, nil
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

// Step is what a recorded step offers a chore: its kind ("type", "tap",
// …), the words of the element it hit, the text it typed.
type Step struct {
	Kind   string
	Target string
	Text   string
}

// FromRun makes a chore of a finished run: its goal, and a parameter for
// each text the run typed, with the goal's mention of it turned into
// {name}. The person renames, drops or adds parameters before saving
// (Suggest offers the rest).
func FromRun(name, runID, goal string, steps []Step) Chore {
	c := Chore{Name: name, Goal: goal, FromRun: runID}
	for _, s := range steps {
		if s.Kind == "type" {
			c = c.WithParam("text", s.Text)
		}
	}
	return c
}

// Suggest lists the words of elements the run tapped that its goal names
// (a contact, a city): candidates for a parameter the person may add.
func Suggest(goal string, steps []Step) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range steps {
		t := strings.TrimSpace(s.Target)
		if s.Kind == "tap" && utf8.RuneCountInString(t) >= 2 && !seen[t] && strings.Contains(goal, t) {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// WithParam adds a parameter for recorded text, named base (base2, base3
// when taken), and turns the goal's mentions of the text into {name}. A
// text already a parameter, empty or too long is left alone.
func (c Chore) WithParam(base, recorded string) Chore {
	recorded = strings.TrimSpace(recorded)
	if recorded == "" || len(c.Params) >= MaxParams || utf8.RuneCountInString(recorded) > MaxValue {
		return c
	}
	for _, p := range c.Params {
		if p.Recorded == recorded {
			return c
		}
	}
	name := base
	for i := 2; c.hasParam(name); i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	c.Params = append(append([]Param(nil), c.Params...), Param{Name: name, Value: recorded, Recorded: recorded})
	c.Goal = strings.ReplaceAll(c.Goal, recorded, "{"+name+"}")
	return c
}

func (c Chore) hasParam(name string) bool {
	for _, p := range c.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}

// Named gives the parameter that stands for recorded text the name name
// (its mentions in the goal follow), making one when there is none.
func (c Chore) Named(name, recorded string) Chore {
	for i, p := range c.Params {
		if p.Recorded == recorded && p.Name != name && !c.hasParam(name) {
			c.Params = append([]Param(nil), c.Params...)
			c.Params[i].Name = name
			c.Goal = strings.ReplaceAll(c.Goal, "{"+p.Name+"}", "{"+name+"}")
			return c
		}
		if p.Recorded == recorded {
			return c
		}
	}
	return c.WithParam(name, recorded)
}
