//go:build windows

package win

import (
	"context"
	"errors"
	"fmt"
	"image"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/devices/desktop"
	"tandem/devices/desktop/win/wintest"
	"tandem/engine"
	"tandem/engine/action"
	"tandem/engine/model"
)

// pressStopChord presses ctrl+alt+escape as the person until one of fired
// fires: under Wine a hotkey fires only while a Wine window has the focus,
// which a loaded machine may give late (see TestStopHotkey).
func pressStopChord(t *testing.T, fired <-chan struct{}) {
	t.Helper()
	for try := 0; try < 10; try++ {
		for _, k := range []byte{0x11, 0x12, 0x1B} {
			wintest.KeyDown(k, true)
		}
		for _, k := range []byte{0x1B, 0x12, 0x11} {
			wintest.KeyDown(k, false)
		}
		select {
		case <-fired:
			return
		case <-time.After(2 * time.Second):
		}
	}
	t.Fatal("the stop hotkey never fired")
}

// Two drivers of one process share the stop hotkey (Windows registers a
// hotkey once): both open, a press stops both, and after the holder closes
// the other still hears it (issue 27: a second display could not be opened).
func TestStopHotkeySharedByTwoDrivers(t *testing.T) {
	keys := desktop.NewStopKeys()
	a := openDriver(t, Options{StopKeys: keys})
	b := openDriver(t, Options{StopKeys: keys})
	w := openWindow(t, image.Rect(300, 100, 500, 300))
	x, y := within(a, w, 50, 50)
	if err := a.Do(context.Background(), action.Action{Type: action.Tap, X: x, Y: y}); err != nil {
		t.Fatal(err)
	}
	pressStopChord(t, a.StopHotkey())
	waitSignal(t, b.StopHotkey(), "the second driver's StopHotkey")
	_ = a.Close()
	b.Resume()
	pressStopChord(t, b.StopHotkey())
}

// Two drivers acting at once take neither's input for the person's, and
// one's move is never split from its click by the other's.
func TestTwoDriversActAtOnce(t *testing.T) {
	keys := desktop.NewStopKeys()
	ds := []*Driver{openDriver(t, Options{StopKeys: keys}), openDriver(t, Options{StopKeys: keys})}
	w := openWindow(t, image.Rect(300, 100, 500, 300))
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i, d := range ds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 8; k++ {
				x, y := within(d, w, 10+i*100+k*10, 20+k*20)
				if err := d.Do(context.Background(), action.Action{Type: action.Tap, X: x, Y: y}); err != nil {
					errs <- fmt.Errorf("driver %d tap %d: %w", i, k, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i, d := range ds {
		select {
		case <-d.Takeover():
			t.Errorf("driver %d took the other's input for the person's", i)
		default:
		}
	}
	w.WaitFor(t, "every tap", func(r []wintest.Record) bool {
		n := 0
		for _, rec := range r {
			if rec.Msg == wintest.WMLButtonUp {
				n++
			}
		}
		return n >= 16
	})
}

// collectActs gathers the person's acts from PersonActs and FlushActs
// until want of them came.
func collectActs(t *testing.T, d *Driver, want int) []string {
	t.Helper()
	var got []string
	deadline := time.Now().Add(time.Minute)
	for len(got) < want && time.Now().Before(deadline) {
		select {
		case a := <-d.PersonActs():
			got = append(got, a.String())
		case <-time.After(200 * time.Millisecond):
			acts, err := d.FlushActs(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range acts {
				got = append(got, a.String())
			}
		}
	}
	return got
}

// While the person drives, their own click, typing and Enter are reported
// once each in the monitor's pixels; the agent's input (another driver's)
// never is.
func TestPersonActsAreReported(t *testing.T) {
	keys := desktop.NewStopKeys()
	d := openDriver(t, Options{StopKeys: keys})
	other := openDriver(t, Options{StopKeys: keys})
	w := openWindow(t, image.Rect(300, 100, 500, 300))
	x, y := within(d, w, 50, 50)
	done := pressUnderWay(t, d, w, x, y)
	p := w.Rect.Min.Add(image.Pt(120, 80))
	wintest.Person(t, "mousemove", fmt.Sprint(p.X), fmt.Sprint(p.Y))
	waitSignal(t, d.Takeover(), "Takeover")
	if err := <-done; !errors.Is(err, desktop.ErrTakenOver) {
		t.Fatalf("the interrupted press: %v", err)
	}
	// The person's own click through Tandem (the mirror) runs though the
	// agent is halted, and is not reported: the run records it itself.
	w.Reset()
	if err := d.PersonDo(context.Background(), action.Action{Type: action.Tap, X: x, Y: y}); err != nil {
		t.Fatalf("the person's input through Tandem: %v", err)
	}
	w.WaitFor(t, "the person's click through Tandem", wintest.Has(wintest.WMLButtonUp, 50, 50))
	wintest.Person(t, "mousemove", fmt.Sprint(p.X), fmt.Sprint(p.Y), "click", "1")
	if got := collectActs(t, d, 1); !slices.Equal(got, []string{fmt.Sprintf("tap(%d,%d)", p.X-d.bounds.Min.X, p.Y-d.bounds.Min.Y)}) {
		t.Fatalf("the person's click: %v", got)
	}
	ox, oy := within(other, w, 20, 150)
	if err := other.Do(context.Background(), action.Action{Type: action.Tap, X: ox, Y: oy}); err != nil {
		t.Fatal(err)
	}
	if err := other.Do(context.Background(), action.Action{Type: action.TypeText, Text: "agent"}); err != nil {
		t.Fatal(err)
	}
	wintest.Person(t, "type", "hi")
	w.WaitFor(t, "the person's text", func([]wintest.Record) bool { return strings.HasSuffix(w.Text(), "hi") })
	wintest.Person(t, "key", "Return")
	if got := collectActs(t, d, 2); !slices.Equal(got, []string{`type("hi")`, "key(enter)"}) {
		t.Fatalf("the person's typing: %v", got)
	}
}

// A take-over through Tandem lets the person drive with their own mouse
// too: the agent is halted and their right click is reported.
func TestPersonDrivesThroughTandem(t *testing.T) {
	d := openDriver(t, Options{})
	w := openWindow(t, image.Rect(300, 100, 500, 300))
	d.PersonDrives()
	x, y := within(d, w, 50, 50)
	if err := d.Do(context.Background(), action.Action{Type: action.Tap, X: x, Y: y}); !errors.Is(err, desktop.ErrTakenOver) {
		t.Fatalf("the agent's tap while the person drives: %v", err)
	}
	p := w.Rect.Min.Add(image.Pt(60, 70))
	wintest.Person(t, "mousemove", fmt.Sprint(p.X), fmt.Sprint(p.Y), "click", "3")
	want := fmt.Sprintf("right_click(%d,%d)", p.X-d.bounds.Min.X, p.Y-d.bounds.Min.Y)
	if got := collectActs(t, d, 1); !slices.Equal(got, []string{want}) {
		t.Fatalf("the person's right click: %v, want %s", got, want)
	}
	d.Resume()
	if err := d.Do(context.Background(), action.Action{Type: action.Tap, X: x, Y: y}); err != nil {
		t.Fatalf("after Resume: %v", err)
	}
}

// scripted is a model answering each call with the next reply.
type scripted struct {
	mu      sync.Mutex
	replies [][]action.Action
}

func (s *scripted) Plan(context.Context, model.Input, func(string)) (model.Plan, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.replies) == 0 {
		return model.Plan{Actions: []action.Action{{Type: action.Finish, Summary: "done"}}}, nil
	}
	acts := s.replies[0]
	s.replies = s.replies[1:]
	return model.Plan{Thought: "next", Actions: acts}, nil
}

// The desktop asks too (issue 27): a tap on a window titled like a checkout
// waits for the person's confirmation, read from the real window under the
// point (its title and program).
func TestCheckoutWindowAsks(t *testing.T) {
	d := openDriver(t, Options{})
	w := wintest.OpenTitled(t, image.Rect(300, 100, 500, 300), "Checkout — Pay ¥99")
	wins, err := d.Windows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, win := range wins {
		if win.Title == "Checkout — Pay ¥99" && win.App != "" && win.Bounds.Min == w.Rect.Min.Sub(d.bounds.Min) {
			found = true
		}
	}
	if !found {
		t.Fatalf("the checkout window is not listed: %+v", wins)
	}
	x, y := within(d, w, 50, 50)
	ev := make(chan engine.Event, 256)
	r, err := engine.New(engine.Config{Goal: "buy", Device: d, Planner: &scripted{replies: [][]action.Action{{{Type: action.Tap, X: x, Y: y}}}},
		Emitter: engine.EmitterFunc(func(e engine.Event) {
			select {
			case ev <- e:
			default:
			}
		}),
		Settings: engine.Settings{Policy: engine.DefaultPolicy()}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Stop(context.Background()); <-r.Done() }()
	for deadline := time.After(time.Minute); ; {
		select {
		case e := <-ev:
			if e.State == nil || e.State.State != engine.WaitingForUser && !e.State.State.Terminal() {
				continue
			}
			req := r.Snapshot().Request
			if req == nil || req.Why == nil || req.Why.By != "word" || req.Why.Detail != "pay" {
				t.Fatalf("state %v, request %+v", e.State.State, req)
			}
			if len(w.Records()) != 0 {
				t.Errorf("the tap reached the window unconfirmed: %+v", w.Records())
			}
			return
		case <-deadline:
			t.Fatal("the run neither asked nor ended")
		}
	}
}
