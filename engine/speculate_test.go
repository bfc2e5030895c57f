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
// capture, before the second capture that confirms the screen settled — on
// a phone behind the real adb server. The phone holds the confirming
// capture until the call arrives: the call must come without it (within
// 20 s, however busy the machine). Fails on the code before speculate.go:
// the call waited for that capture.
func TestTheCallStartsOnTheFirstCapture(t *testing.T) {
	g := newRig(t, fullSize)
	g.launch(vphone.PkgCounter)
	plus := g.at("+1")
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free)
	early := make(chan bool, 1)
	srv := modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		if r.Attempt == 1 {
			// After the tap: the first capture goes, the second waits.
			g.phone.HoldScreencap(2, release)
			return tools("", call("tap", plus))
		}
		if r.Attempt == 2 {
			select {
			case <-release:
				early <- false
			default:
				early <- true
				free()
			}
		}
		return tools("", finishCall("The counter shows 1."))
	})
	s := g.start(srv, "Tap +1 once", Settings{Stability: DefaultStability}, plannerOpts{})
	select {
	case ok := <-early:
		if !ok {
			t.Fatal("the second call came only once the phone gave the confirming capture")
		}
	case <-time.After(20 * time.Second):
		free()
		t.Fatal("no second call while the phone held the confirming capture: the call waits for it")
	}
	res := s.waitUpTo(time.Minute)
	if res.State != Done || res.Steps != 1 || g.phone.State().Counter != 1 {
		t.Fatalf("result %+v, counter %d", res, g.phone.State().Counter)
	}
	// It was still confirmed before the run went on, and recorded.
	ents, _, err := ReadRecord(s.run.Dir())
	if err != nil {
		t.Fatal(err)
	}
	frames, stable := 0, 0
	for _, e := range ents {
		if e.Kind == recObserve && e.Frame != "" {
			frames++
		}
		if e.Kind == recStable && e.Stable != nil && *e.Stable {
			stable++
		}
	}
	if frames != 2 || stable != 1 {
		t.Fatalf("%d observed frames (want 2, one a call), %d settled screens (want 1) on the record", frames, stable)
	}
}

// A screen that keeps moving for a second after the tap: a call started on
// its first capture is dropped, never acted on; the step is planned on the
// settled screen; at most two calls are made on a moving screen (its first
// capture, and a candidate two close captures found still while it
// moved slowly, which the interval's confirmation then refused). The model
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
			if taps != 1 || moving > 2 || wait && moving > 0 {
				t.Fatalf("%d taps, %d calls on the moving screen (wait to ask: %v)", taps, moving, wait)
			}
			// The dropped call is on the record, and so is what it cost
			// when it had answered before it was dropped (on a busy
			// machine it may be cancelled first): the person pays for it.
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
				if e.Usage != nil && e.Usage.PromptTokens == 0 {
					t.Fatalf("the dropped call's cost on the record is empty: %+v", e)
				}
			}
			// (A request is judged moving when it arrives; its capture was
			// taken before.) Every request the server had is on the record,
			// as a plan or a dropped call; a dropped call may never have
			// reached the server (a busy machine cancels it first).
			reqs := len(srv.Requests())
			if dropped < moving || dropped > 2 || wait && dropped > 0 || plans > reqs || plans+dropped < reqs {
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
