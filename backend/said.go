package backend

import (
	"encoding/json"
	"errors"
	"strconv"

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

// Errors the person can act on, each with its code.
var (
	ErrMirrorDown = errors.New("the mirror server is not running")
	ErrNoGoal     = errors.New("type a goal first")
)

// SaidCodes are every code Say gives, for the UI's wording
// (frontend/src/lib/gen/said.ts is generated from it): "error" is any other
// error, shown in the UI's frame with its own English words.
func SaidCodes() []string {
	codes := []string{"error", "illegal", "field", "device_busy", "run_elsewhere", "run_gone", "no_adb", "no_live_input",
		"mirror_down", "no_goal", "no_key", "needs_keyboard", "device_permission", "secure_screen", "unsupported", "device_gone",
		"not_replayable", "device_held"}
	for _, r := range FieldRules {
		codes = append(codes, "field."+r)
	}
	for _, p := range scrcpyProblems {
		codes = append(codes, "scrcpy."+p)
	}
	return codes
}

// Say names what went wrong, most specific first, for the person.
func Say(err error) Said {
	s := Said{Code: "error", Text: err.Error()}
	var ill *engine.IllegalError
	var field *FieldError
	var jar *ScrcpyError
	var held *HeldError
	switch {
	case errors.As(err, &held):
		s.Code, s.Params = "device_held", map[string]string{"door": held.By.Door, "client": held.By.Client, "pid": strconv.Itoa(held.By.PID)}
	case errors.As(err, &jar):
		s.Code, s.Params = "scrcpy."+jar.Server.Problem, map[string]string{"problem": jar.Server.Problem, "version": jar.Server.Version, "path": jar.Server.Path}
	case errors.As(err, &ill):
		s.Code, s.Params = "illegal", map[string]string{"command": ill.Trigger.String(), "state": ill.State.String()}
	case errors.As(err, &field):
		s.Code, s.Params = "field", map[string]string{"field": field.Field, "value": field.Value}
		if field.Rule != "" {
			s.Code = "field." + field.Rule
		}
	case errors.Is(err, ErrDeviceBusy):
		s.Code = "device_busy"
	case errors.Is(err, engine.ErrRecordInUse):
		s.Code = "run_elsewhere"
	case errors.Is(err, ErrNoRun):
		s.Code = "run_gone"
	case errors.Is(err, devices.ErrNoADB):
		s.Code = "no_adb"
	case errors.Is(err, ErrNoLiveInput):
		s.Code = "no_live_input"
	case errors.Is(err, ErrMirrorDown):
		s.Code = "mirror_down"
	case errors.Is(err, ErrNoGoal):
		s.Code = "no_goal"
	case errors.Is(err, ErrNotReplayable):
		s.Code = "not_replayable"
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

// sayJSON is Say as the JSON a door in another process words (a pop-out).
func sayJSON(err error) string {
	b, _ := json.Marshal(Say(err))
	return string(b)
}
