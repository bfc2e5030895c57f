package model

import (
	"fmt"
	"strings"
)

// Preset is a known OpenAI-compatible provider: where it listens and which
// model and dialect fit it out of the box. Settings start from a preset and
// the person may change every field.
type Preset struct {
	Name    string `json:"name"`
	Label   string `json:"label"`
	BaseURL string `json:"base_url"`
	Model   string `json:"model"`
	Dialect string `json:"dialect"`
	Variant string `json:"variant,omitempty"`
	// NeedsKey is false for local servers that accept any key.
	NeedsKey bool `json:"needs_key"`
	// Sampling is the model family's reference sampling (DefaultSampling).
	Sampling Sampling `json:"sampling"`
	// MaxInFlight is how many requests a profile from this preset sends
	// at once (0: no limit; see Limiter). Ollama answers one request per
	// model at a time unless OLLAMA_NUM_PARALLEL says more, and LM Studio
	// one per model unless its "Max Concurrent Predictions" is raised (and
	// never more on its MLX engine): 1, so four runs queue in Tandem, where
	// each says how many are ahead, rather than inside the server with
	// nothing to show. vLLM batches requests continuously and the clouds
	// take many: no limit. The person raises it to the server's own setting.
	MaxInFlight int `json:"max_in_flight,omitempty"`
}

// Presets lists the providers Tandem knows, in the order settings show them.
// Qwen2.5-VL answers in pixels of the image it saw (abs), as its own agent
// tool does (QwenLM/Qwen2.5-VL cookbooks/utils/agent_function_call.py).
// The model names are each provider's documented GUI-agent or VLM model at
// the time of writing; "custom" leaves everything to the person.
func Presets() []Preset {
	ps := []Preset{
		{Name: "openai", Label: "OpenAI", BaseURL: "https://api.openai.com/v1", Model: "gpt-4o",
			Dialect: "tools", Variant: "abs", NeedsKey: true},
		{Name: "zhipu", Label: "Zhipu AutoGLM-Phone", BaseURL: "https://open.bigmodel.cn/api/paas/v4",
			Model: "autoglm-phone", Dialect: "autoglm", NeedsKey: true},
		{Name: "dashscope", Label: "Alibaba DashScope (Qwen-VL)", BaseURL: "https://dashscope.aliyuncs.com/compatible-mode/v1",
			Model: "qwen-vl-max", Dialect: "tools", Variant: "abs", NeedsKey: true},
		{Name: "volcengine", Label: "Volcengine Doubao / UI-TARS", BaseURL: "https://ark.cn-beijing.volces.com/api/v3",
			Model: "doubao-1.5-ui-tars-250328", Dialect: "uitars", Variant: "doubao", NeedsKey: true},
		{Name: "vllm", Label: "Local vLLM", BaseURL: "http://127.0.0.1:8000/v1", Model: "ByteDance-Seed/UI-TARS-1.5-7B",
			Dialect: "uitars", Variant: "1.5"},
		{Name: "ollama", Label: "Ollama", BaseURL: "http://127.0.0.1:11434/v1", Model: "qwen2.5vl:7b",
			Dialect: "json", Variant: "abs", MaxInFlight: 1},
		{Name: "lmstudio", Label: "LM Studio", BaseURL: "http://127.0.0.1:1234/v1", Model: "ui-tars-1.5-7b",
			Dialect: "uitars", Variant: "1.5", MaxInFlight: 1},
		{Name: "custom", Label: "Custom", Dialect: "tools", Variant: "rel1000"},
	}
	for i := range ps {
		ps[i].Sampling = DefaultSampling(ps[i].Dialect, ps[i].Variant)
	}
	return ps
}

// PresetByName finds a preset by its name, case-insensitively.
func PresetByName(name string) (Preset, error) {
	var names []string
	for _, p := range Presets() {
		if strings.EqualFold(p.Name, strings.TrimSpace(name)) {
			return p, nil
		}
		names = append(names, p.Name)
	}
	return Preset{}, fmt.Errorf("unknown model preset %q (known: %s)", name, strings.Join(names, ", "))
}
