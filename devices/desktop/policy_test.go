package desktop

import (
	"context"
	"image"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"tandem/engine"
	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/engine/model"
)

// scripted is a model that answers each call with the next of its replies.
type scripted struct {
	mu      sync.Mutex
	replies [][]action.Action
}

func (s *scripted) Plan(ctx context.Context, in model.Input, _ func(string)) (model.Plan, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.replies) == 0 {
		return model.Plan{Actions: []action.Action{{Type: action.Finish, Summary: "done"}}}, nil
	}
	acts := s.replies[0]
	s.replies = s.replies[1:]
	return model.Plan{Thought: "next step", Actions: acts, Raw: "raw"}, nil
}

// xtermTitled shows an xterm titled title at +x+y and waits until d lists it.
func xtermTitled(t *testing.T, d *Driver, title string, x, y int) device.Window {
	t.Helper()
	cmd := exec.Command("xterm", "-u8", "-xrm", "XTerm*utf8Title: true", "-T", title,
		"-geometry", "30x8+"+strconv.Itoa(x)+"+"+strconv.Itoa(y), "-e", "sleep", "600")
	cmd.Env = append(env.display.Env(), "LANG=C.UTF-8", "LC_ALL=C.UTF-8")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(patience); ; time.Sleep(20 * time.Millisecond) {
		wins, err := d.Windows(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range wins {
			if w.Title == title {
				return w
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no window titled %q among %+v", title, wins)
		}
	}
}

// The desktop asks too (issue 27): a tap on a window titled like a checkout,
// or on a program the person protects, waits for their confirmation, read
// from the real window under the point (WM_CLASS, _NET_WM_NAME).
func TestCheckoutWindowAsks(t *testing.T) {
	page(t)
	d := open(t, Options{})
	w := xtermTitled(t, d, "Checkout — Pay ¥99", 200, 200)
	if w.App != "XTerm" || !slices.Contains(w.Names, "xterm") || !image.Pt(250, 250).In(w.Bounds) {
		t.Fatalf("the xterm is listed as %+v", w)
	}
	onIt := action.Action{Type: action.Tap, X: 250, Y: 250}
	elsewhere := action.Action{Type: action.Tap, X: 1500, Y: 800}
	for _, c := range []struct {
		name   string
		policy engine.Policy
		tap    action.Action
		by     string
	}{
		{"its title", engine.DefaultPolicy(), onIt, "word"},
		{"its program", engine.Policy{Apps: []string{"xterm"}}, onIt, "app"},
		{"another window", engine.DefaultPolicy(), elsewhere, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			drv := open(t, Options{StopHotkey: "alt+F10"}) // the run closes it
			ev := make(chan engine.Event, 256)
			r, err := engine.New(engine.Config{Goal: "buy", Device: drv, Planner: &scripted{replies: [][]action.Action{{c.tap}}},
				Emitter: engine.EmitterFunc(func(e engine.Event) {
					select {
					case ev <- e:
					default:
					}
				}),
				Settings: engine.Settings{Policy: c.policy}})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = r.Stop(context.Background()); <-r.Done() }()
			waitEnd(t, r, ev, c.by)
		})
	}
}

// waitEnd waits for the run to ask (by: the rule that asks) or to finish
// (by "").
func waitEnd(t *testing.T, r *engine.Run, ev <-chan engine.Event, by string) {
	t.Helper()
	deadline := time.After(patience)
	for {
		select {
		case e := <-ev:
			if e.State == nil {
				continue
			}
			switch e.State.State {
			case engine.WaitingForUser:
				req := r.Snapshot().Request
				if by == "" || req == nil || req.Why == nil || req.Why.By != by {
					t.Fatalf("asked %+v, want the %q rule", req, by)
				}
				return
			case engine.Done:
				if by != "" {
					t.Fatalf("the run ended without asking (the %q rule)", by)
				}
				return
			case engine.Failed, engine.Stopped:
				t.Fatalf("the run ended %v", e.State)
			case engine.Idle, engine.Planning, engine.Executing, engine.WaitingForStability, engine.Paused, engine.Manual:
			}
		case <-deadline:
			t.Fatal("the run neither asked nor ended")
		}
	}
}

// Titles come in the encodings clients set them in.
func TestTitleEncodings(t *testing.T) {
	if got := compoundText([]byte("Checkout \x1b%G\xe2\x80\x94\x1b%@ Pay \xa599")); got != "Checkout — Pay ¥99" {
		t.Errorf("COMPOUND_TEXT title %q", got)
	}
	if got := compoundText([]byte("a\x1b$)A\xc4\xe3b")); got != "ab" {
		t.Errorf("a GB2312 part is dropped, not garbled: %q", got)
	}
	if got := latin1([]byte("caf\xe9")); got != "café" {
		t.Errorf("Latin-1 title %q", got)
	}
}
