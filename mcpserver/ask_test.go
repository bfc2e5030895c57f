package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/sashabaranov/go-openai"

	"tandem/engine"
	"tandem/internal/modeltest"
)

// The form a client shows its human offers exactly the answers of the one
// list, for every kind of request, and a text field where the kind's free
// answer carries text.
func TestTheFormOffersTheListsAnswers(t *testing.T) {
	for _, k := range engine.RequestKinds() {
		s := form(k)
		var want []any
		for _, a := range engine.Answers(k) {
			want = append(want, string(a.Answer))
		}
		if got := s.Properties["choice"].Enum; !slices.Equal(got, want) {
			t.Errorf("%s: the form offers %v, the list %v", k, got, want)
		}
		if _, text := s.Properties["text"]; text != (engine.FreeText(k) != "") {
			t.Errorf("%s: a text field %v, the list's free answer %q", k, text, engine.FreeText(k))
		}
		if !slices.Equal(s.Required, []string{"choice"}) {
			t.Errorf("%s: required %v", k, s.Required)
		}
	}
}

// A question reaches the client's human as the form of the one list (the
// choice's enum is the list's answers for a question), and their answer,
// given through it, reaches the model and the record with who gave it.
func TestAQuestionIsAnsweredThroughTheListsForm(t *testing.T) {
	r := newRig(t)
	r.model(t, modeltest.NewFunc(t, func(req modeltest.Request) modeltest.Reply {
		if strings.Contains(req.Text(), "blue") {
			return modeltest.Reply{Content: "Blue it is.", ToolCalls: []openai.ToolCall{call("finish", `{"summary":"Blue.","success":true}`)}}
		}
		return modeltest.Reply{Content: "Ask.", ToolCalls: []openai.ToolCall{call("ask_user", `{"question":"Which colour do you want?"}`)}}
	}))
	var enums [][]any
	cs := r.client(t, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		var s jsonschema.Schema // as the client reads it off the wire
		if raw, err := json.Marshal(req.Params.RequestedSchema); err == nil && json.Unmarshal(raw, &s) == nil && s.Properties["choice"] != nil {
			enums = append(enums, s.Properties["choice"].Enum)
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"choice": "answer", "text": "blue, please"}}, nil
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_task", Arguments: map[string]any{"device": r.env.Serial, "goal": "Pick a colour"}})
	if err != nil {
		t.Fatal(err)
	}
	o := runOut(t, res)
	var want []any
	for _, a := range engine.Answers(engine.AskQuestion) {
		want = append(want, string(a.Answer))
	}
	if len(enums) != 1 || !slices.Equal(enums[0], want) {
		t.Fatalf("the client was asked with the choices %v, want once %v", enums, want)
	}
	if !o.Ended || !o.Success {
		t.Fatalf("the run after the answer: %+v", o)
	}
	if raw := recordText(t, r.b, o.ID); !strings.Contains(raw, `"text":"blue, please"`) ||
		!strings.Contains(raw, `"via":"the person, asked through test-agent (MCP elicitation)"`) {
		t.Fatalf("the record lacks the answer or who gave it:\n%s", raw)
	}
}
