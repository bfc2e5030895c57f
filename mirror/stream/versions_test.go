package stream_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tandem/internal/scrcpy"
	"tandem/mirror/stream"
	"tandem/vphone"
)

// supported are the releases the virtual phone plays in the mirror's end
// to end tests: each changes something in the table of internal/scrcpy
// (v2.2 calls itself "v2.2"; 4.x frames its video in sessions).
var supported = []string{"2.0", "2.1", "v2.2", "2.4", "2.7", "3.0", "3.1", "3.3.4", "4.0", "4.1"}

// jarOf writes a scrcpy-server jar that names version v, as a release's
// own jar does (its BuildConfig).
func jarOf(t testing.TB, v string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "scrcpy-server")
	if err := os.WriteFile(path, scrcpy.MakeJar(v), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestScrcpyEveryReleaseStreamsAndTaps: with the jar of each release from
// 2.0, the mirror takes the scrcpy path, says which release it speaks,
// streams, and a tap through the control socket reaches the phone.
func TestScrcpyEveryReleaseStreamsAndTaps(t *testing.T) {
	t.Parallel()
	for _, v := range supported {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			p, o := setup(t)
			o.ScrcpyJar = jarOf(t, v)
			if err := p.Launch(vphone.PkgCounter); err != nil {
				t.Fatal(err)
			}
			ctx, src, why, c := openStream(t, o)
			if src.Path() != stream.PathScrcpy || !strings.Contains(why, "scrcpy-server "+v+" ") {
				t.Fatalf("path %s (%s)", src.Path(), why)
			}
			c.waitFor(t, 10*time.Second, "config and key frame", func(ps []stream.Packet) bool { return len(ps) >= 2 && ps[0].Config && ps[1].Key })
			r, _ := p.Bounds("plus")
			m := r.Min.Add(r.Max).Div(2)
			tc := src.(stream.Toucher)
			for _, a := range []byte{scrcpy.ActionDown, scrcpy.ActionUp} {
				if err := tc.Touch(ctx, a, m.X, m.Y); err != nil {
					t.Fatal(err)
				}
			}
			deadline := time.Now().Add(10 * time.Second)
			for p.State().Counter != 1 && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			if p.State().Counter != 1 {
				t.Fatalf("counter %d after a tap over scrcpy-server %s", p.State().Counter, v)
			}
		})
	}
}

// TestScrcpyOneXSaysTooOld: a 1.x jar is named and called too old; the
// mirror uses screenrecord.
func TestScrcpyOneXSaysTooOld(t *testing.T) {
	t.Parallel()
	_, o := setup(t)
	o.ScrcpyJar = jarOf(t, "1.25")
	_, src, why, _ := openStream(t, o)
	if src.Path() != stream.PathScreenrecord || !strings.Contains(why, "scrcpy-server 1.25") || !strings.Contains(why, "too old") {
		t.Fatalf("path %s (%s)", src.Path(), why)
	}
}
