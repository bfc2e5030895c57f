package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"

	"tandem/engine"
	"tandem/engine/action"
)

// ledger holds, for each run of a seed (a crash resumes another), the
// inputs the phone itself logged as landed, the agent's and the person's,
// and the steps the run emitted. Once the runs have ended, each run's steps
// and its record on disk must say exactly what the phone's log says, in
// order (invariant 7): the engine's own view is not the judge (issue 27: a
// confirmed Pay landed while the run showed no step and its record no
// entry).
type ledger struct {
	runs []*runLedger
}

type runLedger struct {
	run *engine.Run
	// skip is how many entries of its record a resumed run found in the
	// copy it resumed (the crashed run's, judged with that run).
	skip          int
	agent, person []action.Action // landed on the phone
	agentSteps    []action.Action // the run's steps that say they were done
	personSteps   []action.Action
}

// begin starts the ledger of run r, whose record starts after skip entries.
func (l *ledger) begin(r *engine.Run, skip int) {
	l.runs = append(l.runs, &runLedger{run: r, skip: skip})
}

func (l *ledger) cur() *runLedger {
	if len(l.runs) == 0 {
		l.begin(nil, 0)
	}
	return l.runs[len(l.runs)-1]
}

func (l *ledger) landed(a action.Action, person bool) {
	c := l.cur()
	if person {
		c.person = append(c.person, a)
	} else {
		c.agent = append(c.agent, a)
	}
}

// unland forgets the person's last landed input a.
func (l *ledger) unland(a action.Action) {
	c := l.cur()
	for i := len(c.person) - 1; i >= 0; i-- {
		if reflect.DeepEqual(c.person[i], a) {
			c.person = append(c.person[:i], c.person[i+1:]...)
			return
		}
	}
}

func (l *ledger) step(s engine.StepEvent) {
	if s.Result != "ok" {
		return // it failed: in the simulation, nothing reached the phone
	}
	c := l.cur()
	if s.ByPerson {
		c.personSteps = append(c.personSteps, s.Action)
	} else {
		c.agentSteps = append(c.agentSteps, s.Action)
	}
}

// check compares each run's steps and record with the phone's log.
func (l *ledger) check() []string {
	var out []string
	for i, c := range l.runs {
		if c.run == nil {
			continue
		}
		name := "the run"
		if i > 0 {
			name = fmt.Sprintf("the run resumed after crash %d", i)
		}
		out = appendDiff(out, name+"'s steps", "agent's", c.agent, c.agentSteps)
		out = appendDiff(out, name+"'s steps", "person's", c.person, c.personSteps)
		if c.run.Dir() == "" {
			continue
		}
		agent, person, err := recordedInputs(c.run.Dir(), c.skip)
		if err != nil {
			out = append(out, fmt.Sprintf("invariant 7: %s's record cannot be read: %v", name, err))
			continue
		}
		out = appendDiff(out, name+"'s record", "agent's", c.agent, agent)
		out = appendDiff(out, name+"'s record", "person's", c.person, person)
	}
	return out
}

// appendDiff adds a violation when what says differs from what the phone
// logged.
func appendDiff(out []string, what, whose string, phone, says []action.Action) []string {
	for i := 0; i < max(len(phone), len(says)); i++ {
		switch {
		case i >= len(says):
			return append(out, fmt.Sprintf("invariant 7: the phone logged the %s %s (input %d of %d) as landed; %s hold only %d",
				whose, phone[i], i+1, len(phone), what, len(says)))
		case i >= len(phone):
			return append(out, fmt.Sprintf("invariant 7: %s hold the %s %s (%d of %d), which the phone never logged (it logged %d)",
				what, whose, says[i], i+1, len(says), len(phone)))
		case !reflect.DeepEqual(phone[i], says[i]):
			return append(out, fmt.Sprintf("invariant 7: the %s input %d the phone logged is %s; %s say %s",
				whose, i+1, phone[i], what, says[i]))
		}
	}
	return out
}

// recordedInputs reads from a run's record, after its first skip lines,
// the agent's actions and the person's inputs it says were done. The
// simulation reads every seed's record, so it decodes only the lines that
// can be such entries, and only the fields it needs (a simulated record
// has no damaged line: a torn last one is cut when a run resumes it).
func recordedInputs(dir string, skip int) (agent, person []action.Action, err error) {
	b, err := os.ReadFile(filepath.Join(dir, "record.jsonl"))
	if err != nil {
		return nil, nil, err
	}
	n := 0
	for line := range bytes.Lines(b) {
		if n++; n <= skip || !bytes.Contains(line, []byte(`"result":"ok"`)) {
			continue
		}
		var e struct {
			Kind   engine.EntryKind `json:"kind"`
			Action *action.Action   `json:"action"`
			Result string           `json:"result"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, nil, fmt.Errorf("line %d: %w", n, err)
		}
		if e.Action == nil || e.Result != "ok" {
			continue
		}
		switch e.Kind {
		case engine.EntryAction:
			agent = append(agent, *e.Action)
		case engine.EntryManual:
			person = append(person, *e.Action)
		case engine.EntryStart, engine.EntryState, engine.EntryObserve, engine.EntryPlan, engine.EntryRetry,
			engine.EntryStable, engine.EntryNote, engine.EntryRequest, engine.EntryPerson, engine.EntryHistory, engine.EntryEnd,
			engine.EntryDropped:
			// no input
		}
	}
	return agent, person, nil
}
