package engine

import (
	"context"
	"testing"
)

// An edited goal is news of its own (the person's act), not a change of
// state: the chart's row for it is internal, so it tells no state (issue
// 50, item 3). (An edited plan is told as a state too: when the run took
// it says whether the action under way came first.)
func TestEditsAreNewsNotStates(t *testing.T) {
	f := newFixture(t, Settings{}, blockUntilCancel, reply(finish("ok")))
	f.plan.started = make(chan int, 4)
	f.start()
	<-f.plan.started
	ctx := context.Background()
	if err := f.run.Pause(ctx); err != nil {
		t.Fatal(err)
	}
	f.ev.waitState(t, Paused)
	statesBefore := len(f.ev.states())
	if err := f.run.EditGoal(ctx, "count to one"); err != nil {
		t.Fatal(err)
	}
	f.ev.waitFor(t, "the edited goal", func(e Event) bool {
		return e.Kind == KindPerson && e.Person.Command == "edit_goal"
	})
	if got := f.ev.states(); len(got) != statesBefore {
		t.Errorf("the edit told states %v", got[statesBefore:])
	}
	goal := false
	for _, e := range f.ev.kinds(KindPerson) {
		goal = goal || e.Person.Command == "edit_goal" && e.Person.Text == "count to one"
	}
	if !goal || f.run.Snapshot().Goal != "count to one" || f.run.Snapshot().State != Paused {
		t.Errorf("the edited goal was not told as the person's act (goal %v, snapshot %+v)", goal, f.run.Snapshot().State)
	}
}
