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
	bin := os.Getenv("TANDEM_BIN")
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TANDEM_BIN is not set: run make test, which builds build/bin/tandem")
		}
		t.Skip("TANDEM_BIN not set (make test sets it)")
	}
	if _, err := exec.LookPath("import"); err != nil {
		t.Fatalf("imagemagick's import is needed to capture the screen: %v", err)
	}
	d := xvfb.Start(t, 1280, 860)
	adbPort := privateADB(t)
	cfg := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(d.Env(), "TANDEM_CONFIG_DIR="+cfg, "TANDEM_DATA_DIR="+t.TempDir(), "LANG=en_US.UTF-8",
		"TANDEM_ADB_PORT="+strconv.Itoa(adbPort), "ADB_LOCAL_TRANSPORT_MAX_PORT=0")
	var logs bytes.Buffer
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
		shot := exec.Command("import", "-window", "root", "png:-")
		shot.Env = d.Env()
		out, err := shot.Output()
		if err == nil {
			if img, err := png.Decode(bytes.NewReader(out)); err == nil {
				last, lastPNG = img, out
				if looksLikeTandem(img) {
					break
				}
			}
		}
		time.Sleep(250 * time.Millisecond) // polling the screen until the condition holds
	}
	art := filepath.Join("..", "test-artifacts")
	_ = os.MkdirAll(art, 0o755)
	if lastPNG != nil {
		_ = os.WriteFile(filepath.Join(art, "window.png"), lastPNG, 0o644)
	}
	if last == nil || !looksLikeTandem(last) {
		t.Fatalf("the window never showed Tandem's UI (see test-artifacts/window.png)\n%s", logs.String())
	}
	if len(lastPNG) == 0 {
		t.Fatal("no screenshot")
	}
}

// looksLikeTandem checks what an error page or a blank window cannot have:
// many distinct colours, a fair area of panel white, and pixels of Tandem's
// accent blue (the logo and the Start button), which only the real UI draws.
func looksLikeTandem(img image.Image) bool {
	b := img.Bounds()
	colours := map[uint32]bool{}
	var white, accent int
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			r8, g8, b8 := r>>8, g>>8, bl>>8
			colours[r8<<16|g8<<8|b8] = true
			if r8 > 250 && g8 > 250 && b8 > 250 {
				white++
			}
			if near(r8, 79) && near(g8, 107) && near(b8, 255) || near(r8, 170) && near(g8, 183) && near(b8, 255) {
				accent++
			}
		}
	}
	total := (b.Dx() / 2) * (b.Dy() / 2)
	return len(colours) > 40 && white > total/10 && accent > 30
}

func near(v, want uint32) bool { return v+12 >= want && v <= want+12 }

func TestLooksLikeTandemRejectsBlankAndErrorPages(t *testing.T) {
	blank := image.NewRGBA(image.Rect(0, 0, 400, 300))
	if looksLikeTandem(blank) {
		t.Fatal("a black screen passed")
	}
	white := image.NewRGBA(image.Rect(0, 0, 400, 300))
	for i := range white.Pix {
		white.Pix[i] = 255
	}
	if looksLikeTandem(white) {
		t.Fatal("a blank white page passed")
	}
}
