package backend

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"tandem/devices"
	"tandem/engine"
	"tandem/engine/device"
)

var updateSaid = flag.Bool("update-said", false, "rewrite frontend/src/lib/gen/said.ts")

// TestSaidCodesAreEverySaid: one error of each case Say names, and the
// codes Say gives them are exactly SaidCodes, so the list the page is
// checked on (gen/said.ts) is the switch's.
func TestSaidCodesAreEverySaid(t *testing.T) {
	errs := []error{
		errors.New("anything"),
		&engine.IllegalError{State: engine.Done, Trigger: engine.OnPause},
		&FieldError{Field: "x", Msg: "an old field error"},
		ErrDeviceBusy, engine.ErrRecordInUse, ErrNoRun, devices.ErrNoADB, ErrNoLiveInput, ErrMirrorDown, ErrNoGoal, ErrNotReplayable,
		ErrNoSecret, device.ErrNeedsKeyboard, device.ErrPermission, device.ErrSecureScreen, device.ErrUnsupported, device.ErrGone, &HeldError{Device: "p", By: devices.Holder{Door: "run", PID: 7}},
	}
	for _, r := range FieldRules {
		errs = append(errs, &FieldError{Field: "x", Rule: r, Msg: r})
	}
	for _, p := range scrcpyProblems {
		errs = append(errs, &ScrcpyError{Server: ScrcpyServer{Problem: p}})
	}
	// Every profile check Say words by its rule.
	bad := []Profile{{}, {Name: "n", BaseURL: "ftp://x"}, {Name: "n", BaseURL: "http://k:s@x"}, {Name: "n", BaseURL: "http://x"}}
	for _, p := range bad {
		_, err := p.validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Rule == "" {
			t.Errorf("%+v: %v has no rule", p, err)
		}
		errs = append(errs, fmt.Errorf("save: %w", err))
	}
	got := map[string]bool{}
	for _, err := range errs {
		got[Say(err).Code] = true
	}
	listed := map[string]bool{}
	for _, c := range SaidCodes() {
		listed[c] = true
		if !got[c] {
			t.Errorf("SaidCodes lists %q, which no error here is said as", c)
		}
	}
	for c := range got {
		if !listed[c] {
			t.Errorf("Say gives %q, which SaidCodes lacks", c)
		}
	}
	codes := SaidCodes()
	sort.Strings(codes)
	var b strings.Builder
	b.WriteString("// Generated from backend.SaidCodes (backend/said.go) by TestSaidCodesAreEverySaid; do not edit.\n")
	b.WriteString("// Every code Say gives; lib/said.ts words each in every language.\n")
	b.WriteString("export const saidCodes = [\n")
	for _, c := range codes {
		fmt.Fprintf(&b, "  '%s',\n", c)
	}
	b.WriteString("] as const\n")
	path := filepath.Join("..", "frontend", "src", "lib", "gen", "said.ts")
	if *updateSaid {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil || string(want) != b.String() {
		t.Errorf("%s differs from SaidCodes (%v); run go test ./backend -run SaidCodes -update-said", path, err)
	}
}
