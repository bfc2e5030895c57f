package main

// mutant is one fault planted in the run's core: in file (from the
// module's root), the text old, found exactly once, becomes new.
type mutant struct {
	name string
	kind string // what kind of fault (issue 50, item 7)
	file string
	old  string
	new  string
}

// mutants lists the faults `make mutants` plants, each alone.
func mutants() []mutant {
	return []mutant{
		{"budget-unchecked", "a budget check skipped", "engine/loop_next.go",
			`if c := l.budget.exceeded(l.spent()); c.Code != "" {`,
			`if c := l.budget.exceeded(l.spent()); false && c.Code != "" {`},
		{"graceful-limit-unchecked", "a limit check skipped", "engine/loop_next.go",
			`if l.softLimit >= 0 && l.steps >= l.softLimit {`,
			`if false && l.softLimit >= 0 && l.steps >= l.softLimit {`},
		{"early-call-ignores-after", "a guard deleted (the early call's)", "engine/speculate.go",
			`if l.after(head, false).move != movePlan {`,
			`if false && l.after(head, false).move != movePlan {`},
		{"policy-unchecked", "a policy check skipped", "engine/loop_next.go",
			`if why := l.sensitive(*a); why.By != "" {`,
			`if why := l.sensitive(*a); false && why.By != "" {`},
		{"confirm-without-request", "a guard deleted (confirm's)", "engine/chart.go",
			"if l.request == nil || l.request.Kind != AskConfirm {\n\t\treturn \"nothing waits for confirmation\"",
			"if false {\n\t\treturn \"nothing waits for confirmation\""},
		{"table-unchecked", "a guard deleted (the chart's from column: any state's row is taken)", "engine/chart_run.go",
			`for _, n := range c.path(leaf) {`,
			`for n := range c.rows {`},
		{"stale-results-taken", "a guard deleted (the interpreter's: a result of an invocation no longer running)", "engine/chart_run.go",
			`if !l.running(res.invocation()) {`,
			`if false && !l.running(res.invocation()) {`},
		{"reentry-keeps-the-old-call", "an exit effect dropped (a re-entering row's: the state's work stops)", "engine/chart_run.go",
			`if l.chart.reenters[reentry{r.from, r.on}] {`,
			`if false && l.chart.reenters[reentry{r.from, r.on}] {`},
		{"end-ignores-the-persons-input", "a guard deleted (the end's wait for the person's input)", "engine/loop_helpers.go",
			`return l.working(nExecuting) || l.inManual.how == manualInFlight`,
			`return l.working(nExecuting) || false && l.inManual.how == manualInFlight`},
		{"early-call-outlives-wait", "an exit effect dropped (WaitingForStability.Speculating's)", "engine/chart.go",
			"if to != Planning {\n\t\t\tl.dropSpec()",
			"if false {\n\t\t\tl.dropSpec()"},
		{"pause-keeps-the-call", "an exit effect dropped (the interpreter's: a state's work cancelled as it is left)", "engine/chart_invoke.go",
			`if w := l.inv.work; w != 0 && l.chart.within(w, n) {`,
			`if w := l.inv.work; false && w != 0 && l.chart.within(w, n) {`},
		{"timeout-outlives-its-state", "an exit effect dropped (the interpreter's: a state's timeout stopped as it is left)", "engine/chart_invoke.go",
			`if t := l.inv.timer; t != 0 && l.chart.within(t, n) {`,
			`if t := l.inv.timer; false && t != 0 && l.chart.within(t, n) {`},
		{"pause-forgotten-after-the-action", "a guard deleted (Executing's substate)", "engine/loop_act.go",
			`if asked := l.inExec.how; asked != execPlain {`,
			`if asked := l.inExec.how; false && asked != execPlain {`},
		{"pause-never-answered", "a deferred reply never answered (Paused's entry)", "engine/chart.go",
			"for _, w := range l.inExec.pauses {\n\t\tl.reply(w, nil)",
			"for _, w := range l.inExec.pauses {\n\t\t_ = w"},
		{"take-over-never-answered", "a deferred reply never answered (Manual's entry)", "engine/chart.go",
			"for _, w := range l.inExec.takeOvers {\n\t\t\tl.reply(w, nil)",
			"for _, w := range l.inExec.takeOvers {\n\t\t\t_ = w"},
		{"stop-never-answered", "a deferred reply never answered (the final states' entry)", "engine/loop_helpers.go",
			"for _, w := range l.inEnding.waiters {\n\t\tl.reply(w, nil)",
			"for _, w := range l.inEnding.waiters {\n\t\t_ = w"},
		{"input-never-answered", "a deferred reply never answered", "engine/loop_person.go",
			"if l.inManual.reply != nil {\n\t\tl.reply(l.inManual.reply, res.err)",
			"if false && l.inManual.reply != nil {\n\t\tl.reply(l.inManual.reply, res.err)"},
	}
}
