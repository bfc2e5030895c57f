package model

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Sampling is how the model samples its reply. A nil field is left to the
// server; a set one is sent as given, 0 included. go-openai drops zero
// values (its fields are omitempty), so `temperature: 0` would never reach
// the server and it would sample at its default (usually 1): the client
// therefore writes these keys into the request body itself (sampledBody).
type Sampling struct {
	Temperature      *float32 `json:"temperature,omitempty"`
	TopP             *float32 `json:"top_p,omitempty"`
	MaxTokens        int      `json:"max_tokens,omitempty"`
	FrequencyPenalty *float32 `json:"frequency_penalty,omitempty"`
}

func f32(v float32) *float32 { return &v }

// String shows the values set, for logs and test failures.
func (s Sampling) String() string {
	var parts []string
	add := func(k string, v *float32) {
		if v != nil {
			parts = append(parts, k+"="+strconv.FormatFloat(float64(*v), 'g', -1, 32))
		}
	}
	add("temperature", s.Temperature)
	add("top_p", s.TopP)
	if s.MaxTokens > 0 {
		parts = append(parts, "max_tokens="+strconv.Itoa(s.MaxTokens))
	}
	add("frequency_penalty", s.FrequencyPenalty)
	if len(parts) == 0 {
		return "server defaults"
	}
	return strings.Join(parts, " ")
}

// Over returns s with every field o sets replaced by o's: a profile's own
// values over its family's defaults.
func (s Sampling) Over(o Sampling) Sampling {
	if o.Temperature != nil {
		s.Temperature = o.Temperature
	}
	if o.TopP != nil {
		s.TopP = o.TopP
	}
	if o.MaxTokens > 0 {
		s.MaxTokens = o.MaxTokens
	}
	if o.FrequencyPenalty != nil {
		s.FrequencyPenalty = o.FrequencyPenalty
	}
	return s
}

// DefaultSampling is the sampling a model family's official client sends,
// by Tandem dialect and variant:
//   - autoglm: zai-org/Open-AutoGLM phone_agent/model/client.py (ModelConfig):
//     max_tokens 3000, temperature 0, top_p 0.85, frequency_penalty 0.2.
//   - uitars: bytedance/UI-TARS-desktop packages/ui-tars/sdk/src/Model.ts:
//     temperature 0, top_p 0.7, max_tokens 65535 for UI-TARS-1.5, else 1000.
//   - tools, json: no official agent client fixes them; Tandem asks for
//     greedy decoding (temperature 0) so a step is repeatable.
func DefaultSampling(dialect, variant string) Sampling {
	switch dialect {
	case "autoglm":
		return Sampling{Temperature: f32(0), TopP: f32(0.85), MaxTokens: 3000, FrequencyPenalty: f32(0.2)}
	case "uitars":
		s := Sampling{Temperature: f32(0), TopP: f32(0.7), MaxTokens: 1000}
		if variant == "1.5" || variant == "" {
			s.MaxTokens = 65535
		}
		return s
	}
	return Sampling{Temperature: f32(0)}
}

// sampledBody writes the sampling keys into each chat-completions request
// body before it is sent, so values go out explicitly, zeros included.
type sampledBody struct {
	s    Sampling
	next openai.HTTPDoer
}

func (d *sampledBody) Do(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, "/chat/completions") {
		return d.next.Do(req)
	}
	keys := d.s.keys()
	if len(keys) == 0 {
		return d.next.Do(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("model client: reading the request body: %w", err)
	}
	// The keys are appended before the closing brace: no decoding of a
	// body that is mostly screenshot (NewClient keeps go-openai from
	// writing any of them, so none is repeated).
	end := bytes.LastIndexByte(body, '}')
	if len(body) == 0 || body[0] != '{' || end < 0 {
		return nil, fmt.Errorf("model client: request body is not a JSON object")
	}
	var out bytes.Buffer
	out.Grow(len(body) + 128)
	out.Write(body[:end])
	for _, kv := range keys {
		out.WriteString(`,"` + kv[0] + `":` + kv[1])
	}
	out.Write(body[end:])
	body = out.Bytes()
	r2 := req.Clone(req.Context())
	r2.Body = io.NopCloser(bytes.NewReader(body))
	r2.ContentLength = int64(len(body))
	r2.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return d.next.Do(r2)
}

// keys are the JSON keys and values of the fields set, in a fixed order.
func (s Sampling) keys() [][2]string {
	var out [][2]string
	f := func(k string, v *float32) {
		if v != nil {
			out = append(out, [2]string{k, strconv.FormatFloat(float64(*v), 'g', -1, 32)})
		}
	}
	f("temperature", s.Temperature)
	f("top_p", s.TopP)
	if s.MaxTokens > 0 {
		out = append(out, [2]string{"max_tokens", strconv.Itoa(s.MaxTokens)})
	}
	f("frequency_penalty", s.FrequencyPenalty)
	return out
}

// explicit folds ClientConfig's own MaxTokens and Temperature into the
// sampling (Sampling wins) and clears them, so go-openai never writes a key
// the body rewrite adds.
func (c *ClientConfig) explicit() {
	if c.Sampling.Temperature == nil && c.Temperature != 0 {
		t := c.Temperature
		c.Sampling.Temperature = &t
	}
	if c.Sampling.MaxTokens == 0 {
		c.Sampling.MaxTokens = c.MaxTokens
	}
	c.Temperature, c.MaxTokens = 0, 0
}
