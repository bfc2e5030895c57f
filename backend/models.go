package backend

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"time"

	"tandem/engine/model"
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
	// MaxInFlight is the requests at once a new profile starts with.
	MaxInFlight int `json:"max_in_flight"`
}

// Presets lists the providers Tandem knows (engine/model's table).
func (a *Backend) Presets() []PresetInfo {
	var out []PresetInfo
	for _, p := range model.Presets() {
		out = append(out, PresetInfo{ID: p.Name, Name: p.Label, BaseURL: p.BaseURL, Model: p.Model,
			Dialect: p.Dialect, Variant: p.Variant, NeedsKey: p.NeedsKey, MaxInFlight: p.MaxInFlight})
	}
	return out
}

// TestResult is what "Test connection" reports.
type TestResult struct {
	OK        bool   `json:"ok"`
	Message   string `json:"message"`
	LatencyMs int64  `json:"latency_ms"`
	// Stage is the part that failed, for the form to say in the person's
	// language: "form" (a field is wrong, see Field), "connect", "key",
	// "model", "image", "tools", or "other"; "" when OK.
	Stage string `json:"stage,omitempty"`
	Field string `json:"field,omitempty"`
}

// TestProfile makes one tiny real call with the profile and says plainly
// whether it works and, if not, what to change.
func (a *Backend) TestProfile(ctx context.Context, id string) (TestResult, error) {
	p, key, err := a.profile(id)
	if err != nil {
		return TestResult{}, err
	}
	c, err := clientFor(p, key, 30*time.Second, 0, nil, nil)
	if err != nil {
		return TestResult{Message: err.Error()}, nil
	}
	res, err := c.Call(ctx, model.Prompt{Messages: []model.Message{
		{Role: model.User, Text: "Reply with the single word OK."},
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

// TestForm tests what is in the Settings form, saved or not: one tiny real
// call with one small image, and for the tools dialect one tool the model
// must call. key is the typed key; "" uses the saved profile's key (when
// p.ID names one). The result names the part that failed.
func (a *Backend) TestForm(ctx context.Context, p Profile, key string) (TestResult, error) {
	var err error
	p, err = p.validate()
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			return TestResult{Stage: "form", Field: fe.Field, Message: fe.Msg}, nil
		}
		return TestResult{Stage: "form", Message: err.Error()}, nil
	}
	key = strings.TrimSpace(key)
	if key == "" && p.ID != "" {
		if _, saved, err := a.profile(p.ID); err == nil {
			key = saved
		}
	}
	c, err := clientFor(p, key, 30*time.Second, 0, nil, nil)
	if err != nil {
		return TestResult{Stage: "connect", Message: err.Error()}, nil
	}
	tools := p.Dialect == "tools"
	res, err := c.Call(ctx, testPrompt(true, tools), false, nil, nil)
	if err != nil {
		stage := failedStage(err)
		if stage == "other" {
			// The server answered but refused the request: find which part it
			// refuses by leaving parts out.
			if tools {
				if _, e2 := c.Call(ctx, testPrompt(true, false), false, nil, nil); e2 == nil {
					return TestResult{Stage: "tools", Message: "The model does not accept tool calls: " + explainModelError(err) + " Choose the json reply format instead."}, nil
				}
			}
			if _, e3 := c.Call(ctx, testPrompt(false, false), false, nil, nil); e3 == nil {
				return TestResult{Stage: "image", Message: "The model does not accept images: " + explainModelError(err) + " Tandem needs a vision-language model."}, nil
			}
		}
		return TestResult{Stage: stage, Message: explainModelError(err)}, nil
	}
	if tools && len(res.Reply.ToolCalls) == 0 {
		return TestResult{Stage: "tools", LatencyMs: res.Latency.Milliseconds(),
			Message: "The model answered but did not call the tool. Choose the json reply format, or a model with tool calls."}, nil
	}
	return TestResult{OK: true, LatencyMs: res.Latency.Milliseconds(),
		Message: fmt.Sprintf("Connected: %s answered.", p.Model)}, nil
}

// failedStage names the part of the connection an error shows is wrong.
func failedStage(err error) string {
	var auth *model.AuthError
	var net *model.NetError
	switch {
	case errors.As(err, &auth) && auth.Status == 404:
		return "model"
	case errors.As(err, &auth):
		return "key"
	case errors.As(err, &net), errors.Is(err, context.DeadlineExceeded):
		return "connect"
	}
	return "other"
}

// testPrompt is Test connection's request: a question about a small
// image, and a tool to answer with.
func testPrompt(withImage, withTool bool) model.Prompt {
	msg := model.Message{Role: model.User}
	text := "Reply with the single word OK."
	if withTool {
		text = "Call the answer tool with the word OK."
	}
	if withImage {
		msg.Parts = []model.Part{model.TextPart(text + " (The image is a test pattern.)"), model.ImagePart(testImage())}
	} else {
		msg.Text = text
	}
	pr := model.Prompt{Messages: []model.Message{msg}}
	if withTool {
		pr.Tools = []model.Tool{{Name: "answer", Description: "Give the answer.",
			Parameters: map[string]any{"type": "object", "properties": map[string]any{
				"word": map[string]any{"type": "string"}}, "required": []string{"word"}},
		}}
		pr.ToolChoice = "required"
	}
	return pr
}

// testImage is a 32x32 PNG data URL (big enough for servers with a minimum
// image size, small enough to cost nothing).
func testImage() string {
	img := image.NewRGBA(image.Rect(0, 0, 32, 32))
	for y := 0; y < 32; y++ {
		for x := 0; x < 32; x++ {
			img.Set(x, y, color.RGBA{uint8(x * 8), uint8(y * 8), 128, 255})
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
}
