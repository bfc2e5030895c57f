package engine

import (
	"context"
	"errors"
	"fmt"
	"image"
	"testing"
	"time"

	"tandem/engine/action"
	"tandem/engine/device"
)

// focusPhone is a phone whose "Pay now" button has the focus (a keyboard,
// or the d-pad, moved it there).
type focusPhone struct{ *fakePhone }

func (p focusPhone) UITree(context.Context) ([]byte, error) {
	return []byte(fmt.Sprintf(`<hierarchy><node text="" focused="false" bounds="[0,0][%d,%d]"><node text="+1" focused="false" bounds="[40,0][320,266]"/>`+
		`<node text="" focused="true" bounds="[40,534][320,800]"><node text="Pay now" focused="false" bounds="[60,600][300,700]"/></node></node></hierarchy>`, p.w, p.h)), nil
}

// One judge for every door and device kind (issue 49): another agent's
// single act (Judge) is asked about exactly when a run's step would be, on
// a phone (the element under a tap; the focused one enter presses) and on
// a desktop (the window under a click; the one with the keyboard).
func TestJudgeAsksWhenARunWould(t *testing.T) {
	checkout := device.Window{Bounds: image.Rect(0, 500, 360, 800), App: "Firefox", Title: "Checkout — Pay ¥99", Focused: true}
	notes := device.Window{Bounds: image.Rect(0, 0, 360, 300), App: "Gedit", Title: "notes.txt"}
	enter := action.Action{Type: action.Key, Key: "enter"}
	back := action.Action{Type: action.Key, Key: "back"}
	phone := func() device.Device { return focusPhone{newFakePhone()} }
	desktop := func(wins []device.Window, err error) func() device.Device {
		return func() device.Device { return &fakeDesktop{p: newFakePhone(), wins: wins, winErr: err} }
	}
	for _, c := range []struct {
		name string
		dev  func() device.Device
		act  action.Action
		by   string
	}{
		{"a tap on a phone's Pay button", phone, tap(180, 650), "word"},
		{"enter on a phone's focused Pay button", phone, enter, "word"},
		{"back on a phone", phone, back, ""},
		{"a tap on a phone's +1", phone, tapPlus, ""},
		{"a click on a window titled like a checkout", desktop([]device.Window{notes, checkout}, nil), tapPay, "word"},
		{"enter in the checkout window", desktop([]device.Window{notes, checkout}, nil), enter, "word"},
		{"a click on another window", desktop([]device.Window{notes, checkout}, nil), tapPlus, ""},
		{"windows that cannot be read", desktop(nil, errors.New("no X server")), tapPlus, "unread"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			if why := Judge(ctx, c.dev(), DefaultPolicy(), c.act); why.By != c.by {
				t.Errorf("Judge: %+v, want the %q rule", why, c.by)
			}
			ev := newEvents()
			r, err := New(Config{ID: "run1", Goal: "buy", Device: c.dev(), Planner: &fakePlanner{script: []step{reply(c.act), reply(finish("done"))}},
				DataDir: t.TempDir(), Emitter: ev, Settings: Settings{Policy: DefaultPolicy(), UITree: true,
					Stability: StabilityConfig{Interval: 10 * time.Millisecond, StableFrames: 2, Max: time.Second}}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = r.Stop(ctx); <-r.Done() })
			if err := r.Start(ctx); err != nil {
				t.Fatal(err)
			}
			if c.by == "" {
				wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				defer cancel()
				if res, err := r.Wait(wctx); err != nil || res.State != Done {
					t.Fatalf("the run: %+v, %v; request %+v", res, err, r.Snapshot().Request)
				}
				return
			}
			ev.waitState(t, WaitingForUser)
			if req := r.Snapshot().Request; req == nil || req.Why == nil || req.Why.By != c.by {
				t.Fatalf("the run asked %+v", req)
			}
		})
	}
}
