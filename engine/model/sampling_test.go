package model

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"tandem/internal/modeltest"
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

type nopDoer struct{}

func (nopDoer) Do(req *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, req.Body)
	return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("{}"))}, nil
}

// BenchmarkSampledBody is the cost of writing the sampling keys into a
// request carrying one phone screenshot (about 1.5 MB of base64).
func BenchmarkSampledBody(b *testing.B) {
	img := strings.Repeat("A", 1_500_000)
	body := []byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,` + img + `"}}]}],"stream":true}`)
	d := &sampledBody{s: DefaultSampling("autoglm", ""), next: nopDoer{}}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/v1/chat/completions", bytes.NewReader(body))
		if _, err := d.Do(req); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSamplingKeysNeverRepeat: ClientConfig's own Temperature and MaxTokens
// go out once, through the same explicit keys (a repeated key is read
// differently by different servers).
func TestSamplingKeysNeverRepeat(t *testing.T) {
	s := modeltest.New(t, modeltest.Reply{Content: "ok"})
	c := newTestClient(t, s.URL, func(c *ClientConfig) { c.Temperature, c.MaxTokens = 0.5, 100 })
	if _, err := c.Call(context.Background(), userPrompt("hi"), false, nil, nil); err != nil {
		t.Fatal(err)
	}
	body := string(s.Requests()[0].Body)
	if strings.Count(body, `"temperature"`) != 1 || strings.Count(body, `"max_tokens"`) != 1 ||
		!strings.Contains(body, `"temperature":0.5`) || !strings.Contains(body, `"max_tokens":100`) {
		t.Fatalf("body %s", body)
	}
}
