package backend

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"tandem/internal/scrcpy"
	"tandem/mirror"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

func writeJar(t *testing.T, version string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "scrcpy-server-"+version)
	if err := os.WriteFile(path, scrcpy.MakeJar(version), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A scrcpy-server file chosen in Settings is checked when saved, and the
// refusal names the problem for the person's language; a good one is kept.
func TestSettingsChecksTheScrcpyServerFile(t *testing.T) {
	t.Parallel()
	b := New(Config{ConfigDir: t.TempDir(), DataDir: t.TempDir(), ADB: "127.0.0.1:1"})
	notJar := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notJar, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, code := range map[string]string{
		filepath.Join(t.TempDir(), "missing"): "scrcpy.missing",
		notJar:                                "scrcpy.not_server",
		writeJar(t, "1.25"):                   "scrcpy.too_old",
		writeJar(t, "5.0"):                    "scrcpy.too_new",
	} {
		raw, _ := json.Marshal(path)
		_, err := b.UpdateSettings(map[string]json.RawMessage{"scrcpy_server": raw})
		var se *ScrcpyError
		if !errors.As(err, &se) || Say(err).Code != code || Say(err).Params["path"] != path {
			t.Fatalf("%s: %v (%+v)", path, err, Say(err))
		}
		if s := b.CheckScrcpyServer(path); "scrcpy."+s.Problem != code {
			t.Fatalf("check %s: %+v", path, s)
		}
	}
	if s, _, _ := b.GetSettingsOnly(); s.ScrcpyServer != "" {
		t.Fatalf("a refused file was stored: %q", s.ScrcpyServer)
	}
	good := writeJar(t, "2.7")
	raw, _ := json.Marshal(good)
	if s, err := b.UpdateSettings(map[string]json.RawMessage{"scrcpy_server": raw}); err != nil || s.ScrcpyServer != good {
		t.Fatalf("%+v %v", s.ScrcpyServer, err)
	}
	if s := b.CheckScrcpyServer(good); s.Problem != "" || s.Version != "2.7" || s.Env != "" {
		t.Fatalf("%+v", s)
	}
	// With no file chosen, Settings says which one the usual paths hold.
	b.desks.jarPaths = []string{filepath.Join(t.TempDir(), "none"), writeJar(t, "1.25")}
	if s := b.CheckScrcpyServer(""); !s.Found || s.Path != b.desks.jarPaths[1] || s.Version != "1.25" || s.Problem != "too_old" {
		t.Fatalf("%+v", s)
	}
	b.desks.jarPaths = nil
	if s := b.CheckScrcpyServer(""); !s.Found || s.Path != "" || s.Problem != "" {
		t.Fatalf("%+v", s)
	}
	// The environment's file wins, and Settings says so.
	env := New(Config{ConfigDir: t.TempDir(), DataDir: t.TempDir(), ADB: "127.0.0.1:1", ScrcpyServer: "/opt/scrcpy-server"})
	if s := env.CheckScrcpyServer(good); s.Env != "/opt/scrcpy-server" {
		t.Fatalf("%+v", s)
	}
}

// The mirror's path names the scrcpy-server release it speaks (the file
// chosen in Settings), and a 1.x file is named and called too old.
func TestMirrorPathNamesTheScrcpyRelease(t *testing.T) {
	needFFmpeg(t)
	for _, c := range []struct{ version, path, code string }{
		{"2.4", "scrcpy", "scrcpy"},
		{"1.25", "screenrecord", "screenrecord_scrcpy_too_old"},
	} {
		t.Run(c.version, func(t *testing.T) {
			_, env := vphonetest.Start(t, vphone.WithSize(720, 1600))
			hub := mirror.NewHub()
			f := newDesks(NewDevices("127.0.0.1:"+strconv.Itoa(env.Port), t.TempDir()), hub, func(string) bool { return false })
			jar := writeJar(t, c.version)
			f.settingJar = func() string { return jar }
			t.Cleanup(f.stopAll)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := f.Watch(ctx, "test", env.Serial); err != nil {
				t.Fatal(err)
			}
			for {
				changed := hub.Changed(env.Serial)
				if p := hub.PathOf(env.Serial); p.Path != "" {
					if p.Path != c.path || p.Code != c.code || p.Version != c.version {
						t.Fatalf("path %+v", p)
					}
					return
				}
				select {
				case <-ctx.Done():
					t.Fatalf("no path: %+v", hub.PathOf(env.Serial))
				case <-changed:
				}
			}
		})
	}
}
