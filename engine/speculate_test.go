package engine

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/internal/modeltest"
	"tandem/vphone"
)

// Issue 31: after an action the next model call starts on the first
// capture, before the second capture that confirms the screen settled —
// on a phone behind the real adb server, the confirming capture is an
// interval (3 s here, so a busy machine cannot blur the order) after the
// first. Fails on the code before speculate.go: the request came after both
// captures.
func TestTheCallStartsOnTheFirstCapture(t *testing.T) {
	g := newRig(t, fullSize)
	g.launch(vphone.PkgCounter)
	plus := g.at("+1")
	var mu sync.Mutex
	var caps []int64
	srv := modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		mu.Lock()
		caps = append(caps, g.phone.Screencaps())
		mu.Unlock()
		if r.Attempt == 1 {
			return tools("", call("tap", plus))
		}
		return tools("", finishCall("The counter shows 1."))
	})
	stab := StabilityConfig{Interval: 3 * time.Second, Max: 30 * time.Second}
	s := g.start(srv, "Tap +1 once", Settings{Stability: stab}, plannerOpts{})
	res := s.waitUpTo(time.Minute)
	if res.State != Done || res.Steps != 1 {
		t.Fatalf("result %+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(caps) != 2 {
		t.Fatalf("%d model requests, want 2", len(caps))
	}
	// Between the first request and the second: the tap, then one
	// capture, not two.
	if n := caps[1] - caps[0]; n != 1 {
		t.Fatalf("the second call started after %d captures of the settled screen, want 1 (the first)", n)
	}
	// It was still confirmed before the step ran on: the wait's second
	// capture came, and the run recorded the call's screen.
	if g.phone.Screencaps()-caps[0] < 2 {
		t.Fatal("the first capture was never confirmed")
	}
	mustContain(t, "the second request", s.srv.Requests()[1].Text(), "Tap +1 once")
	ents, _, err := ReadRecord(s.run.Dir())
	if err != nil {
		t.Fatal(err)
	}
	frames := 0
	for _, e := range ents {
		if e.Kind == recObserve && e.Frame != "" {
			frames++
		}
	}
	if frames != 2 {
		t.Fatalf("%d observed frames on the record, want 2 (one a call)", frames)
	}
}

// A screen that keeps moving for a second after the tap: a call started on
// its first capture is dropped, never acted on; the step is planned on the
// settled screen; at most one call is made on a moving screen. The model
// answers a request made while the phone animates with a tap the test
// forbids, at once, so a held reply that leaked would show on the phone.
func TestACallOnAMovingScreenIsNeverActedOn(t *testing.T) {
	for _, wait := range []bool{false, true} {
		t.Run(map[bool]string{false: "early", true: "wait to ask"}[wait], func(t *testing.T) {
			g := newRig(t, fullSize, vphone.WithAnimation(time.Second))
			g.launch(vphone.PkgAnim)
			start := g.at("start")
			var mu sync.Mutex
			moving := 0
			srv := modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
				mu.Lock()
				defer mu.Unlock()
				if g.phone.State().Animating {
					moving++
					return tools("POISON: the screen is moving", call("tap", `{"x":10,"y":990}`))
				}
				if r.Attempt == 1 {
					return tools("", call("tap", start))
				}
				return tools("", finishCall("It stopped moving."))
			})
			stab := StabilityConfig{Interval: 100 * time.Millisecond, Max: 10 * time.Second, WaitToAsk: wait}
			s := g.start(srv, "Start the animation", Settings{Stability: stab}, plannerOpts{})
			res := s.waitUpTo(time.Minute)
			if res.State != Done || res.Steps != 1 {
				t.Fatalf("result %+v", res)
			}
			taps := 0
			for _, e := range g.phone.Events() {
				if e.Kind == "tap" {
					taps++
					if e.Y > g.h*9/10 {
						t.Fatalf("the reply to a call made on the moving screen was acted on: %+v", e)
					}
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if taps != 1 || moving > 1 || wait && moving > 0 {
				t.Fatalf("%d taps, %d calls on the moving screen (wait to ask: %v)", taps, moving, wait)
			}
			// The dropped call is on the record, and so is what it cost:
			// the person pays for it.
			ents, _, err := ReadRecord(s.run.Dir())
			if err != nil {
				t.Fatal(err)
			}
			var dropped, plans int
			for _, e := range ents {
				if e.Kind == recPlan {
					plans++
				}
				if e.Kind != recDropped {
					continue
				}
				dropped++
				if e.Usage == nil || e.Usage.PromptTokens == 0 {
					t.Fatalf("the dropped call, which answered, has no cost on the record: %+v", e)
				}
			}
			// (A request is judged moving when it arrives; its capture was
			// taken before.)
			if dropped < moving || dropped > 1 || wait && dropped > 0 || plans+dropped != len(srv.Requests()) {
				t.Fatalf("%d dropped and %d plans on the record, %d calls on the moving screen, %d requests", dropped, plans, moving, len(srv.Requests()))
			}
			thoughts := slices.ContainsFunc(s.ev.kinds(KindThought), func(e Event) bool {
				return strings.Contains(e.Thought.Delta, "POISON")
			})
			if thoughts {
				t.Fatal("the dropped call's reply was told to the UI")
			}
		})
	}
}
