package backend

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tandem/engine"
	"tandem/engine/action"
	"tandem/engine/model"
)

// node is a uiautomator dump's node with words and bounds.
func node(text, id string, x1, y1, x2, y2 int) string {
	return fmt.Sprintf(`<node text="%s" resource-id="%s" class="android.widget.Button" content-desc="" focused="false" bounds="[%d,%d][%d,%d]" />`,
		text, id, x1, y1, x2, y2)
}

func dump(nodes ...string) []byte {
	return []byte(`<?xml version="1.0"?><hierarchy rotation="0">` + strings.Join(nodes, "") + `</hierarchy>`)
}

// fakeModel is a model behind the replay: it answers every call with a
// wait and keeps what it was asked.
type fakeModel struct{ asked []model.Input }

func (f *fakeModel) Plan(_ context.Context, in model.Input, _ func(string)) (model.Plan, error) {
	f.asked = append(f.asked, in)
	return model.Plan{Thought: "the model", Actions: []action.Action{{Type: action.Wait}}}, nil
}

// counterReplay is a recorded Counter run: open it, tap “+1” twice, done.
func counterReplay() ReplayPlan {
	tap := action.Action{Type: action.Tap, X: 180, Y: 400}
	scr := action.Size{W: 360, H: 800}
	return ReplayPlan{RunID: "r1", Goal: "count to 2", Success: true, Summary: "The counter shows 2.", Steps: []ReplayStep{
		{N: 1, Kind: "launch", Action: action.Action{Type: action.Launch, App: "Counter"}, Screen: scr},
		{N: 2, Kind: "tap", Target: "+1", Action: tap, Screen: scr},
		{N: 3, Kind: "type", Text: "Ann", Action: action.Action{Type: action.TypeText, Text: "Ann"}, Screen: scr},
	}}
}

func TestReplayPlaysStepsFromHistory(t *testing.T) {
	m := &fakeModel{}
	r := newReplayPlanner(counterReplay(), map[string]string{"Ann": "Bob"}, m)
	field := `<node text="" resource-id="name" class="android.widget.EditText" focused="true" bounds="[0,0][720,100]" />`
	screen := model.Observation{Screen: action.Size{W: 720, H: 1600}, UITree: dump(node("+1", "plus", 300, 760, 440, 840), field)}
	var h []model.Step
	step := func() model.Plan {
		t.Helper()
		p, err := r.Plan(context.Background(), model.Input{Observation: screen, History: h}, nil)
		if err != nil {
			t.Fatal(err)
		}
		h = append(h, model.Step{N: len(h) + 1, Thought: p.Thought, Actions: p.Actions, Result: "ok", Replay: p.Replay})
		return p
	}
	if p := step(); !p.Replayed || p.Actions[0].Type != action.Launch {
		t.Fatalf("first: %+v", p)
	}
	// Found by its words on a screen twice the size, at its centre now.
	if p := step(); p.Actions[0].Type != action.Tap || p.Actions[0].X != 370 || p.Actions[0].Y != 800 {
		t.Fatalf("tap re-aimed at %+v", p.Actions[0])
	}
	if p := step(); p.Actions[0].Text != "Bob" {
		t.Fatalf("typed %q, want the substitute", p.Actions[0].Text)
	}
	// A call made again on the same history (one the engine dropped)
	// plays the same step: nothing is skipped.
	p1, _ := r.Plan(context.Background(), model.Input{Observation: screen, History: h}, nil)
	p2, _ := r.Plan(context.Background(), model.Input{Observation: screen, History: h}, nil)
	if p1.Thought != p2.Thought || p1.Actions[0].Type != action.Finish || p1.Actions[0].Summary != "The counter shows 2." {
		t.Fatalf("end: %+v / %+v", p1, p2)
	}
	if len(m.asked) != 0 {
		t.Fatalf("the model was asked %d times", len(m.asked))
	}
}

func TestReplayNeverTapsBlind(t *testing.T) {
	played := []model.Step{{N: 1, Thought: "Replayed step 1/3: launch", Result: "ok", Replay: &model.ReplayMark{Played: 1}}}
	for _, c := range []struct {
		name string
		obs  model.Observation
		why  string
	}{
		{"not on the screen", model.Observation{UITree: dump(node("Rate", "b", 0, 0, 100, 100))}, "“+1”, which is not on the screen"},
		{"covered", model.Observation{UITree: dump(node("+1", "plus", 100, 360, 260, 440), node("Not now", "b", 150, 380, 210, 420))}, "covers"},
		{"no tree", model.Observation{}, "could not be read"},
		{"another app", model.Observation{App: "Shop", UITree: dump(node("+1", "plus", 100, 360, 260, 440))}, "Shop is in front"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := counterReplay()
			rec.Steps[1].App = "Counter"
			m := &fakeModel{}
			p, err := newReplayPlanner(rec, nil, m).Plan(context.Background(), model.Input{Observation: c.obs, History: played}, nil)
			if err != nil || p.Replayed || len(m.asked) != 1 {
				t.Fatalf("plan %+v err %v asked %d", p, err, len(m.asked))
			}
			notes := strings.Join(m.asked[0].Notes, " ")
			if !strings.Contains(notes, "stopped here") || !strings.Contains(notes, c.why) {
				t.Fatalf("the model was told %q", notes)
			}
			// With no model, the person is asked to do it; after their
			// hand back the step is tried again.
			none := newReplayPlanner(rec, nil, nil)
			p, _ = none.Plan(context.Background(), model.Input{Observation: c.obs, History: played}, nil)
			if p.Actions[0].Type != action.TakeOver {
				t.Fatalf("no model: %+v", p)
			}
			back := append(append([]model.Step(nil), played...), model.Step{N: 2, Thought: p.Thought, Result: "handed to the person", Replay: p.Replay},
				model.Step{N: 3, ByPerson: true, Result: "ok"})
			ok := model.Observation{UITree: dump(node("+1", "plus", 100, 360, 260, 440))}
			if p, _ = none.Plan(context.Background(), model.Input{Observation: ok, History: back}, nil); !p.Replayed || p.Actions[0].Type != action.Tap {
				t.Fatalf("after the hand back: %+v", p)
			}
		})
	}
}

// Once the model has chosen a step, the run is a normal run; a replayed
// step the person denied goes to the model.
func TestReplayAfterTheModel(t *testing.T) {
	m := &fakeModel{}
	r := newReplayPlanner(counterReplay(), nil, m)
	obs := model.Observation{UITree: dump(node("+1", "plus", 100, 360, 260, 440))}
	h := []model.Step{{N: 1, Thought: "the model", Result: "ok", Reply: "{}"}}
	if p, _ := r.Plan(context.Background(), model.Input{Observation: obs, History: h}, nil); p.Replayed {
		t.Fatal("replayed after the model drove")
	}
	// A model whose thought reads like the replay's is still the model.
	h = []model.Step{{N: 1, Thought: "Replayed step 1/3", Result: "ok", Reply: "Replayed step 1/3"}}
	if p, _ := r.Plan(context.Background(), model.Input{Observation: obs, History: h}, nil); p.Replayed {
		t.Fatal("the model's words moved the replay")
	}
	denied := []model.Step{{N: 1, Thought: "Replayed step 2/3: tap", Result: "denied by the person", Replay: &model.ReplayMark{Played: 2}}}
	if p, _ := r.Plan(context.Background(), model.Input{Observation: obs, History: denied}, nil); p.Replayed {
		t.Fatal("replayed on after a denial")
	}
	if len(m.asked) != 3 || !strings.Contains(strings.Join(m.asked[2].Notes, ""), "step 2 did not go through") {
		t.Fatalf("asked %d", len(m.asked))
	}
}

func TestReplayOfARecord(t *testing.T) {
	ok := true
	tap := action.Action{Type: action.Tap, X: 1, Y: 2}
	entries := []engine.Entry{
		{Kind: engine.EntryStart, Goal: "g"},
		{Kind: engine.EntryObserve, Call: 1, App: "Counter", Screen: action.Size{W: 360, H: 800}},
		{Kind: engine.EntryAction, N: 1, Call: 1, Action: &tap, Result: "ok", Target: "+1",
			Element: &engine.Element{Shown: "+1", ID: "plus", Class: "android.widget.Button", Bounds: engine.Region{X1: 1, Y1: 1, X2: 9, Y2: 9}}},
		{Kind: engine.EntryAction, N: 2, Call: 1, Action: &action.Action{Type: action.Wait}, Result: "ok"},
		{Kind: engine.EntryAction, N: 3, Call: 1, Action: &tap, Result: "denied"},
		{Kind: engine.EntryEnd, End: &engine.Result{State: engine.Done, Success: ok, Summary: "s"}},
	}
	p, err := replayOf("r", entries)
	if err != nil || len(p.Steps) != 1 || p.Steps[0].App != "Counter" || p.Steps[0].Target != "+1" || p.Steps[0].ID != "plus" || p.Steps[0].Box.X2 != 9 || !p.Success || p.Goal != "g" {
		t.Fatalf("%+v %v", p, err)
	}
	if _, err := replayOf("r", entries[:2]); !errors.Is(err, ErrNotReplayable) {
		t.Fatalf("no steps: %v", err)
	}
	if got := subst(map[string]string{"Ann": "Bo", "Ann Lee": "Cy"}, "Ann Lee and Ann"); got != "Cy and Bo" {
		t.Fatalf("subst %q", got)
	}
}

// A step is found by its resource id (and class) when it hit an element
// with no words, and by its words and id when several have its words.
func TestReplayFindsByID(t *testing.T) {
	scr := action.Size{W: 360, H: 800}
	fab := ReplayStep{N: 1, Kind: "tap", ID: "fab", Class: "android.widget.Button", Action: action.Action{Type: action.Tap, X: 10, Y: 10}, Screen: scr}
	twin := ReplayStep{N: 1, Kind: "tap", Target: "OK", ID: "ok2", Action: action.Action{Type: action.Tap, X: 10, Y: 10}, Screen: scr}
	blind := ReplayStep{N: 1, Kind: "tap", Action: action.Action{Type: action.Tap, X: 10, Y: 10}, Screen: scr}
	tree := dump(node("", "fab", 300, 700, 340, 740), node("OK", "ok1", 0, 0, 40, 40), node("OK", "ok2", 300, 0, 340, 40))
	for _, c := range []struct {
		st   ReplayStep
		x, y int
		why  string
	}{
		{fab, 320, 720, ""},
		{twin, 320, 20, ""},
		{blind, 0, 0, "no element with words or an id"},
	} {
		r := newReplayPlanner(ReplayPlan{RunID: "r", Steps: []ReplayStep{c.st}}, nil, nil)
		a, why := r.aim(c.st, model.Observation{Screen: scr, UITree: tree})
		if !strings.Contains(why, c.why) || c.why == "" && (why != "" || a.X != c.x || a.Y != c.y) {
			t.Errorf("%+v: at (%d,%d), %q", c.st, a.X, a.Y, why)
		}
	}
}

// The app in front is read only when the record names one or the model
// behind reads it.
func TestReplayReadsTheAppOnlyWhenNeeded(t *testing.T) {
	rec := counterReplay()
	if newReplayPlanner(rec, nil, nil).ReadsCurrentApp() {
		t.Fatal("reads the app for a record that names none")
	}
	rec.Steps[1].App = "Counter"
	if !newReplayPlanner(rec, nil, nil).ReadsCurrentApp() {
		t.Fatal("does not read the app the record names")
	}
}

// A replay's setup needs no model; its goal and typed text take the
// chore's parameters, and ReplaySteps lists what it plays.
func TestReplaySetupWithoutAModel(t *testing.T) {
	data := t.TempDir()
	b := New(Config{ConfigDir: t.TempDir(), DataDir: data, KeyFile: true, ADB: "127.0.0.1:1"})
	defer b.Shutdown()
	dir := filepath.Join(Config{DataDir: data}.Runs(), "r1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lines := `{"t":"2026-12-07T00:00:00Z","kind":"start","id":"r1","goal":"Add Noah Fischer","device":"d"}
{"t":"2026-12-07T00:00:01Z","kind":"observe","call":1,"screen":{"w":360,"h":800}}
{"t":"2026-12-07T00:00:02Z","kind":"action","n":1,"call":1,"action":{"type":"type","text":"Noah Fischer"},"result":"ok"}
{"t":"2026-12-07T00:00:03Z","kind":"end","end":{"state":"Done","success":true,"summary":"Added.","steps":1,"calls":1,"usage":{"prompt_tokens":0,"completion_tokens":0,"cost":0}}}
`
	if err := os.WriteFile(filepath.Join(dir, "record.jsonl"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	steps, err := b.ReplaySteps("r1")
	if err != nil || len(steps) != 1 || steps[0].Kind != "type" || steps[0].Text != "Noah Fischer" {
		t.Fatalf("%+v %v", steps, err)
	}
	s, err := b.RunSetup(RunChoice{Replay: &Replay{RunID: "r1", Subst: map[string]string{"Noah Fischer": "Ann Lee"}}})
	if err != nil || !s.NoModel || s.Goal != "Add Ann Lee" {
		t.Fatalf("%+v %v", s, err)
	}
	focused := model.Observation{UITree: dump(`<node text="" resource-id="name" focused="true" bounds="[0,0][9,9]" />`)}
	p, _ := s.Planner.Plan(context.Background(), model.Input{Observation: focused}, nil)
	if p.Actions[0].Text != "Ann Lee" {
		t.Fatalf("typed %q", p.Actions[0].Text)
	}
	if _, err := b.RunSetup(RunChoice{Replay: &Replay{RunID: "none"}}); err == nil {
		t.Fatal("a replay of no record set up")
	}
}

// Text is typed only into a field in focus.
func TestReplayTypesOnlyIntoAFocusedField(t *testing.T) {
	st := ReplayStep{N: 1, Kind: "type", Text: "hi", Action: action.Action{Type: action.TypeText, Text: "hi"}}
	r := newReplayPlanner(ReplayPlan{RunID: "r", Steps: []ReplayStep{st}}, nil, nil)
	if _, why := r.aim(st, model.Observation{UITree: dump(node("+1", "plus", 0, 0, 9, 9))}); !strings.Contains(why, "no field in focus") {
		t.Fatalf("typed with nothing in focus: %q", why)
	}
	if _, why := r.aim(st, model.Observation{}); why == "" {
		t.Fatal("typed on a screen it could not read")
	}
}

// preparing is a model that counts the frames it is asked to prepare.
type preparing struct {
	fakeModel
	frames int
}

func (p *preparing) Prepare(image.Image) { p.frames++ }

// While steps replay, no frame is prepared for the model behind; once it
// has been asked, every frame is.
func TestReplayPreparesNoPictureForAModelNotAsked(t *testing.T) {
	m := &preparing{}
	r := newReplayPlanner(counterReplay(), nil, m)
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	r.Prepare(img)
	if p, _ := r.Plan(context.Background(), model.Input{}, nil); !p.Replayed {
		t.Fatalf("the first step was not replayed: %+v", p)
	}
	r.Prepare(img)
	if m.frames != 0 {
		t.Fatalf("%d frames prepared while replaying", m.frames)
	}
	h := []model.Step{{N: 1, Thought: "the model", Result: "ok", Reply: "{}"}}
	if _, err := r.Plan(context.Background(), model.Input{History: h}, nil); err != nil || len(m.asked) != 1 {
		t.Fatalf("the model was not asked: %v", err)
	}
	r.Prepare(img)
	if m.frames != 1 {
		t.Fatalf("%d frames prepared after the model drove, want 1", m.frames)
	}
}
