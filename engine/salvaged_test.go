package engine

import (
	"context"
	"testing"

	"tandem/engine/action"
	"tandem/engine/model"
)

// A reply the dialect had to repair, and a decision reused from the action
// cache, are never silent: the record's plan entry and the timeline's step
// say so. The history handed to the model keeps the reply as written and
// the app it was decided in.
func TestSalvagedAndCachedAreRecordedAndShown(t *testing.T) {
	salvaged := func(ctx context.Context, in model.Input) (model.Plan, error) {
		return model.Plan{Thought: "t", Actions: []action.Action{tapPlus}, Raw: "```\nraw-1\n```",
			Salvaged: "removed the code fence around the reply"}, nil
	}
	cached := func(ctx context.Context, in model.Input) (model.Plan, error) {
		return model.Plan{Thought: "t", Actions: []action.Action{tapPlus}, Raw: "raw-2", Cached: true}, nil
	}
	f := newFixture(t, Settings{}, salvaged, cached, reply(finish("done")))
	f.start()
	if res := f.wait(); res.State != Done {
		t.Fatalf("result %+v", res)
	}
	var steps []*StepEvent
	for _, e := range f.ev.kinds(KindStep) {
		steps = append(steps, e.Step)
	}
	if len(steps) < 2 || steps[0].Salvaged == "" || steps[0].Cached || !steps[1].Cached || steps[1].Salvaged != "" {
		t.Fatalf("step events do not flag the salvaged and the cached decision: %+v", steps)
	}
	ents, _, err := ReadRecord(f.run.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var plans []Entry
	for _, e := range ents {
		if e.Kind == recPlan {
			plans = append(plans, e)
		}
	}
	if len(plans) != 3 || plans[0].Salvaged == "" || !plans[1].Cached {
		t.Fatalf("plan entries %+v", plans)
	}
	if in := f.plan.calls()[1]; len(in.History) != 1 || in.History[0].Reply != "```\nraw-1\n```" {
		t.Fatalf("history handed to the model: %+v", in.History)
	}
}
