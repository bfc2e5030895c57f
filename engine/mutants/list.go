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
		{"confirm-without-request", "a guard deleted (confirm's)", "engine/loop_person.go",
			"if l.request == nil || l.request.Kind != AskConfirm {\n\t\treturn &IllegalError{State: l.state, Trigger: OnConfirm,",
			"if false {\n\t\treturn &IllegalError{State: l.state, Trigger: OnConfirm,"},
		{"table-unchecked", "a guard deleted (the table's)", "engine/loop.go",
			`if _, ok := lookup(l.state, m.on); !ok {`,
			`if _, ok := lookup(l.state, m.on); false && !ok {`},
		{"stale-results-taken", "a guard deleted (the runner's generation filter)", "engine/loop.go",
			`m.on != OnDropped && m.gen != l.gen {`,
			`m.on != OnDropped && false && m.gen != l.gen {`},
		{"end-ignores-the-persons-input", "a guard deleted (the end's wait for the person's input)", "engine/loop_helpers.go",
			`return l.acting || l.manual == manualInFlight`,
			`return l.acting || false && l.manual == manualInFlight`},
		{"early-call-outlives-wait", "an exit effect dropped (WaitingForStability's)", "engine/speculate.go",
			`if l.state != WaitingForStability || l.ending != nil {`,
			`if false && (l.state != WaitingForStability || l.ending != nil) {`},
		{"pause-keeps-the-call", "an exit effect dropped (Planning's cancel on pause)", "engine/loop_person.go",
			"case Planning, WaitingForStability:\n\t\tl.cancelWork()\n",
			"case Planning, WaitingForStability:\n"},
		{"watch-outlives-pause", "an exit effect dropped (Paused's unwatch)", "engine/loop.go",
			`if s != Paused && l.watching {`,
			`if false && s != Paused && l.watching {`},
		{"pause-forgotten-after-the-action", "a guard deleted (Executing's substate)", "engine/loop_act.go",
			`if asked := l.executing; asked != execPlain {`,
			`if asked := l.executing; false && asked != execPlain {`},
		{"pause-never-answered", "a deferred reply never answered", "engine/loop.go",
			"for _, w := range l.pauseWaiters {\n\t\t\tl.reply(w, nil)",
			"for _, w := range l.pauseWaiters {\n\t\t\t_ = w"},
		{"take-over-never-answered", "a deferred reply never answered", "engine/loop.go",
			"for _, w := range l.takeOverWaiters {\n\t\t\tl.reply(w, nil)",
			"for _, w := range l.takeOverWaiters {\n\t\t\t_ = w"},
		{"stop-never-answered", "a deferred reply never answered", "engine/loop_helpers.go",
			"for _, w := range l.endWaiters {\n\t\tl.reply(w, nil)",
			"for _, w := range l.endWaiters {\n\t\t_ = w"},
		{"input-never-answered", "a deferred reply never answered", "engine/loop_person.go",
			"if l.manualReply != nil {\n\t\tl.reply(l.manualReply, res.err)",
			"if false && l.manualReply != nil {\n\t\tl.reply(l.manualReply, res.err)"},
	}
}
