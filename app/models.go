package app

import (
	"errors"
	"fmt"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"tandem/engine/model"
	"tandem/engine/observe"
)

// PresetInfo is a provider preset as the settings screen lists it.
type PresetInfo struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	BaseURL  string `json:"base_url"`
	Model    string `json:"model"`
	Dialect  string `json:"dialect"`
	Variant  string `json:"variant"`
	NeedsKey bool   `json:"needs_key"`
}

// Presets lists the providers Tandem knows (engine/model's table).
func (a *App) Presets() []PresetInfo {
	var out []PresetInfo
	for _, p := range model.Presets() {
		out = append(out, PresetInfo{ID: p.Name, Name: p.Label, BaseURL: p.BaseURL, Model: p.Model,
			Dialect: p.Dialect, Variant: p.Variant, NeedsKey: p.NeedsKey})
	}
	return out
}

// clientFor builds the model client for a stored profile; prices (nil for
// a call whose cost nobody sees) prices its usage.
func clientFor(p Profile, key string, timeout time.Duration, retries int, prices *model.PriceTable) (*model.Client, error) {
	if key == "" {
		key = "none" // local servers accept any key; go-openai needs one
	}
	return model.NewClient(model.ClientConfig{BaseURL: p.BaseURL, APIKey: key, Model: p.Model,
		Timeout: timeout, Retries: retries, Prices: prices, Sampling: p.sampling()})
}

// plannerOptions are the profile's planner settings; runs of profiles with
// the action cache share the app's one cache.
func (a *App) plannerOptions(p Profile) model.PlannerOptions {
	o := model.PlannerOptions{ContextTokens: p.ContextTokens, SmallModel: p.VisionOnDemand, UITree: p.UITree}
	if p.ActionCache {
		a.mu.Lock()
		if a.cache == nil {
			a.cache = observe.NewActionCache[model.Plan](0)
		}
		o.Cache = a.cache
		a.mu.Unlock()
	}
	return o
}

// sampling is what the profile's requests send: its model family's
// reference values, with the profile's own on top.
func (p Profile) sampling() model.Sampling {
	return model.DefaultSampling(p.Dialect, p.Variant).Over(model.Sampling{
		Temperature: p.Temperature, TopP: p.TopP, MaxTokens: p.MaxTokens})
}

// TestResult is what "Test connection" reports.
type TestResult struct {
	OK        bool   `json:"ok"`
	Message   string `json:"message"`
	LatencyMs int64  `json:"latency_ms"`
}

// TestProfile makes one tiny real call with the profile and says plainly
// whether it works and, if not, what to change.
func (a *App) TestProfile(id string) (TestResult, error) {
	p, key, err := a.profile(id)
	if err != nil {
		return TestResult{}, err
	}
	c, err := clientFor(p, key, 30*time.Second, 0, nil)
	if err != nil {
		return TestResult{Message: err.Error()}, nil
	}
	ctx, cancel := a.callCtx(35 * time.Second)
	defer cancel()
	res, err := c.Call(ctx, model.Prompt{Messages: []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleUser, Content: "Reply with the single word OK."},
	}}, false, nil, nil)
	if err != nil {
		return TestResult{Message: explainModelError(err)}, nil
	}
	return TestResult{OK: true, LatencyMs: res.Latency.Milliseconds(),
		Message: fmt.Sprintf("Connected: %s answered.", p.Model)}, nil
}

// explainModelError says what to do about a failed model call.
func explainModelError(err error) string {
	var auth *model.AuthError
	var api *model.APIError
	var net *model.NetError
	switch {
	case errors.As(err, &auth):
		switch auth.Status {
		case 401:
			return "The server refused the API key (401). Paste the key again in Settings → Models."
		case 403:
			return "The API key is not allowed to use this model (403). Check the key's permissions with the provider."
		default:
			return fmt.Sprintf("Not found (404): check the base URL (%s) and the model name %q.", auth.BaseURL, auth.Model)
		}
	case errors.As(err, &api) && api.Status == 429:
		return "The provider is rate limiting you (429). Wait a minute, or check your plan's quota."
	case errors.As(err, &api):
		return fmt.Sprintf("The model server answered with an error (%d): %s", api.Status, api.Message)
	case errors.As(err, &net):
		return "Could not reach the model server: " + net.Msg + ". Is it running, and is the base URL right?"
	}
	return err.Error()
}
