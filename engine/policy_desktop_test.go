package engine

import (
	"context"
	"errors"
	"image"
	"testing"
	"time"

	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/engine/model"
)

// fakeDesktop is a desktop as the engine sees it: a screen, no UI tree, no
// app in front, and its windows (device.Windows).
type fakeDesktop struct {
	p      *fakePhone
	wins   []device.Window
	winErr error
}

func (d *fakeDesktop) Info(ctx context.Context) (device.Info, error) {
	i, err := d.p.Info(ctx)
	i.Kind = device.Desktop
	return i, err
}
func (d *fakeDesktop) Screenshot(ctx context.Context) (image.Image, error) {
	return d.p.Screenshot(ctx)
}
func (d *fakeDesktop) Do(ctx context.Context, a action.Action) error { return d.p.Do(ctx, a) }
func (d *fakeDesktop) Capabilities() device.Capabilities             { return d.p.Capabilities() }
func (d *fakeDesktop) Close() error                                  { return d.p.Close() }
func (d *fakeDesktop) Windows(context.Context) ([]device.Window, error) {
	return d.wins, d.winErr
}

func thinking(thought string, acts ...action.Action) step {
	return func(ctx context.Context, in model.Input) (model.Plan, error) {
		return model.Plan{Thought: thought, Actions: acts, Raw: "raw"}, nil
	}
}

// The desktop asks too (issue 27): with no UI tree and no app in front, the
// person's list of words and apps matches the window the action is aimed at
// (its title, its program), the text typed, and the model's own words.
func TestDesktopPolicyReadsTheWindows(t *testing.T) {
	checkout := device.Window{Bounds: image.Rect(0, 500, 360, 800), App: "Firefox", Names: []string{"firefox"},
		Title: "Checkout — Pay ¥99", Focused: true}
	notes := device.Window{Bounds: image.Rect(0, 0, 360, 300), App: "Gedit", Title: "notes.txt"}
	term := device.Window{Bounds: image.Rect(0, 0, 360, 300), App: "XTerm", Names: []string{"xterm"}, Title: "bash", Focused: true}
	typeHi := action.Action{Type: action.TypeText, Text: "hi"}
	for _, c := range []struct {
		name   string
		wins   []device.Window
		winErr error
		policy Policy
		step   step
		by     string // "": no confirmation
		detail string
	}{
		{"a tap on a window titled like a checkout", []device.Window{notes, checkout}, nil, DefaultPolicy(), reply(tapPay), "word", "pay"},
		{"a tap on another window", []device.Window{notes, checkout}, nil, DefaultPolicy(), reply(tapPlus), "", ""},
		{"typing into the checkout window", []device.Window{notes, checkout}, nil, DefaultPolicy(), reply(typeHi), "word", "pay"},
		{"typing elsewhere", []device.Window{checkout, term}, nil, Policy{Words: []string{"pay"}}, reply(typeHi), "", ""},
		{"a protected program, by its class", []device.Window{term}, nil, Policy{Apps: []string{"xterm"}}, reply(tapPlus), "app", "xterm"},
		{"the model's own words for the target", []device.Window{notes}, nil, DefaultPolicy(),
			thinking("I will click the Pay now button.", tapDead), "word", "pay"},
		{"windows that cannot be read", nil, errors.New("no X server"), DefaultPolicy(), reply(tapPlus), "unread", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dev := &fakeDesktop{p: newFakePhone(), wins: c.wins, winErr: c.winErr}
			ev := newEvents()
			r, err := New(Config{ID: "run1", Goal: "buy", Device: dev, Planner: &fakePlanner{script: []step{c.step, reply(finish("done"))}},
				DataDir: t.TempDir(), Emitter: ev, Settings: Settings{Policy: c.policy,
					Stability: StabilityConfig{Interval: 10 * time.Millisecond, StableFrames: 2, Max: time.Second}}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = r.Stop(context.Background()); <-r.Done() })
			if err := r.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			if c.by == "" {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				if res, err := r.Wait(ctx); err != nil || res.State != Done {
					t.Fatalf("result %+v, %v; request %+v", res, err, r.Snapshot().Request)
				}
				return
			}
			ev.waitState(t, WaitingForUser)
			req := r.Snapshot().Request
			if req == nil || req.Kind != AskConfirm || req.Why == nil || req.Why.By != c.by || c.detail != "" && req.Why.Detail != c.detail {
				t.Fatalf("request %+v (why %+v)", req, req.Why)
			}
			if _, _, _, did := dev.p.get(); len(did) != 0 {
				t.Fatalf("the action reached the desktop before the person confirmed: %v", did)
			}
		})
	}
}
