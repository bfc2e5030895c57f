package engine_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"tandem/devices/adb"
	"tandem/engine"
	"tandem/engine/model"
	"tandem/engine/model/dialect"
	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

func toolCall(name, args string) openai.ToolCall {
	return openai.ToolCall{ID: "c-" + name, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}
}

// toolsPlanner is the real model client and tools dialect (rel1000) for the
// chat-completions server at url.
func toolsPlanner(t *testing.T, url string) model.Planner {
	t.Helper()
	c, err := model.NewClient(model.ClientConfig{BaseURL: url, Model: "scripted"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := dialect.New("tools", "rel1000")
	if err != nil {
		t.Fatal(err)
	}
	return model.NewPlanner(c, d, model.PlannerOptions{})
}

// countedToThree waits for r to end and checks it ended Done with the
// counter at 3 (what names the run in a failure).
func countedToThree(t *testing.T, r *engine.Run, phone *vphone.Phone, what string) engine.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := r.Wait(ctx)
	if err != nil {
		_ = r.Stop(context.Background())
		t.Fatalf("%s %v; snapshot %+v", what, err, r.Snapshot())
	}
	if res.State != engine.Done || !res.Success || phone.State().Counter != 3 {
		t.Fatalf("%s: result %+v counter %d", what, res, phone.State().Counter)
	}
	return res
}

// fastSettle waits 20 ms between looks for a settled screen: the virtual
// phone draws at once.
var fastSettle = engine.Settings{Stability: engine.StabilityConfig{Interval: 20 * time.Millisecond, StableFrames: 2, Max: 2 * time.Second}}

// countToThree is a scripted model that opens the counter, taps +1 until
// it shows 3 (all the taps in one reply, on the 0–1000 grid of a w x h
// phone) and finishes.
func countToThree(t *testing.T, phone *vphone.Phone, w, h int) *modeltest.Server {
	return modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		st := phone.State()
		switch {
		case st.Foreground != vphone.PkgCounter:
			return modeltest.Reply{Content: "Open the counter.", ToolCalls: []openai.ToolCall{toolCall("launch", `{"app":"Counter"}`)}}
		case st.Counter < 3:
			b, ok := phone.BoundsOfText("+1")
			if !ok {
				return modeltest.Reply{Status: 500, Message: "no +1 button"}
			}
			c := b.Min.Add(b.Max).Div(2)
			x, y := c.X*1000/w, c.Y*1000/h
			args := fmt.Sprintf(`{"x":%d,"y":%d}`, x, y)
			calls := []openai.ToolCall{}
			for i := st.Counter; i < 3; i++ {
				calls = append(calls, toolCall("tap", args))
			}
			return modeltest.Reply{Content: "Tap +1 until it shows 3.", ToolCalls: calls}
		default:
			return modeltest.Reply{ToolCalls: []openai.ToolCall{toolCall("finish", `{"summary":"The counter shows 3.","success":true}`)}}
		}
	})
}

// TestE2ECounter drives the virtual phone through the real adb server with
// a real local chat-completions server speaking the tools dialect.
func TestE2ECounter(t *testing.T) {
	t.Parallel()
	// A small screen keeps PNG encoding and decoding cheap under -race.
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	ctx := context.Background()
	dev, err := adb.Open(ctx, adb.Options{Server: adb.Server{Addr: "127.0.0.1:" + strconv.Itoa(env.Port)}, Serial: env.Serial, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	info, err := dev.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	srv := countToThree(t, phone, info.Screen.W, info.Screen.H)
	var mu sync.Mutex
	var steps []engine.StepEvent
	var states []engine.State
	emit := engine.EmitterFunc(func(e engine.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Kind {
		case engine.KindStep:
			steps = append(steps, *e.Step)
		case engine.KindState:
			states = append(states, e.State.State)
		case engine.KindSnapshot, engine.KindPlan, engine.KindThought, engine.KindRetry, engine.KindWaiting,
			engine.KindManual, engine.KindUsage, engine.KindRequest, engine.KindDone, engine.KindPerson:
			// the test reads the steps and states
		}
	})
	r, err := engine.New(engine.Config{Goal: "Make the counter show 3", Device: dev, Planner: toolsPlanner(t, srv.URL), DataDir: t.TempDir(), Emitter: emit,
		Settings: fastSettle})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	res := countedToThree(t, r, phone, "")
	// The fewest calls: open the app (the screen changes wholly, so the
	// model must look again), all three taps from one reply, finish.
	if res.Calls != 3 || res.Steps != 4 || len(srv.Requests()) != 3 {
		t.Fatalf("calls %d, actions %d, requests %d; want 3, 4, 3", res.Calls, res.Steps, len(srv.Requests()))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(steps) != 4 || steps[0].Action.Type != "launch" || steps[3].Action.Type != "tap" || steps[3].Result != "ok" {
		t.Fatalf("step events %+v", steps)
	}
	if states[0] != engine.Planning || states[len(states)-1] != engine.Done {
		t.Fatalf("states %v", states)
	}
	t.Logf("calls %d steps %d", res.Calls, res.Steps)
}
