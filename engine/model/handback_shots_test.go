package model_test

import (
	"context"
	"image"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"tandem/engine/action"
	"tandem/engine/model"
	"tandem/engine/model/dialect"
	"tandem/internal/modeltest"
)

// After a hand-back the screenshots follow the dialect's rule as on any
// other step: UI-TARS keeps the newest 5 (the model's own earlier screens
// in their own user turns, the person's step has none), AutoGLM the newest
// only. Before, the person's step cut the earlier screenshots off.
func TestHandBackKeepsScreenshotsByDialectRule(t *testing.T) {
	for _, c := range []struct {
		dialect, variant, reply string
		images                  int // images in the request after the hand-back
	}{
		{"uitars", "1.5", "Thought: t\nAction: click(start_box='<|box_start|>(10,10)<|box_end|>')", 2},
		{"autoglm", "", "<think>t</think><answer>do(action=\"Tap\", element=[10,10])</answer>", 1},
	} {
		t.Run(c.dialect, func(t *testing.T) {
			s := modeltest.New(t, modeltest.Reply{Content: c.reply}, modeltest.Reply{Content: c.reply})
			d, err := dialect.New(c.dialect, c.variant)
			if err != nil {
				t.Fatal(err)
			}
			cl, err := model.NewClient(model.ClientConfig{BaseURL: s.URL, APIKey: "sk-x", Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			p := model.NewPlanner(cl, d, model.PlannerOptions{})
			screen := action.Size{W: 1080, H: 2400}
			in := model.Input{Goal: "g", Supported: []action.Type{action.Tap, action.Swipe, action.TypeText, action.Key, action.Launch},
				Observation: model.Observation{Screenshot: image.NewRGBA(image.Rect(0, 0, screen.W, screen.H)), Screen: screen}}
			if _, err := p.Plan(context.Background(), in, nil); err != nil {
				t.Fatal(err)
			}
			in.History = []model.Step{
				{N: 1, Thought: "t", Actions: []action.Action{{Type: action.Tap, X: 10, Y: 10}}, Result: "ok", Reply: c.reply},
				{N: 1, Actions: []action.Action{{Type: action.Tap, X: 500, Y: 500}}, Result: "done by the person", ByPerson: true},
			}
			in.Notes = []string{"The person handed control back."}
			if _, err := p.Plan(context.Background(), in, nil); err != nil {
				t.Fatal(err)
			}
			req := s.Requests()[1]
			if got := len(req.Images()); got != c.images {
				t.Fatalf("%d images after the hand-back, want %d", got, c.images)
			}
			if c.dialect == "uitars" {
				// Each screenshot is its own user turn; the first precedes the
				// model's own earlier reply, replayed as the assistant.
				var roles []string
				for _, m := range req.Chat.Messages {
					r := m.Role
					if len(m.MultiContent) > 0 && m.MultiContent[0].Type == openai.ChatMessagePartTypeImageURL {
						r = "image"
					}
					roles = append(roles, r)
				}
				want := []string{"user", "image", "assistant", "user", "image"}
				if len(roles) != len(want) {
					t.Fatalf("turns %v, want %v", roles, want)
				}
				for i := range want {
					if roles[i] != want[i] {
						t.Fatalf("turns %v, want %v", roles, want)
					}
				}
			}
		})
	}
}
