package model

import (
	"context"
	"encoding/json"
	"testing"

	"tandem/engine/model/modeltest"
)

// sentSampling decodes the sampling keys of a captured request body; a key
// the client left out is absent from the map.
func sentSampling(t *testing.T, body []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	out := map[string]json.RawMessage{}
	for _, k := range []string{"temperature", "top_p", "max_tokens", "frequency_penalty"} {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

// TestSamplingSentExplicitly: temperature 0 must reach the server as 0 (a
// server that gets no temperature samples at its default, usually 1), in
// streamed and whole replies alike, and a profile's own values win.
func TestSamplingSentExplicitly(t *testing.T) {
	zero, topP, fp := float32(0), float32(0.85), float32(0.2)
	cases := []struct {
		name   string
		s      Sampling
		stream bool
		want   map[string]string
	}{
		{"autoglm reference, streamed", Sampling{Temperature: &zero, TopP: &topP, MaxTokens: 3000, FrequencyPenalty: &fp}, true,
			map[string]string{"temperature": "0", "top_p": "0.85", "max_tokens": "3000", "frequency_penalty": "0.2"}},
		{"temperature 0 only, whole reply", Sampling{Temperature: &zero}, false,
			map[string]string{"temperature": "0"}},
		{"nothing set sends nothing", Sampling{}, false, map[string]string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := modeltest.New(t, modeltest.Reply{Content: "ok"})
			c := newTestClient(t, s.URL, func(c *ClientConfig) { c.Sampling = tc.s })
			res, err := c.Call(context.Background(), userPrompt("hi"), tc.stream, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := s.Requests()[0]
			got := sentSampling(t, r.Body)
			if len(got) != len(tc.want) {
				t.Fatalf("sent %s, want %v", r.Body[:min(len(r.Body), 300)], tc.want)
			}
			for k, v := range tc.want {
				if string(got[k]) != v {
					t.Errorf("%s = %s, want %s", k, got[k], v)
				}
			}
			if res.RequestBytes != len(r.Body) {
				t.Errorf("request bytes %d, body %d", res.RequestBytes, len(r.Body))
			}
			if r.Chat.Model != "gpt-4o" || len(r.Chat.Messages) != 1 {
				t.Errorf("rest of the request changed: %+v", r.Chat)
			}
		})
	}
}

// TestPresetSampling: each preset carries its model family's reference
// sampling, and the family defaults follow the dialect and variant.
func TestPresetSampling(t *testing.T) {
	cases := []struct {
		dialect, variant string
		temp, topP       float32
		maxTokens        int
	}{
		{"autoglm", "", 0, 0.85, 3000},   // Open-AutoGLM phone_agent/model/client.py ModelConfig
		{"uitars", "1.5", 0, 0.7, 65535}, // UI-TARS-desktop packages/ui-tars/sdk/src/Model.ts
		{"uitars", "1.0", 0, 0.7, 1000},
		{"uitars", "doubao", 0, 0.7, 1000},
	}
	for _, tc := range cases {
		s := DefaultSampling(tc.dialect, tc.variant)
		if s.Temperature == nil || *s.Temperature != tc.temp || s.TopP == nil || *s.TopP != tc.topP || s.MaxTokens != tc.maxTokens {
			t.Errorf("%s/%s: %s", tc.dialect, tc.variant, s)
		}
	}
	if s := DefaultSampling("autoglm", ""); s.FrequencyPenalty == nil || *s.FrequencyPenalty != 0.2 {
		t.Errorf("autoglm frequency penalty: %s", s)
	}
	for _, p := range Presets() {
		if p.Sampling.Temperature == nil {
			t.Errorf("preset %s sends no temperature", p.Name)
		}
	}
}

// TestQwenPresetsInPixels: Qwen2.5-VL's own agent tool answers in pixels of
// the resized image whose resolution the prompt states (QwenLM/Qwen2.5-VL
// cookbooks/utils/agent_function_call.py), so its presets use "abs".
func TestQwenPresetsInPixels(t *testing.T) {
	for _, name := range []string{"dashscope", "ollama"} {
		p, err := PresetByName(name)
		if err != nil {
			t.Fatal(err)
		}
		if p.Variant != "abs" {
			t.Errorf("%s (%s): variant %q, want abs", name, p.Model, p.Variant)
		}
	}
}
