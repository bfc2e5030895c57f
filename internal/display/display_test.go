package display

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"tandem/internal/xvfb"
)

func TestProblem(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the check is for Linux desktops")
	}
	dir := t.TempDir()
	wl := filepath.Join(dir, "wayland-0")
	ln, err := net.Listen("unix", wl)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	d := xvfb.Start(t, 320, 240)
	cases := []struct {
		name string
		env  map[string]string
		ok   bool
		says string
	}{
		{"nothing set", map[string]string{}, false, "DISPLAY"},
		{"an X display that answers", map[string]string{"DISPLAY": d.Name}, true, ""},
		{"an X display nobody serves", map[string]string{"DISPLAY": ":987"}, false, ":987"},
		{"a malformed DISPLAY", map[string]string{"DISPLAY": "nonsense"}, false, "nonsense"},
		{"a Wayland socket", map[string]string{"WAYLAND_DISPLAY": "wayland-0", "XDG_RUNTIME_DIR": dir}, true, ""},
		{"a Wayland name with no socket", map[string]string{"WAYLAND_DISPLAY": "wayland-9", "XDG_RUNTIME_DIR": dir}, false, "wayland-9"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Problem(func(k string) string { return c.env[k] })
			if (err == nil) != c.ok {
				t.Fatalf("Problem = %v, want ok=%v", err, c.ok)
			}
			if err != nil && (!strings.Contains(err.Error(), c.says) || strings.Contains(err.Error(), "\n")) {
				t.Fatalf("%q: want one line naming %q", err, c.says)
			}
		})
	}
}

// The built binary with no display says so in one line, without a panic.
func TestNoDisplayOneLine(t *testing.T) {
	bin := os.Getenv("TANDEM_BIN")
	if bin == "" {
		t.Skip("TANDEM_BIN not set (make test sets it)")
	}
	cmd := exec.Command(bin)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatal("the app started with no display")
	}
	text := strings.TrimSpace(string(out))
	if strings.Contains(text, "goroutine") || strings.Contains(text, "panic") || strings.Count(text, "\n") > 0 || !strings.Contains(text, "display") {
		t.Fatalf("want one line about the display, got:\n%s", text)
	}
}
