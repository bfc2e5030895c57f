package app

import (
	"path/filepath"
	"time"

	"tandem/eval"
)

// The window's Evaluate view: the world of chores (eval/) run for the
// person's models on virtual phones, kept to be compared later.

// evaluations is the app's evaluations, made on first use; their progress
// reaches the page as "eval" events.
func (a *App) evaluations() *eval.Evaluations {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.evals == nil {
		dir := filepath.Join(filepath.Dir(a.b.Config().Runs()), "evaluations")
		a.evals = eval.NewEvaluations(a.b, dir, func(p eval.Progress) {
			a.mu.Lock()
			ev := a.events
			a.mu.Unlock()
			if ev != nil {
				ev.Notify("eval", p)
			}
		})
	}
	return a.evals
}

// StartEvaluation runs the suite (or a tier) for each chosen model.
func (a *EvalAPI) StartEvaluation(req eval.EvalRequest) (_ eval.Evaluation, err error) {
	defer toUI(&err)
	return a.evaluations().Start(req)
}

// StopEvaluation stops the running evaluation; what ran is kept.
func (a *EvalAPI) StopEvaluation() (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(30 * time.Second)
	defer cancel()
	return a.evaluations().Stop(ctx)
}

// Evaluations lists the saved evaluations, newest first.
func (a *EvalAPI) Evaluations() (_ []eval.EvalSummary, err error) {
	defer toUI(&err)
	return a.evaluations().List(), nil
}

// Evaluation reads one evaluation (the running one as it is now).
func (a *EvalAPI) Evaluation(id string) (_ eval.Evaluation, err error) {
	defer toUI(&err)
	return a.evaluations().Load(id)
}

// OpenEvalReport writes an evaluation's HTML report and opens it.
func (a *EvalAPI) OpenEvalReport(id string) (err error) {
	defer toUI(&err)
	path, err := a.evaluations().Report(id)
	if err != nil {
		return err
	}
	return a.open(path)
}

// stopEvaluation ends a running evaluation as the window closes.
func (a *App) stopEvaluation() {
	a.mu.Lock()
	ev := a.evals
	a.mu.Unlock()
	if ev != nil {
		ev.Close()
	}
}
