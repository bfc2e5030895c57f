package adb

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// Restored is a phone whose keyboard was given back at start-up: an earlier
// Tandem (the app or the command line) switched it to ADB Keyboard and
// died before switching it back.
type Restored struct {
	Serial string `json:"serial"`
	IME    string `json:"ime"` // the person's keyboard, now current again
}

// RestorePending gives the person's keyboard back on every connected phone
// that has a pending note in stateDir (see Options.StateDir). A phone that
// is not connected keeps its note for the next start; a phone whose
// keyboard the person already changed loses the note silently. It returns
// the phones it repaired, and the first error met (the others are still
// tried). A phone driven (another Tandem holds it, typing with ADB
// Keyboard) is left as it is: its note is no crash's.
func RestorePending(ctx context.Context, srv Server, stateDir string, driven func(serial string) bool) ([]Restored, error) {
	if stateDir == "" {
		return nil, nil
	}
	notes, err := filepath.Glob(filepath.Join(stateDir, "keyboard-*.json"))
	if err != nil || len(notes) == 0 {
		return nil, err
	}
	pending := map[string]bool{}
	for _, n := range notes {
		b, err := os.ReadFile(n)
		if err != nil {
			continue
		}
		var s savedKeyboard
		if json.Unmarshal(b, &s) == nil && s.Serial != "" {
			pending[s.Serial] = true
		}
	}
	if len(pending) == 0 {
		return nil, nil
	}
	list, err := srv.Devices(ctx)
	if err != nil {
		return nil, err
	}
	var out []Restored
	var first error
	for _, e := range list {
		if !e.Online() || !pending[e.Serial] || driven != nil && driven(e.Serial) {
			continue
		}
		// Open repairs a crashed switch (recoverKeyboard); Close then has
		// nothing to restore.
		d, err := Open(ctx, Options{Server: srv, Serial: e.Serial, StateDir: stateDir})
		if err != nil {
			first = errors.Join(first, err)
			continue
		}
		if d.recovered != "" {
			out = append(out, Restored{Serial: e.Serial, IME: d.recovered})
		}
		_ = d.Close()
	}
	return out, first
}

// RestoredText is the terminal's line about repaired phones ("" for none).
func RestoredText(rs []Restored) string {
	if len(rs) == 0 {
		return ""
	}
	var names []string
	for _, r := range rs {
		names = append(names, r.Serial)
	}
	return "gave your keyboard back on " + strings.Join(names, ", ") +
		" (an earlier Tandem left ADB Keyboard on when it stopped unexpectedly)"
}
