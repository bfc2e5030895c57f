package app

import (
	"net"
	"os"
	"os/exec"
	"testing"

	"tandem/backend"
	"tandem/vphone"
)

// nopNotifier hears nothing (tests that do not watch events).
var nopNotifier = backend.NotifierFunc(func(string, any) {})

// testApp is a window's App over a backend with files of its own.
func testApp(t *testing.T) *App {
	t.Helper()
	return New(Config{ConfigDir: t.TempDir(), DataDir: t.TempDir(), KeyFile: true})
}

// virtualPhone is the virtual phone serial the app started.
func virtualPhone(t *testing.T, a *App, serial string) *vphone.Phone {
	t.Helper()
	p, ok := a.b.VirtualPhone(serial)
	if !ok {
		t.Fatalf("no virtual phone %s", serial)
	}
	return p
}

// needFFmpeg skips (or fails on CI) without ffmpeg, which the mirror's
// H.264 needs.
func needFFmpeg(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatal("ffmpeg is not installed (apt-get install ffmpeg)")
		}
		tb.Skip("ffmpeg is not installed")
	}
}

// fileText is a file's text.
func fileText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// freeLoopbackPort is a port on 127.0.0.1 nothing listens on now.
func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
