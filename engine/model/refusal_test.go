package model

import (
	"context"
	"fmt"
	"testing"
)

func TestRefusalOf(t *testing.T) {
	auth := func(status int) error {
		return fmt.Errorf("call 3: %w", &AuthError{APIError: APIError{Status: status, Message: "nope"}, BaseURL: "http://h/v1", Model: "m"})
	}
	for _, c := range []struct {
		err  error
		want Refusal
	}{
		{auth(401), KeyRefused},
		{auth(403), Forbidden},
		{auth(404), NoSuchModel},
		{&APIError{Status: 429, Message: "slow down"}, RateLimited},
		{&APIError{Status: 500, Message: "boom"}, NotRefused},
		{context.DeadlineExceeded, NotRefused},
	} {
		if got, _, _, _ := RefusalOf(c.err); got != c.want {
			t.Errorf("RefusalOf(%v) = %d, want %d", c.err, got, c.want)
		}
	}
	if _, detail, name, url := RefusalOf(auth(404)); detail != "nope" || name != "m" || url != "http://h/v1" {
		t.Errorf("404 names %q %q %q", detail, name, url)
	}
}
