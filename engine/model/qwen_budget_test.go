package model_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"strings"
	"testing"

	"tandem/engine/action"
	"tandem/engine/model"
	"tandem/engine/model/dialect"
	"tandem/internal/modeltest"
)

// A Qwen2.5-VL model in tools/abs gets its screenshot at the cookbook's
// smart_resize size (the processor's min_pixels 4·28·28, max_pixels
// 16384·28·28: QwenLM/Qwen2.5-VL cookbooks/mobile_agent.ipynb), and the
// tool description states exactly that size; other abs models keep
// Tandem's cap.
func TestQwenImageBudgetFollowsCookbook(t *testing.T) {
	for _, c := range []struct {
		model      string
		w, h       int
		resolution string
	}{
		{"qwen2.5-vl-7b-instruct", 1092, 2408, "The screen's resolution is 1092x2408."},
		{"gpt-4o", 672, 1484, ""},
	} {
		t.Run(c.model, func(t *testing.T) {
			s := modeltest.New(t, modeltest.Reply{Content: "<tool_call>\n{\"name\": \"mobile_use\", \"arguments\": {\"action\": \"click\", \"coordinate\": [10, 10]}}\n</tool_call>"})
			d, err := dialect.New("tools", "abs")
			if err != nil {
				t.Fatal(err)
			}
			cl, err := model.NewClient(model.ClientConfig{BaseURL: s.URL, APIKey: "sk-x", Model: c.model})
			if err != nil {
				t.Fatal(err)
			}
			in := model.Input{Goal: "g", Supported: []action.Type{action.Tap, action.Swipe, action.TypeText, action.Key, action.Launch},
				Observation: model.Observation{Screenshot: image.NewRGBA(image.Rect(0, 0, 1080, 2400)), Screen: action.Size{W: 1080, H: 2400}}}
			if _, err := model.NewPlanner(cl, d, model.PlannerOptions{}).Plan(context.Background(), in, nil); err != nil {
				t.Fatal(err)
			}
			req := s.Requests()[0]
			imgs := req.Images()
			if len(imgs) != 1 {
				t.Fatalf("%d images", len(imgs))
			}
			data, err := base64.StdEncoding.DecodeString(imgs[0][strings.Index(imgs[0], ",")+1:])
			if err != nil {
				t.Fatal(err)
			}
			cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Width != c.w || cfg.Height != c.h {
				t.Errorf("image %dx%d, want %dx%d", cfg.Width, cfg.Height, c.w, c.h)
			}
			if c.resolution != "" && !strings.Contains(req.Chat.Messages[0].Content, c.resolution) {
				t.Errorf("system message does not state %q", c.resolution)
			}
		})
	}
}
