package engine_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"tandem/engine"
	"tandem/engine/device/adb"
	"tandem/engine/device/vphone"
	"tandem/engine/device/vphone/vphonetest"
	"tandem/engine/model"
	"tandem/engine/model/dialect"
	"tandem/engine/model/modeltest"
)

func toolCall(name, args string) openai.ToolCall {
	return openai.ToolCall{ID: "c-" + name, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}
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
	srv := modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
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
			x, y := c.X*1000/info.Screen.W, c.Y*1000/info.Screen.H
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
	c, err := model.NewClient(model.ClientConfig{BaseURL: srv.URL, Model: "scripted"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := dialect.New("tools", "rel1000")
	if err != nil {
		t.Fatal(err)
	}
	r, err := engine.New(engine.Config{Goal: "Make the counter show 3", Device: dev, Planner: model.NewPlanner(c, d, model.PlannerOptions{}), DataDir: t.TempDir(),
		Settings: engine.Settings{Stability: engine.StabilityConfig{Interval: 20 * time.Millisecond, StableFrames: 2, Max: 2 * time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	res, err := r.Wait(wctx)
	if err != nil {
		_ = r.Stop(ctx)
		t.Fatalf("%v; snapshot %+v", err, r.Snapshot())
	}
	if res.State != engine.Done || !res.Success || phone.State().Counter != 3 {
		t.Fatalf("result %+v counter %d", res, phone.State().Counter)
	}
	if float64(res.Calls)/float64(res.Steps) > 1.0 {
		t.Fatalf("calls/action %d/%d", res.Calls, res.Steps)
	}
	t.Logf("calls %d steps %d", res.Calls, res.Steps)
}
