package engine

import (
	"net/url"
	"time"
)

// Settings are a run's knobs. They are written to the record, so they hold
// no secrets (the API key stays in the model client).
type Settings struct {
	Budget    Budget          `json:"budget"`
	Policy    Policy          `json:"policy"`
	Stability StabilityConfig `json:"stability"`
	// LoopK is how many actions in a row may leave the screen unchanged
	// before the run counts it as a loop (default 3).
	LoopK int `json:"loop_k"`
	// History is how many past steps the model is told (default 8).
	History int `json:"history"`
	// RemindAt: when this many steps or fewer are left, the model is
	// reminded to finish or say what is missing (default 3).
	RemindAt int `json:"remind_at"`
	// NoTypingCheck turns off reading back typed text: by default a type
	// action on a device that can (device.TypeChecker) reads the focused
	// field after typing, types it again by the other input path when it
	// does not read as typed, and tells the model when it still does not.
	NoTypingCheck bool `json:"no_typing_check,omitempty"`
	// NoLoopDetection and NoParseRetry turn off two of the run's own
	// features, to measure what they are worth (`tandem eval --without`):
	// the loop detector's nudge and escalation, and the one corrective
	// retry after a reply that could not be used.
	NoLoopDetection bool `json:"no_loop_detection,omitempty"`
	NoParseRetry    bool `json:"no_parse_retry,omitempty"`
	// UITree asks the device for its UI tree at each observation (when it
	// has one); the json dialect and the policy's label check use it.
	UITree bool `json:"ui_tree,omitempty"`
	// Unexpected is the fraction of the screen that may change after a
	// queued action before the rest of the queue is dropped and the model
	// asked again (default 0.5).
	Unexpected float64 `json:"unexpected"`
	// DeviceAwayMax is how long a lost device is waited for before the run
	// ends Failed (default 2 min); the wait counts down visibly.
	DeviceAwayMax time.Duration `json:"device_away_max,omitempty"`
	// MaxRecordBytes bounds a run's record; past it frames are no longer
	// kept (default 512 MiB).
	MaxRecordBytes int64 `json:"max_record_bytes,omitempty"`

	// Descriptive only, for the record and the UI.
	Model   string `json:"model,omitempty"`
	Dialect string `json:"dialect,omitempty"`
	BaseURL string `json:"base_url,omitempty"`
}

func (s Settings) withDefaults() Settings {
	if s.LoopK <= 0 {
		s.LoopK = 3
	}
	if s.History <= 0 {
		s.History = 8
	}
	if s.RemindAt <= 0 {
		s.RemindAt = 3
	}
	if s.Unexpected <= 0 {
		s.Unexpected = 0.5
	}
	if s.DeviceAwayMax <= 0 {
		s.DeviceAwayMax = 2 * time.Minute
	}
	s.Stability = s.Stability.withDefaults()
	s.BaseURL = redactURL(s.BaseURL)
	return s
}

// redactURL drops credentials and the query from a URL before it is recorded.
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || u == "" {
		return ""
	}
	p.User, p.RawQuery, p.Fragment = nil, "", ""
	return p.String()
}
