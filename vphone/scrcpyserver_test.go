package vphone_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tandem/internal/scrcpy"
	"tandem/vphone/vphonetest"
)

// TestScrcpyRefusesAnotherClientInItsReleasesWords: the fake plays the
// release its pushed jar names and refuses a client of any other version
// with that release's own lines (see internal/scrcpy's table), through the
// real adb client and server. A 1.x jar refuses the same way.
func TestScrcpyRefusesAnotherClientInItsReleasesWords(t *testing.T) {
	t.Parallel()
	p, env := vphonetest.Start(t)
	dir := t.TempDir()
	for _, v := range []string{"1.25", "2.0", "2.1.1", "v2.2", "2.4", "2.7", "3.0", "3.3.4", "4.1"} {
		jar := filepath.Join(dir, v)
		if err := os.WriteFile(jar, scrcpy.MakeJar(v), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, errOut, code := env.Run(t, "push", jar, scrcpy.DeviceJarPath); code != 0 {
			t.Fatalf("push: %s", errOut)
		}
		cmd := scrcpy.Options{SCID: 1, Control: true, Version: "9.9"}.Command()
		out, errOut, code := env.Run(t, "shell", cmd)
		got, ok := scrcpy.RefusedBy(out + errOut)
		if code == 0 || !ok || got != v {
			t.Fatalf("%s: exit %d, refusal %q in %q", v, code, got, out+errOut)
		}
		if proto, err := scrcpy.ProtoOf(v); err == nil && !strings.HasPrefix(out+errOut, proto.Refusal("9.9")) {
			t.Fatalf("%s: said %q, want %q", v, out+errOut, proto.Refusal("9.9"))
		}
		if v == "1.25" && !strings.HasPrefix(out, "[server] ERROR: Exception on thread") {
			t.Fatalf("1.x logs on stdout: %q", out)
		}
	}
	if p.ScrcpySessions() != 0 || p.ScrcpyRefusals() != 9 {
		t.Fatalf("%d sessions, %d refusals", p.ScrcpySessions(), p.ScrcpyRefusals())
	}
}
