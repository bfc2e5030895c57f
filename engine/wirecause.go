package engine

import (
	"errors"
	"strconv"

	"tandem/engine/model"
)

// wireCause names a model call that failed on the wire — a bound of the
// client tripped, or the server is not the API — so the UI can word it in
// the person's language (the engine's message stays English).
func wireCause(err error) (Cause, bool) {
	var stall *model.StallError
	var big *model.TooLargeError
	var page *model.WebPageError
	switch {
	case errors.As(err, &stall):
		code := CauseModelTimeout
		switch stall.Phase {
		case model.StallFirstByte:
			code = CauseModelNoFirstByte
		case model.StallIdle:
			code = CauseModelStalled
		}
		return Cause{Code: code, N: strconv.Itoa(int(stall.After.Seconds() + 0.5))}, true
	case errors.As(err, &big):
		return Cause{Code: CauseModelTooLarge, N: big.Size()}, true
	case errors.As(err, &page):
		return Cause{Code: CauseModelWebPage, Detail: page.BaseURL}, true
	}
	// Nothing answers at the address: refused, no such host.
	var ne *model.NetError
	if errors.As(err, &ne) && ne.Down {
		return Cause{Code: CauseModelUnreachable, Detail: ne.BaseURL}, true
	}
	return Cause{}, false
}

// modelCause names a failed model call's case, so the person is told what
// to do about it: a refused key, a model the server does not know, a rate
// limit that outlasted the retries, or any other failure. What an HTTP
// status means is the model package's to say (model.RefusalOf).
func modelCause(err error) Cause {
	if c, ok := wireCause(err); ok {
		return c
	}
	switch r, detail, name, baseURL := model.RefusalOf(err); r {
	case model.KeyRefused:
		return Cause{Code: CauseModelKey, Detail: detail}
	case model.Forbidden:
		return Cause{Code: CauseModelForbidden, Detail: detail}
	case model.NoSuchModel:
		return Cause{Code: CauseModelNotFound, N: name, Detail: baseURL}
	case model.RateLimited:
		return Cause{Code: CauseModelRateLimited, Detail: detail}
	case model.NotRefused:
	}
	return Cause{Code: CauseModelFailed, Detail: err.Error()}
}
