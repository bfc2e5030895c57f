package model_test

import (
	"context"
	"errors"
	"image"
	"os"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"tandem/engine/action"
	"tandem/engine/model"
	"tandem/engine/model/dialect"
	"tandem/internal/modeltest"
)

func toolsPlanner(t *testing.T, s *modeltest.Server) model.Planner {
	t.Helper()
	d, err := dialect.New("tools", "rel1000")
	if err != nil {
		t.Fatal(err)
	}
	c, err := model.NewClient(model.ClientConfig{BaseURL: s.URL, APIKey: "sk-x", Model: "qwen-vl-max"})
	if err != nil {
		t.Fatal(err)
	}
	return model.NewPlanner(c, d, model.PlannerOptions{})
}

func phoneInput(t *testing.T) model.Input {
	t.Helper()
	dump, err := os.ReadFile("../observe/testdata/ui_dumps/05_wework_invite_dialog.xml")
	if err != nil {
		t.Fatal(err)
	}
	return model.Input{Goal: "邀请他进群", StepsLeft: 10,
		Supported: []action.Type{action.Tap, action.Swipe, action.TypeText, action.Key, action.Launch},
		Observation: model.Observation{Screenshot: image.NewRGBA(image.Rect(0, 0, 360, 804)), UITree: dump,
			Screen: action.Size{W: 720, H: 1608}}}
}

// Through the real tools dialect: the tool call streams in two pieces, the
// rel1000 point maps to device pixels, and the prompt carries the goal, the
// tools and the screenshot.
func TestPlannerWithToolsDialect(t *testing.T) {
	s := modeltest.New(t, modeltest.Reply{Content: "Thought: tap 邀请",
		ToolCalls: []openai.ToolCall{{ID: "c1", Type: "function", Function: openai.FunctionCall{Name: "tap", Arguments: `{"x":768,"y":593}`}}},
		Usage:     &openai.Usage{PromptTokens: 1500, CompletionTokens: 20}})
	plan, err := toolsPlanner(t, s).Plan(context.Background(), phoneInput(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	// rel1000: x/1000·w, rounded (768·0.72 = 552.96, 593·1.608 = 953.5).
	want := action.Action{Type: action.Tap, X: 553, Y: 954}
	if len(plan.Actions) != 1 || plan.Actions[0].Type != want.Type || plan.Actions[0].X != want.X || plan.Actions[0].Y != want.Y {
		t.Fatalf("actions %+v want %+v", plan.Actions, want)
	}
	if plan.Usage.PromptTokens != 1500 || !strings.Contains(plan.Raw, `tool_call tap({"x":768,"y":593})`) {
		t.Fatalf("plan %+v", plan)
	}
	req := s.Requests()[0]
	if !strings.Contains(req.Text(), "邀请他进群") || len(req.Images()) != 1 || len(req.Chat.Tools) == 0 {
		t.Fatalf("request: text %q, %d images, %d tools", req.Text(), len(req.Images()), len(req.Chat.Tools))
	}
}

func TestPlannerRejectsUnsupportedAction(t *testing.T) {
	s := modeltest.New(t, modeltest.Reply{
		ToolCalls: []openai.ToolCall{{ID: "c1", Type: "function", Function: openai.FunctionCall{Name: "hotkey", Arguments: `{"keys":["ctrl","c"]}`}}}})
	_, err := toolsPlanner(t, s).Plan(context.Background(), phoneInput(t), nil)
	var pe *model.ParseError
	if !errors.As(err, &pe) || !strings.Contains(pe.Reason, "hotkey") {
		t.Fatalf("err %v", err)
	}
}

func TestPlannerToolsParseError(t *testing.T) {
	s := modeltest.New(t, modeltest.Reply{Content: "I am not sure what to do."})
	plan, err := toolsPlanner(t, s).Plan(context.Background(), phoneInput(t), nil)
	var pe *model.ParseError
	if !errors.As(err, &pe) || plan.Raw != "I am not sure what to do." || len(plan.Actions) != 0 {
		t.Fatalf("err %v plan %+v", err, plan)
	}
}

// Every preset names a dialect and variant that exist.
func TestPresetsMatchDialects(t *testing.T) {
	for _, p := range model.Presets() {
		if _, err := dialect.New(p.Dialect, p.Variant); err != nil {
			t.Errorf("preset %s: %v", p.Name, err)
		}
	}
}

// Seed 003's path: a small local model, text only, choosing an element by
// index; the stream is cut as soon as the JSON object closes (the server
// would hold it open).
func TestPlannerWithJSONDialectTextOnly(t *testing.T) {
	s := modeltest.New(t, modeltest.Reply{Content: `{"thought":"点邀请","action":"click","params":{"index":2}}`,
		Chunks: 3, Hold: true, HoldAfter: 3})
	d, err := dialect.New("json", "")
	if err != nil {
		t.Fatal(err)
	}
	c, err := model.NewClient(model.ClientConfig{BaseURL: s.URL, Model: "qwen2.5vl:7b"})
	if err != nil {
		t.Fatal(err)
	}
	pl := model.NewPlanner(c, d, model.PlannerOptions{SmallModel: true, ContextTokens: 8192})
	var streamed strings.Builder
	plan, err := pl.Plan(context.Background(), phoneInput(t), func(d string) { streamed.WriteString(d) })
	if err != nil {
		t.Fatal(err)
	}
	// Element 2 is 邀请 at [496,915,616,987]: its centre.
	if len(plan.Actions) != 1 || plan.Actions[0].Type != action.Tap || plan.Actions[0].X != 556 || plan.Actions[0].Y != 951 {
		t.Fatalf("actions %+v", plan.Actions)
	}
	if plan.Thought != "点邀请" || streamed.String() != plan.Raw || !plan.Usage.Estimated {
		t.Fatalf("plan %+v streamed %q", plan, streamed.String())
	}
	req := s.Requests()[0]
	if len(req.Images()) != 0 || !strings.Contains(req.Text(), "邀请") {
		t.Fatalf("%d images; prompt %s", len(req.Images()), req.Text())
	}
}
