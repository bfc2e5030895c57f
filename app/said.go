package app

import (
	"encoding/json"
	"errors"

	"tandem/devices"
	"tandem/engine"
	"tandem/engine/device"
)

// Said is a message for the person as the UI receives it: a code the UI
// words in the person's language (frontend/src/lib/said.ts), its
// parameters, and the English text, shown as it comes for a code the UI
// does not know. Go never words a message for the Chinese UI.
type Said struct {
	Code   string            `json:"code"`
	Params map[string]string `json:"params,omitempty"`
	Text   string            `json:"text"`
}

// saidError carries a Said through Wails, which rejects the page's promise
// with the error's text: the text is the Said as JSON.
type saidError struct {
	said Said
	err  error
}

func (e *saidError) Error() string {
	b, _ := json.Marshal(e.said)
	return string(b)
}

func (e *saidError) Unwrap() error { return e.err }

// Errors of the bound methods the person can act on, each with its code.
var (
	errMirrorDown = errors.New("the mirror server is not running")
	errNoGoal     = errors.New("type a goal first")
)

// toUI turns the error a bound method returns into a Said: every exported
// method of App that returns an error starts with `defer toUI(&err)`
// (TestBoundErrorsAreSaid checks it).
func toUI(err *error) {
	if *err == nil {
		return
	}
	var s *saidError
	if errors.As(*err, &s) {
		return
	}
	*err = &saidError{said: sayError(*err), err: *err}
}

// sayError names what went wrong, most specific first.
func sayError(err error) Said {
	s := Said{Code: "error", Text: err.Error()}
	var ill *engine.IllegalError
	var field *FieldError
	switch {
	case errors.As(err, &ill):
		s.Code, s.Params = "illegal", map[string]string{"command": ill.Trigger.String(), "state": ill.State.String()}
	case errors.As(err, &field):
		s.Code, s.Params = "field", map[string]string{"field": field.Field}
	case errors.Is(err, ErrDeviceBusy):
		s.Code = "device_busy"
	case errors.Is(err, ErrNoRun):
		s.Code = "run_gone"
	case errors.Is(err, devices.ErrNoADB):
		s.Code = "no_adb"
	case errors.Is(err, ErrNoLiveInput):
		s.Code = "no_live_input"
	case errors.Is(err, errMirrorDown):
		s.Code = "mirror_down"
	case errors.Is(err, errNoGoal):
		s.Code = "no_goal"
	case errors.Is(err, ErrNoSecret):
		s.Code = "no_key"
	case errors.Is(err, device.ErrNeedsKeyboard):
		s.Code = "needs_keyboard"
	case errors.Is(err, device.ErrPermission):
		s.Code = "device_permission"
	case errors.Is(err, device.ErrSecureScreen):
		s.Code = "secure_screen"
	case errors.Is(err, device.ErrUnsupported):
		s.Code = "unsupported"
	case errors.Is(err, device.ErrGone):
		s.Code = "device_gone"
	}
	return s
}
