package backend

import (
	"context"
	"sync/atomic"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"tandem/engine"
	"tandem/internal/modeltest"
)

// The scripted model's replies and profile, as the tests of runs on a
// virtual phone use them (the tools dialect, on the 0–1000 grid).

// tapReply taps at, a point of the grid as the tool's JSON arguments.
func tapReply(at string) modeltest.Reply {
	return modeltest.Reply{Content: "Tap +1.", ToolCalls: []openai.ToolCall{{ID: "t", Type: openai.ToolTypeFunction,
		Function: openai.FunctionCall{Name: "tap", Arguments: at}}}}
}

// finishReply ends the run as a success.
func finishReply() modeltest.Reply {
	return modeltest.Reply{Content: "Done.", ToolCalls: []openai.ToolCall{{ID: "f", Type: openai.ToolTypeFunction,
		Function: openai.FunctionCall{Name: "finish", Arguments: `{"summary":"tapped","success":true}`}}}}
}

// scriptedProfile saves the profile of the scripted model at url, with
// key ("" for none), and returns it.
func scriptedProfile(t testing.TB, b *Backend, url, key string) Profile {
	t.Helper()
	p, err := b.SaveProfile(Profile{Name: "scripted", BaseURL: url, Model: "scripted", Dialect: "tools", Variant: "rel1000"}, key)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// tapsThenFinish is a scripted model that taps at n times, then finishes.
func tapsThenFinish(t testing.TB, n int32, at string) *modeltest.Server {
	var calls atomic.Int32
	return modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply {
		if calls.Add(1) > n {
			return finishReply()
		}
		return tapReply(at)
	})
}

// runDone starts a run of goal on device with choice, waits for it to end
// and fails the test unless it ended done; it returns the run.
func runDone(ctx context.Context, t testing.TB, b *Backend, device, goal string, choice RunChoice) *RunHandle {
	t.Helper()
	snap, err := b.StartRun(ctx, device, goal, choice)
	if err != nil {
		t.Fatal(err)
	}
	run, err := b.Run(snap.ID, ByWindow())
	if err != nil {
		t.Fatal(err)
	}
	if res, err := run.Wait(ctx); err != nil || res.State != engine.Done {
		t.Fatalf("the run ended %+v, %v", res, err)
	}
	return run
}
