// Package model turns what the agent sees into its next actions, through any
// OpenAI-compatible chat-completions API.
//
// The engine depends only on the Planner interface below: given the goal, the
// newest observation and the recent history, return the next action(s). How
// that becomes a prompt and how the reply becomes canonical actions is the
// business of a Dialect (tools, autoglm, uitars, json) and the Client.
package model

import (
	"context"
	"errors"
	"fmt"
	"image"
	"time"

	"tandem/engine/action"
)

// Observation is what the agent sees at one step.
type Observation struct {
	// Screenshot in device pixels; nil when the screen is secure or vision is
	// not needed for this step.
	Screenshot image.Image
	// UITree is the raw uiautomator dump XML; nil when the device has none.
	UITree []byte
	// Screen is the device's screen size: the space of action coordinates.
	Screen action.Size
	// App is the foreground app or window, when known.
	App string
	// Secure is set when the screen could not be captured (FLAG_SECURE).
	Secure bool
}

// Step is one entry of the run's history as the model is told it.
type Step struct {
	N        int             `json:"n"`
	Thought  string          `json:"thought,omitempty"`
	Actions  []action.Action `json:"actions,omitempty"`
	Result   string          `json:"result,omitempty"` // "ok", or what went wrong
	ByPerson bool            `json:"by_person,omitempty"`
	// Reply is the model's reply as it wrote it (coordinates in its own
	// grid): dialects replay it verbatim as the assistant turn. Empty for
	// the person's steps and for records older than this field.
	Reply string `json:"reply,omitempty"`
	// App is the foreground app on the screen the step was decided on.
	App string `json:"app,omitempty"`
	// Note and Region are what the person added when handing back: their
	// words and the screen region they marked (device pixels; each dialect
	// tells the model in its own grid).
	Note   string           `json:"note,omitempty"`
	Region *image.Rectangle `json:"region,omitempty"`
	// Replay is where a replay was when it took this step (Plan.Replay).
	Replay *ReplayMark `json:"replay,omitempty"`
}

// ReplayMark says where a replay of an earlier run is (issue 51): the
// recorded step (1-based) a decision played, or the step the replay
// stopped at and handed to the person. It travels with the step in the
// run's history, so a replay reads where it is from the history alone.
type ReplayMark struct {
	Played  int `json:"played,omitempty"`
	Stopped int `json:"stopped,omitempty"`
}

// Input is everything a Planner needs for one call.
type Input struct {
	Goal        string
	Observation Observation
	History     []Step
	// Notes are messages from the engine to the model for this step only:
	// a nudge after a loop, a denial, the person's answer or hand-back report,
	// a reminder near the step limit.
	Notes     []string
	StepsLeft int
	// Supported lists the actions the device can do.
	Supported []action.Type
	// Model is the model's name as the server knows it; a dialect may pick
	// its prompt by it (AutoGLM-Phone-9B vs -Multilingual).
	Model string
	// Now is the time of the step, for prompts that state the date (the
	// planner sets it when zero).
	Now time.Time
}

// Usage counts one call's tokens and cost.
type Usage struct {
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	Cost             float64 `json:"cost"`               // in Currency
	Currency         string  `json:"currency,omitempty"` // the price table's, e.g. "USD", "CNY"
	// Unpriced means the model has no price in the table: Cost is 0
	// because it is unknown, not because the call was free.
	Unpriced  bool `json:"unpriced,omitempty"`
	Estimated bool `json:"estimated,omitempty"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	cur := u.Currency
	if cur == "" {
		cur = o.Currency
	}
	return Usage{PromptTokens: u.PromptTokens + o.PromptTokens, CompletionTokens: u.CompletionTokens + o.CompletionTokens,
		Cost: u.Cost + o.Cost, Currency: cur, Unpriced: u.Unpriced || o.Unpriced, Estimated: u.Estimated || o.Estimated}
}

// Plan is a Planner's answer.
type Plan struct {
	Thought string
	// Actions in order; a terminal action (finish, fail) is always last.
	Actions      []action.Action
	Raw          string // the model's reply as received
	Usage        Usage
	Latency      time.Duration
	RequestBytes int // size of the request body sent
	// Salvaged says what was repaired in a malformed but lossless reply.
	Salvaged string
	// Cached is set when the decision was reused from the action cache for
	// an identical screen rather than made by the model: the run record
	// must show it.
	Cached bool
	// Replayed is set when the decision is a step of an earlier run
	// played again (a replay, issue 51), found on this screen without
	// the model: the run record must show it.
	Replayed bool
	// Handed is set when the decision was handed in whole (another
	// agent's one action), not asked of a model.
	Handed bool
	// Replay, set by a replay, says where it is; the engine keeps it on
	// the step in the history.
	Replay *ReplayMark
}

// Asked says whether a model was asked for the plan: a replayed, cached
// or handed decision is no model call, and is not counted as one.
func (p Plan) Asked() bool { return !p.Replayed && !p.Cached && !p.Handed }

// Planner decides the next action(s). onThought, when non-nil, receives the
// reply's text as it streams in.
type Planner interface {
	Plan(ctx context.Context, in Input, onThought func(delta string)) (Plan, error)
}

// Preparer is implemented by planners that can get a screenshot ready to
// send (resized, encoded) before the Plan call that sends it. The engine
// offers each frame it captures while it waits for the screen to settle;
// the frame it then plans on is usually one already prepared, so the
// resize and encode (tens of milliseconds on a phone-sized screen) overlap
// the wait instead of following it. Prepare must return at once (the
// work goes on in the background, and Plan waits for it) and be safe for
// concurrent use with Plan; it may ignore a frame (when busy).
type Preparer interface {
	Prepare(img image.Image)
}

// ParseError is a reply the dialect could not turn into actions. The engine
// feeds Reason back to the model for a corrective retry; it is never a finish.
type ParseError struct {
	Reason string
	Raw    string
}

func (e *ParseError) Error() string { return "parse error: " + e.Reason }

// APIError is an HTTP error from the model server after retries.
type APIError struct {
	Status  int
	Message string
}

func (e *APIError) Error() string { return fmt.Sprintf("model API error %d: %s", e.Status, e.Message) }

// ErrAuth marks errors that retrying cannot cure (401/403/404): the settings
// are wrong.
var ErrAuth = errors.New("check the model settings")
