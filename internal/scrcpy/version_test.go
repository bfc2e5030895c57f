package scrcpy

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/commands.golden")

// The versions each release's own tag names (server/build.gradle
// versionName), the quirks included.
var releases = []string{"2.0", "2.1", "2.1.1", "v2.2", "2.3.1", "2.4", "2.5", "2.6.1", "2.7", "3.0", "3.0.2", "3.1", "3.2", "3.3", "3.3.4", "4.0", "4.1"}

func TestJarVersionReadsWhatTheJarSays(t *testing.T) {
	t.Parallel()
	for _, v := range append(releases, "1.25", "4.1", "5.0") {
		got, err := JarVersion(MakeJar(v))
		if err != nil || got != v {
			t.Errorf("jar of %s: %q, %v", v, got, err)
		}
	}
	for name, b := range map[string][]byte{
		"not a zip":     []byte("PK\x03\x04 scrcpy-server test jar"),
		"empty":         nil,
		"zip cut":       MakeJar("3.3.4")[:20],
		"a dex, no zip": makeDex("3.3.4"),
	} {
		if _, err := JarVersion(b); !errors.Is(err, ErrNoVersion) {
			t.Errorf("%s: %v", name, err)
		}
	}
	full := makeDex("3.3.4")
	for n := 0; n < len(full); n += 7 {
		if v, err := dexVersion(full[:n]); err == nil && v != "3.3.4" {
			t.Fatalf("cut at %d: %q", n, v)
		}
	}
}

func TestProtoOfEachRelease(t *testing.T) {
	t.Parallel()
	for _, v := range releases {
		p, err := ProtoOf(v)
		if err != nil || p.Version != v {
			t.Fatalf("%s: %+v %v", v, p, err)
		}
		r := p.Refusal("9.9")
		if got, ok := RefusedBy(r); !ok || got != v {
			t.Fatalf("%s refusal %q read as %q", v, r, got)
		}
	}
	for v, want := range map[string]error{"1.25": ErrTooOld, "1.0": ErrTooOld, "5.0": ErrTooNew, "x": ErrProtocol} {
		if _, err := ProtoOf(v); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", v, err, want)
		}
	}
	if p, _ := ProtoOf("2.0"); !p.RefusalInHandler || p.VideoOption || p.MaxControlType != TypeRotateDevice {
		t.Fatalf("2.0: %+v", p)
	}
	if p, _ := ProtoOf("3.3.4"); p.RefusalInHandler || !p.MaxFPSFloat || p.MaxControlType != TypeResetVideo {
		t.Fatalf("3.3.4: %+v", p)
	}
}

// TestCommandPerVersion is the golden table of the server command line
// Tandem runs for each release (testdata/commands.golden; -update rewrites
// it): the jar's own version string, then the options every release reads.
func TestCommandPerVersion(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for _, v := range releases {
		o := Options{SCID: 0x1234abcd, MaxSize: 1280, MaxFPS: 60, BitRate: 8000000, Control: true, Version: v}
		cmd := o.Command()
		b.WriteString(v + "\t" + cmd + "\n")
		p, _ := ProtoOf(v)
		a, err := ParseServerArgs(p, strings.Fields(cmd)[4:])
		if err != nil || a.Version != v || len(a.Unknown) != 0 || a.MaxFPS != 60 || !a.SendMeta || a.Audio {
			t.Fatalf("%s: %+v %v", v, a, err)
		}
	}
	const golden = "testdata/commands.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != b.String() {
		t.Fatalf("commands differ from %s:\n%s", golden, b.String())
	}
}

// Each release reads the control message types it knows, and no others
// (ControlMessage.java TYPE_ constants of v2.0, v2.4, v2.7, v3.0).
func TestControlTypesPerRelease(t *testing.T) {
	t.Parallel()
	cases := []struct {
		version string
		typ     byte
		ok      bool
	}{
		{"2.0", TypeRotateDevice, true}, {"2.0", 12, false}, // UHID came with 2.4
		{"2.4", 14, true},                   // OPEN_HARD_KEYBOARD_SETTINGS, empty
		{"2.4", TypeOpenKbdSettings, false}, // 15 unknown before 2.7
		{"2.7", 14, false},                  // UHID_DESTROY: not read by the fake
		{"2.7", TypeOpenKbdSettings, true}, {"2.7", TypeResetVideo, false},
		{"3.0", TypeResetVideo, true}, {"3.3.4", TypeResetVideo, true}, {"3.3.4", 18, false},
		{"4.0", 19, true}, {"4.0", 22, false}, {"4.1", 20, true}, // CAMERA_ZOOM_IN, OUT: empty
	}
	for _, c := range cases {
		p, _ := ProtoOf(c.version)
		_, err := ReadMsgOf(p, bytes.NewReader([]byte{c.typ}))
		if (err == nil) != c.ok {
			t.Errorf("%s type %d: %v", c.version, c.typ, err)
		}
	}
	// The messages Tandem sends read the same in every release.
	key, _ := Msg{Type: TypeInjectKeycode, Key: &Key{Code: 66}}.Marshal()
	touch, _ := Msg{Type: TypeInjectTouch, Touch: &Touch{X: 1, Y: 2, Width: 3, Height: 4}}.Marshal()
	clip, _ := Msg{Type: TypeSetClipboard, Clipboard: &Clipboard{Paste: true, Text: "你好"}}.Marshal()
	for _, v := range releases {
		p, _ := ProtoOf(v)
		for _, b := range [][]byte{key, touch, clip} {
			if _, err := ReadMsgOf(p, bytes.NewReader(b)); err != nil {
				t.Errorf("%s type %d: %v", v, b[0], err)
			}
		}
	}
}

// The jars the browser suite points Settings at (frontend/e2e) are
// MakeJar's, kept as files (-update rewrites them).
func TestFixtureJars(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"1.25", "2.7", "3.3.4"} {
		path := "testdata/scrcpy-server-" + v + ".jar"
		if *update {
			if err := os.WriteFile(path, MakeJar(v), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := JarVersion(b); err != nil || got != v {
			t.Fatalf("%s: %q %v", path, got, err)
		}
	}
}
