package app

import (
	"encoding/json"
	"errors"

	"tandem/backend"
)

// saidError carries a backend.Said through Wails, which rejects the page's
// promise with the error's text: the text is the Said as JSON.
type saidError struct {
	said backend.Said
	err  error
}

func (e *saidError) Error() string {
	b, _ := json.Marshal(e.said)
	return string(b)
}

func (e *saidError) Unwrap() error { return e.err }

// toUI turns the error a bound method returns into a Said: every exported
// method of a bound service that returns an error starts with
// `defer toUI(&err)` (TestBoundErrorsAreSaid checks it).
func toUI(err *error) {
	if *err == nil {
		return
	}
	var s *saidError
	if errors.As(*err, &s) {
		return
	}
	*err = &saidError{said: backend.Say(*err), err: *err}
}
