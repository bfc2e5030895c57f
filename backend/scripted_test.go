package backend

import (
	"testing"

	openai "github.com/sashabaranov/go-openai"

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
