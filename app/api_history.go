package app

import (
	"time"

	"tandem/engine"
)

// PastRuns lists recorded runs, newest first.
// A run still going is listed with its live state, not as interrupted.
func (a *HistoryAPI) PastRuns() (_ []RunSummary, err error) {
	defer toUI(&err)
	list, err := PastRuns(a.runs.dataDir)
	for i, s := range list {
		if r, gerr := a.runs.Get(s.ID); gerr == nil && s.State == StateInterrupted {
			list[i].State = r.Snapshot().State.String()
		}
	}
	return list, err
}

// ResumeRun continues an interrupted run from its record on its device,
// with the active model profile.
func (a *HistoryAPI) ResumeRun(id string) (_ engine.Snapshot, err error) {
	defer toUI(&err)
	planner, _, err := a.plannerNow() // the record's settings hold
	if err != nil {
		return engine.Snapshot{}, err
	}
	ctx, cancel := a.callCtx(30 * time.Second)
	defer cancel()
	return a.runs.Resume(ctx, id, planner)
}

// RunSteps returns a recorded run step by step, for the history view.
func (a *HistoryAPI) RunSteps(id string) (_ RunDetail, err error) {
	defer toUI(&err)
	return ReadRun(a.runs.dataDir, id)
}

// ExportReport writes a run's self-contained HTML report and returns its path.
func (a *HistoryAPI) ExportReport(id string) (_ string, err error) {
	defer toUI(&err)
	return ExportReport(a.runs.dataDir, id)
}
