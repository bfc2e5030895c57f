package engine

import (
	"path/filepath"

	"tandem/engine/model"
)

// SnapshotOf folds a run's record, as far as it is written, into the
// snapshot its own process would show: the window of another Tandem reads
// a run it does not drive this way (another process's `tandem run`, an MCP
// client's task), live, from the record that process writes. It is what
// the record says and no more: no streaming thought, no waiting call's
// seconds, and the pending request only while the last state is
// WaitingForUser.
func SnapshotOf(id string, entries []Entry) Snapshot {
	s := Snapshot{ID: id, Plan: PlanEvent{Todo: []TodoItem{}}}
	var steps stepsRead
	var usage model.Usage
	var calls, unasked int
	for i, e := range entries {
		steps.read(e)
		if i == 0 {
			s.Usage.At = e.T
		}
		s.Usage.ElapsedMs = e.T.Sub(s.Usage.At).Milliseconds()
		switch e.Kind {
		case recStart:
			s.Goal, s.Device = e.Goal, e.Device
		case recState:
			if e.State != nil {
				s.State, s.Reason, s.By = *e.State, e.Reason, e.By
				if s.State != WaitingForUser {
					s.Request = nil
				}
			}
		case recRequest:
			if e.Request != nil {
				r := *e.Request
				s.Request = &r
			}
		case recPlan:
			calls = max(calls, e.Call)
			if e.Error == "" && (e.Replayed || e.Cached || e.Handed) {
				unasked++
			}
			if e.Usage != nil {
				usage = usage.Add(*e.Usage)
			}
			if e.Thought != "" {
				s.Plan.Thought = e.Thought
			}
		case recDropped:
			if e.Usage != nil {
				usage = usage.Add(*e.Usage)
			}
		case recPerson:
			if e.Command == "edit_goal" && e.Text != "" {
				s.Goal = e.Text
			}
		case recEnd:
			if e.End != nil {
				r := *e.End
				s.Result, s.State = &r, r.State
			}
		case recObserve, recRetry, recAction, recStable, recManual, recNote, recHistory:
			// steps.read has the steps; the rest is not shown live
		default: // a kind this Tandem does not know (a newer record's): skipped
		}
	}
	if n := len(entries); n > 0 {
		s.Usage.At = entries[n-1].T
	}
	s.Usage.Total, s.Usage.Calls = usage, max(0, calls-unasked)
	s.Usage.Steps, s.Usage.PersonSteps = steps.agent, steps.person
	s.Steps = steps.list[max(0, len(steps.list)-snapshotSteps):]
	return s
}

// RecordPath is the file of the run record kept in dir: a reader in
// another process watches its size to know when the run moved on.
func RecordPath(dir string) string { return filepath.Join(dir, recordFile) }
