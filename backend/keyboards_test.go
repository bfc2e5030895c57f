package backend

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"tandem/devices/adb"
	"tandem/engine/action"
	"tandem/internal/datadir"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// TestStartGivesKeyboardBack: a Tandem that died while typing (its note in
// the shared data dir, as `tandem run` leaves it, or in the config folder
// where older apps kept it) is repaired when the app starts, and
// GetSettings says on which phone.
func TestStartGivesKeyboardBack(t *testing.T) {
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	t.Setenv("TANDEM_ADB_PORT", strconv.Itoa(env.Port))
	before := phone.State().IME
	for _, legacy := range []bool{false, true} {
		cfg := Config{ConfigDir: t.TempDir(), DataDir: t.TempDir()}
		notes := datadir.KeyboardNotes(cfg.DataDir)
		crashWhileTyping(t, phone, env, notes)
		if legacy {
			old := filepath.Join(cfg.ConfigDir, "devices")
			if err := os.Rename(notes, old); err != nil {
				t.Fatal(err)
			}
		}
		a := New(cfg)
		if err := a.Begin(context.Background(), nopNotifier{}); err != nil {
			t.Fatal(err)
		}
		got, err := a.GetSettings()
		a.Shutdown()
		if err != nil {
			t.Fatal(err)
		}
		if ime := phone.State().IME; ime != before {
			t.Fatalf("legacy %v: keyboard %q after start, want %q", legacy, ime, before)
		}
		if len(got.KeyboardsRestored) != 1 || got.KeyboardsRestored[0].Serial != env.Serial || got.KeyboardsRestored[0].IME != before {
			t.Fatalf("legacy %v: reported %+v", legacy, got.KeyboardsRestored)
		}
		if left, _ := filepath.Glob(filepath.Join(notes, "keyboard-*.json")); len(left) != 0 {
			t.Fatalf("notes left: %v", left)
		}
	}
}

// crashWhileTyping types Chinese through the ADB driver (which switches to
// ADB Keyboard and leaves a note in notes) and abandons the driver without
// closing it, as a killed process would.
func crashWhileTyping(t *testing.T, phone *vphone.Phone, env vphonetest.Env, notes string) {
	t.Helper()
	if err := phone.Launch(vphone.PkgNotes); err != nil {
		t.Fatal(err)
	}
	d, err := adb.Open(context.Background(), adb.Options{Server: adb.Server{Addr: "127.0.0.1:" + strconv.Itoa(env.Port)},
		Serial: env.Serial, StateDir: notes})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Do(context.Background(), action.Action{Type: action.TypeText, Text: "你好"}); err != nil {
		t.Fatal(err)
	}
	if ime := phone.State().IME; ime != vphone.IMEADB {
		t.Fatalf("typing did not switch the keyboard: %q", ime)
	}
}
