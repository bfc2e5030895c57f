package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"tandem/engine/model"
)

// causesTypeScript is the list of Cause codes as the page reads it, so a
// vitest can check that each has words in every language.
func causesTypeScript() string {
	var b strings.Builder
	b.WriteString("// Generated from engine.CauseCodes (engine/events.go) by TestCausesTypeScriptGolden; do not edit.\n")
	b.WriteString("// Every Cause code the engine sends; the page words each as cause.<code> (lib/i18n.svelte.ts).\n")
	b.WriteString("export const causeCodes = [\n")
	for _, c := range CauseCodes {
		fmt.Fprintf(&b, "  '%s',\n", c)
	}
	b.WriteString("] as const\n")
	return b.String()
}

func TestCausesTypeScriptGolden(t *testing.T) {
	generatedTS(t, "causes.ts", causesTypeScript(), "engine.CauseCodes")
}

// TestCauseCodesListed: every Cause* constant is in CauseCodes, so the page
// is checked for words for each.
func TestCauseCodesListed(t *testing.T) {
	src, err := os.ReadFile("events.go")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, c := range CauseCodes {
		listed[c] = true
	}
	n := 0
	for _, line := range strings.Split(string(src), "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && strings.HasPrefix(f[0], "Cause") && f[1] == "=" && strings.HasPrefix(f[2], `"`) {
			n++
			if code := strings.Trim(f[2], `"`); !listed[code] {
				t.Errorf("%s (%q) is not in CauseCodes", f[0], code)
			}
		}
	}
	if n != len(CauseCodes) {
		t.Errorf("%d Cause constants, %d codes listed", n, len(CauseCodes))
	}
}

// TestStopReasonsAreCoded: a stop the engine words itself ("stopped
// gracefully", "stopped by the person", "at most 1 more step") reaches the UI
// as a code with its count, and the record keeps the English.
func TestStopReasonsAreCoded(t *testing.T) {
	for _, c := range []struct {
		code, n, english string
	}{
		{CauseStoppedByPerson, "", "stopped by the person"},
		{CauseStoppedGracefully, "", "stopped gracefully"},
		{CauseStoppingGracefully, "1", "stopping gracefully: at most 1 more step"},
		{CauseStoppingGracefully, "2", "stopping gracefully: at most 2 more steps"},
	} {
		if got := (Cause{Code: c.code, N: c.n}).String(); got != c.english {
			t.Errorf("%s/%s: %q, want %q", c.code, c.n, got, c.english)
		}
	}
	if r := stopped(CauseStoppedGracefully); r.Why == nil || r.Why.Code != CauseStoppedGracefully || r.Reason != "stopped gracefully" {
		t.Errorf("stopped: %+v", r)
	}
}

// TestModelDownIsUnreachable: a model server that is not running is named
// as such, with its address, not as the dial's raw error.
func TestModelDownIsUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	base := "http://" + addr + "/v1"
	c, err := model.NewClient(model.ClientConfig{BaseURL: base, Model: "m", Timeout: 10 * time.Second, Retries: 1, Backoff: time.Millisecond, MaxBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = c.Call(ctx, model.Prompt{Messages: []model.Message{{Role: "user", Text: "hi"}}}, false, nil, nil)
	if err == nil {
		t.Fatal("no error from a closed port")
	}
	var ne *model.NetError
	if !errors.As(err, &ne) {
		t.Fatalf("%T %v", err, err)
	}
	if got := modelCause(err); got.Code != CauseModelUnreachable || got.Detail != base {
		t.Errorf("got %+v, want %s at %s", got, CauseModelUnreachable, base)
	}
}
