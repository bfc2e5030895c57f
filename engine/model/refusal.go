package model

import (
	"errors"
	"net/http"
)

// Refusal is what a model server's refusal means for the person, read from
// its HTTP status here, where the wire is known, so the engine decides what
// to ask without knowing HTTP.
type Refusal int

const (
	NotRefused  Refusal = iota // not a refusal: a network error, a timeout, a bad reply, another status
	KeyRefused                 // 401: the API key was refused
	Forbidden                  // 403: the key lacks the permission
	NoSuchModel                // 404: the server does not know the model (or the base URL is wrong)
	RateLimited                // 429 after the retries
)

// RefusalOf says which refusal err is; detail is the server's message, and
// for NoSuchModel the model is named with the base URL the call went to.
func RefusalOf(err error) (r Refusal, detail, modelName, baseURL string) {
	var auth *AuthError
	if errors.As(err, &auth) {
		switch auth.Status {
		case http.StatusUnauthorized:
			return KeyRefused, auth.Message, auth.Model, auth.BaseURL
		case http.StatusForbidden:
			return Forbidden, auth.Message, auth.Model, auth.BaseURL
		case http.StatusNotFound:
			return NoSuchModel, auth.Message, auth.Model, auth.BaseURL
		}
	}
	var api *APIError
	if errors.As(err, &api) && api.Status == http.StatusTooManyRequests {
		return RateLimited, api.Message, "", ""
	}
	return NotRefused, "", "", ""
}
