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
	return Cause{}, false
}
