package app

import (
	"time"

	"tandem/backend"
	"tandem/engine"
)

// PastRuns lists recorded runs, newest first, live ones with their state.
func (a *HistoryAPI) PastRuns() (_ []backend.RunSummary, err error) {
	defer toUI(&err)
	return a.b.PastRuns()
}

// ResumeRun continues an interrupted run from its record.
func (a *HistoryAPI) ResumeRun(id string) (_ engine.Snapshot, err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(30 * time.Second)
	defer cancel()
	return a.b.ResumeRun(ctx, id)
}

// RunAgain replays a finished run on a device: its recorded steps
// without the model, a step not on the screen handed to the model.
func (a *HistoryAPI) RunAgain(id, device string) (_ engine.Snapshot, err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(30 * time.Second)
	defer cancel()
	return a.b.RunAgain(ctx, id, device)
}

// RunSteps returns a recorded run step by step, for the history view.
func (a *HistoryAPI) RunSteps(id string) (_ backend.RunDetail, err error) {
	defer toUI(&err)
	return a.b.RunSteps(id)
}

// ExportClip cuts a run's video from one step to another into an MP4
// beside its record and returns its path.
func (a *HistoryAPI) ExportClip(id string, steps backend.ClipSteps) (_ string, err error) {
	defer toUI(&err)
	return a.b.ExportClip(id, steps.From, steps.To)
}

// ExportReport writes a run's self-contained HTML report and returns its path.
func (a *HistoryAPI) ExportReport(id string) (_ string, err error) {
	defer toUI(&err)
	return a.b.ExportPersonReport(id)
}
