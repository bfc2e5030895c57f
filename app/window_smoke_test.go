package app

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"net"
	"tandem/internal/uicheck"
	"tandem/internal/xvfb"
)

// privateADB reserves a free port for an adb server the app will start, and
// kills that server when the test ends, so tests never touch the developer's
// server on 5037 or their phones.
func privateADB(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	t.Cleanup(func() { _ = exec.Command("adb", "-P", strconv.Itoa(port), "kill-server").Run() })
	return port
}

// TestWindowSmoke starts the production binary under Xvfb, captures the
// screen until the window shows the real UI, and keeps the PNG in
// test-artifacts/window.png for a person to look at. `make test` builds the
// binary and passes its path in TANDEM_BIN.
func TestWindowSmoke(t *testing.T) {
	bin := productionBinary(t, "import")
	d := xvfb.Start(t, 1280, 860)
	adbPort := privateADB(t)
	cfg := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(d.Env(), "TANDEM_CONFIG_DIR="+cfg, "TANDEM_DATA_DIR="+t.TempDir(), "LANG=en_US.UTF-8",
		"TANDEM_ADB_PORT="+strconv.Itoa(adbPort), "ADB_LOCAL_TRANSPORT_MAX_PORT=0")
	var logs lockedBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	var last image.Image
	var lastPNG []byte
	deadline := time.Now().Add(40 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			t.Fatalf("tandem exited early: %v\n%s", err, logs.String())
		default:
		}
		if img, out := captureScreen(d); img != nil {
			last, lastPNG = img, out
			if uicheck.LooksLikeTandem(img) {
				break
			}
		}
		time.Sleep(250 * time.Millisecond) // polling the screen until the condition holds
	}
	art := filepath.Join("..", "test-artifacts")
	_ = os.MkdirAll(art, 0o755)
	if lastPNG != nil {
		_ = os.WriteFile(filepath.Join(art, "window.png"), lastPNG, 0o644)
	}
	if last == nil || !uicheck.LooksLikeTandem(last) {
		t.Fatalf("the window never showed Tandem's UI (see test-artifacts/window.png)\n%s", logs.String())
	}
	if len(lastPNG) == 0 {
		t.Fatal("no screenshot")
	}
}

// productionBinary is the binary `make test` built (TANDEM_BIN), after
// checking the X tools a window test needs; without it the test is skipped
// (or fails in CI, where it must run).
func productionBinary(t testing.TB, tools ...string) string {
	t.Helper()
	bin := os.Getenv("TANDEM_BIN")
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TANDEM_BIN is not set: run make test, which builds build/bin/tandem")
		}
		t.Skip("TANDEM_BIN not set (make test sets it)")
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed (make test installs it): %v", tool, err)
		}
	}
	return bin
}

// captureScreen grabs the whole display as an image and its PNG bytes
// (nil when the capture fails, e.g. while the server starts).
func captureScreen(d *xvfb.Display) (image.Image, []byte) {
	cmd := exec.Command("import", "-window", "root", "png:-")
	cmd.Env = d.Env()
	out, err := cmd.Output()
	if err != nil {
		return nil, nil
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		return nil, nil
	}
	return img, out
}
