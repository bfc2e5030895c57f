package backend

import (
	"context"
	"fmt"
	"image"
	"math"
	"strings"
	"sync/atomic"

	"tandem/engine"
	"tandem/engine/action"
	"tandem/engine/model"
)

// replayPlanner is a replay as the engine sees it: a planner. Each call
// plays the next recorded step, re-aimed at where its target is on the
// screen now, with no network; the first step that is not on the screen
// goes to the model behind it (next), told the goal, the steps done and
// that the replay stopped there, and from then on the run is a normal
// run. With no model (next nil) that step is handed to the person.
//
// It keeps no state of its own: where the replay is comes from the run's
// history (the replay mark of its newest step of the agent's), so a call the
// engine makes ahead and drops (speculate.go), a pause or a resumed
// record never skip a step.
type replayPlanner struct {
	plan  ReplayPlan
	subst map[string]string
	next  model.Planner
	// asked is set once the model behind has been asked: only a hint, for
	// Prepare (where the replay is stays in the history).
	asked atomic.Bool
}

func newReplayPlanner(p ReplayPlan, subst map[string]string, next model.Planner) *replayPlanner {
	return &replayPlanner{plan: p, subst: subst, next: next}
}

// ReadsCurrentApp reports whether a step needs the app in front: when
// the record names the app of a step (it is checked against it), or when
// the model behind reads it. A record that names none (its model did not
// read it) is played without the round trip each step.
func (r *replayPlanner) ReadsCurrentApp() bool {
	for _, st := range r.plan.Steps {
		if st.App != "" {
			return true
		}
	}
	a, ok := r.next.(model.AppReader)
	return r.next != nil && (!ok || a.ReadsCurrentApp())
}

// Prepare passes a frame on to the model behind, when it prepares them,
// once the model has driven: while steps replay, no picture is resized
// and encoded for a model that is not asked (the step handed to it
// encodes its own screen when it is).
func (r *replayPlanner) Prepare(img image.Image) {
	if p, ok := r.next.(model.Preparer); ok && r.asked.Load() {
		p.Prepare(img)
	}
}

// Plan plays the next recorded step, or hands the step to the model.
func (r *replayPlanner) Plan(ctx context.Context, in model.Input, onThought func(string)) (model.Plan, error) {
	at, state := replayAt(in.History)
	n := len(r.plan.Steps)
	switch state {
	case replayOver:
		return r.model(ctx, in, onThought, "")
	case replayDenied:
		return r.handOff(ctx, in, onThought, at, fmt.Sprintf("step %d did not go through", at+1))
	case replayRetry:
		// The person had the step: either they cleared the way (it is on
		// the screen now) or they did it themselves (the next one is).
		if at < n {
			if a, why := r.aim(r.plan.Steps[at], in.Observation); why == "" {
				return r.played(at, a, onThought), nil
			}
		}
		at++
	case replayPlaying:
	}
	if at >= n {
		if r.plan.Success {
			return r.finished(onThought), nil
		}
		return r.handOff(ctx, in, onThought, n, "the recorded run did not finish with success after its last step")
	}
	st := r.plan.Steps[at]
	a, why := r.aim(st, in.Observation)
	if why != "" {
		return r.handOff(ctx, in, onThought, at, fmt.Sprintf("step %d (%s) %s", at+1, describeStep(st), why))
	}
	return r.played(at, a, onThought), nil
}

// replayState is where a run's history says its replay is.
type replayState int

const (
	replayPlaying replayState = iota // at is the next step to play
	replayRetry                      // the replay stopped at step at and the person had it
	replayDenied                     // the newest replayed step did not go through
	replayOver                       // the model has driven since: a normal run
)

// replayAt reads where the replay is from the newest step of the
// agent's in history (the person's own steps are passed over): its replay
// mark, which only the replay sets; a step without one is the model's.
func replayAt(h []model.Step) (int, replayState) {
	for i := len(h) - 1; i >= 0; i-- {
		s := h[i]
		switch {
		case s.ByPerson:
			continue
		case s.Replay == nil:
			return 0, replayOver
		case s.Replay.Played > 0 && s.Result != "" && s.Result != "ok":
			return s.Replay.Played - 1, replayDenied
		case s.Replay.Played > 0:
			return s.Replay.Played, replayPlaying
		case s.Replay.Stopped > 0:
			return s.Replay.Stopped - 1, replayRetry
		}
		return 0, replayOver
	}
	return 0, replayPlaying
}

// played is the plan of step i, re-aimed as a.
func (r *replayPlanner) played(i int, a action.Action, onThought func(string)) model.Plan {
	st := r.plan.Steps[i]
	t := fmt.Sprintf("Replayed step %d/%d: %s", i+1, len(r.plan.Steps), describeStep(st))
	if onThought != nil {
		onThought(t)
	}
	return model.Plan{Thought: t, Actions: []action.Action{a}, Replayed: true, Replay: &model.ReplayMark{Played: i + 1}}
}

// finished ends the replay as the recorded run ended.
func (r *replayPlanner) finished(onThought func(string)) model.Plan {
	t := fmt.Sprintf("Replayed all %d steps of run %s.", len(r.plan.Steps), r.plan.RunID)
	if onThought != nil {
		onThought(t)
	}
	ok := true
	sum := strings.TrimSpace(subst(r.subst, r.plan.Summary))
	if sum == "" {
		sum = t
	}
	return model.Plan{Thought: t, Actions: []action.Action{{Type: action.Finish, Summary: sum, Success: &ok}}, Replayed: true}
}

// handOff gives the step the replay cannot play to the model, told why;
// with no model, to the person.
func (r *replayPlanner) handOff(ctx context.Context, in model.Input, onThought func(string), at int, why string) (model.Plan, error) {
	note := fmt.Sprintf("This run replays an earlier run of the same task (%s) without the model: it played %d of its %d recorded steps "+
		"and stopped here, because %s. Go on from this screen as in a normal run.", r.plan.RunID, at, len(r.plan.Steps), why)
	if r.next != nil {
		return r.model(ctx, in, onThought, note)
	}
	t := fmt.Sprintf("Replay stopped at step %d/%d: %s. No model is set up: do this on the phone, then hand back.", at+1, len(r.plan.Steps), why)
	if onThought != nil {
		onThought(t)
	}
	return model.Plan{Thought: t, Actions: []action.Action{{Type: action.TakeOver, Reason: t}}, Replayed: true,
		Replay: &model.ReplayMark{Stopped: at + 1}}, nil
}

// model asks the model behind, with note added to the step's notes.
func (r *replayPlanner) model(ctx context.Context, in model.Input, onThought func(string), note string) (model.Plan, error) {
	if r.next == nil {
		t := "The replay is over and no model is set up: finish the task on the phone, then hand back."
		return model.Plan{Thought: t, Actions: []action.Action{{Type: action.TakeOver, Reason: t}}, Replayed: true}, nil
	}
	if note != "" {
		in.Notes = append(append([]string(nil), in.Notes...), note)
	}
	r.asked.Store(true)
	return r.next.Plan(ctx, in, onThought)
}

// aim is step st on the screen obs shows: its action re-aimed at where
// its target is now, or why it is not there ("" when it is).
func (r *replayPlanner) aim(st ReplayStep, obs model.Observation) (action.Action, string) {
	a := st.Action
	if a.Type == action.Launch {
		return a, ""
	}
	if st.App != "" && obs.App != "" && !strings.EqualFold(st.App, obs.App) {
		return a, fmt.Sprintf("was done in %s and %s is in front now", st.App, obs.App)
	}
	sx, sy := scaleOf(st.Screen, obs.Screen)
	switch a.Type {
	case action.Tap, action.DoubleTap, action.LongPress:
		return r.find(st, obs, sx, sy)
	case action.Swipe, action.Drag, action.Scroll:
		a.X, a.Y, a.X2, a.Y2 = scaled(a.X, sx), scaled(a.Y, sy), scaled(a.X2, sx), scaled(a.Y2, sy)
		if st.Target == "" {
			return a, ""
		}
		if e, ok := engine.ElementAt(obs.UITree, a.X, a.Y); !ok || e.Shown != subst(r.subst, st.Target) {
			return a, fmt.Sprintf("started on “%s”, which is not on the screen", st.Target)
		}
		return a, ""
	case action.TypeText:
		a.Text = subst(r.subst, a.Text)
		if obs.UITree == nil {
			return a, "needs the screen's elements, which could not be read"
		}
		if _, ok := engine.FocusedNode(obs.UITree); !ok {
			return a, "has no field in focus to type into"
		}
		return a, ""
	case action.Key:
		return a, ""
	case action.RightClick, action.Hotkey, action.Launch, action.Wait, action.Finish, action.Fail, action.AskUser, action.TakeOver:
	}
	return a, "is not an action a replay plays"
}

// find re-aims a pointed step at its target's centre on the screen now:
// the element with its words (and its resource id, when one has it), or
// with no words its resource id and class, the one nearest where it was,
// and only when nothing covers that centre. Never blind: a step that hit
// nothing it can be known by, or a screen whose elements cannot be read,
// is not played.
func (r *replayPlanner) find(st ReplayStep, obs model.Observation, sx, sy float64) (action.Action, string) {
	a := st.Action
	words := subst(r.subst, st.Target)
	what := "“" + words + "”"
	if words == "" {
		what = "the element " + st.ID
	}
	switch {
	case words == "" && st.ID == "":
		return a, "hit no element with words or an id to find it by"
	case obs.UITree == nil:
		return a, "needs the screen's elements, which could not be read"
	}
	best, ok := nearest(candidates(engine.Elements(obs.UITree), st, words), hintOf(st, sx, sy))
	if !ok {
		return a, fmt.Sprintf("hit %s, which is not on the screen", what)
	}
	a.X, a.Y = (best.Bounds.X1+best.Bounds.X2)/2, (best.Bounds.Y1+best.Bounds.Y2)/2
	if e, ok := engine.ElementAt(obs.UITree, a.X, a.Y); !ok || e.Bounds != best.Bounds || e.Label != best.Label {
		return a, fmt.Sprintf("hit %s, which something covers now", what)
	}
	return a, ""
}

// candidates are the elements step st may have hit: those with its
// words, narrowed to its resource id when some have it; with no words,
// those with its resource id (and class).
func candidates(els []engine.Element, st ReplayStep, words string) []engine.Element {
	var out, same []engine.Element
	for _, e := range els {
		switch {
		case words != "" && e.Shown == words:
			out = append(out, e)
			if st.ID != "" && e.ID == st.ID {
				same = append(same, e)
			}
		case words == "" && e.ID == st.ID && (st.Class == "" || e.Class == st.Class):
			out = append(out, e)
		}
	}
	if len(same) > 0 {
		return same
	}
	return out
}

// hintOf is where step st's element was, scaled to the screen now: its
// box's centre, else the point it hit.
func hintOf(st ReplayStep, sx, sy float64) [2]float64 {
	x, y := float64(st.Action.X), float64(st.Action.Y)
	if b := st.Box; b.X2 > b.X1 && b.Y2 > b.Y1 {
		x, y = float64(b.X1+b.X2)/2, float64(b.Y1+b.Y2)/2
	}
	return [2]float64{x * sx, y * sy}
}

// nearest is the element of els whose centre is nearest p.
func nearest(els []engine.Element, p [2]float64) (engine.Element, bool) {
	best, bestD := engine.Element{}, math.Inf(1)
	for _, e := range els {
		cx, cy := float64(e.Bounds.X1+e.Bounds.X2)/2, float64(e.Bounds.Y1+e.Bounds.Y2)/2
		if d := math.Hypot(cx-p[0], cy-p[1]); d < bestD {
			best, bestD = e, d
		}
	}
	return best, !math.IsInf(bestD, 1)
}

// scaleOf is how much larger the screen is now than when recorded (1
// when either size is unknown).
func scaleOf(was, now action.Size) (float64, float64) {
	if was.W <= 0 || was.H <= 0 || now.W <= 0 || now.H <= 0 {
		return 1, 1
	}
	return float64(now.W) / float64(was.W), float64(now.H) / float64(was.H)
}

func scaled(v int, s float64) int { return int(math.Round(float64(v) * s)) }

// describeStep is a step in a few words: tap “+1”, type “hello”.
func describeStep(st ReplayStep) string {
	switch {
	case st.Target != "":
		return st.Kind + " “" + st.Target + "”"
	case st.Text != "":
		return st.Kind + " “" + st.Text + "”"
	case st.ID != "" && st.Action.Type.Pointed():
		return st.Kind + " " + st.ID
	}
	return st.Action.String()
}
