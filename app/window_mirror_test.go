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
	"strings"
	"testing"
	"time"

	"tandem/internal/uicheck"
	"tandem/internal/xvfb"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// TestWindowMirrorsAPhoneOverScrcpy runs the production binary (WebKitGTK,
// whose WebCodecs decode H.264 through gstreamer1.0-libav) under Xvfb with a
// virtual phone behind a private adb server: selecting the phone shows its
// screen decoded from the scrcpy stream, and a drag with the real X pointer
// reaches the phone as one live gesture. `make test` passes TANDEM_BIN.
func TestWindowMirrorsAPhoneOverScrcpy(t *testing.T) {
	bin := os.Getenv("TANDEM_BIN")
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TANDEM_BIN is not set: run make test, which builds build/bin/tandem")
		}
		t.Skip("TANDEM_BIN not set (make test sets it)")
	}
	for _, tool := range []string{"import", "xdotool", "ffmpeg"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed: %v", tool, err)
		}
	}
	d := xvfb.Start(t, 1280, 860)
	p, env := vphonetest.Start(t)
	if err := p.Launch(vphone.PkgList); err != nil {
		t.Fatal(err)
	}
	cfg, jar := t.TempDir(), filepath.Join(t.TempDir(), "scrcpy-server")
	os.WriteFile(filepath.Join(cfg, "settings.json"), []byte(`{"welcome_done":true}`), 0o644)
	os.WriteFile(jar, []byte("PK\x03\x04 stand-in jar"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(d.Env(), "TANDEM_CONFIG_DIR="+cfg, "TANDEM_DATA_DIR="+t.TempDir(), "LANG=en_US.UTF-8",
		"TANDEM_ADB_PORT="+strconv.Itoa(env.Port), "ADB_LOCAL_TRANSPORT_MAX_PORT=0", "TANDEM_SCRCPY_SERVER="+jar)
	var logs lockedBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); cmd.Wait() }()
	s := &stateShooter{t: t, d: d, logs: &logs}
	s.await("the window", uicheck.LooksLikeTandem)
	// The phone is the first device row.
	s.await("the phone listed and mirrored", func(img image.Image) bool {
		if p.ScrcpySessions() > 0 && greenInMirror(img) > 200 {
			return true
		}
		s.xdo("mousemove", "140", "170", "click", "1")
		return false
	})
	img, _ := s.capture()
	saveArtifact(t, "window-mirror.png", img)
	// A drag on the mirror: down, moves, up from the X pointer.
	s.xdo("mousemove", "585", "520", "mousedown", "1")
	for y := 500; y >= 300; y -= 20 {
		s.xdo("mousemove", "585", strconv.Itoa(y))
	}
	s.xdo("mouseup", "1")
	deadline := time.Now().Add(40 * time.Second)
	for !draggedLive(p) {
		if time.Now().After(deadline) {
			if img, _ := s.capture(); img != nil {
				saveArtifact(t, "window-mirror.png", img)
			}
			t.Fatalf("the drag did not reach the phone as one live gesture\n%s", logs.String())
		}
		time.Sleep(100 * time.Millisecond) // polling the phone until the gesture is there
	}
}

// greenInMirror counts the List app's green bar (0x43a047, shifted a
// little by YUV and scaling) inside the mirror panel: no other green is on
// the screen.
func greenInMirror(img image.Image) int { return greenIn(img, image.Rect(300, 140, 870, 620)) }

// draggedLive: the phone got one touch gesture (down, moves, up) and the
// list scrolled.
func draggedLive(p *vphone.Phone) bool {
	var kinds []string
	for _, e := range p.Events() {
		if strings.HasPrefix(e.Kind, "touch_") {
			kinds = append(kinds, e.Kind)
		}
	}
	got := strings.Join(kinds, ",")
	return strings.HasPrefix(got, "touch_down,touch_move") && strings.HasSuffix(got, "touch_up") && p.State().ListScroll > 0
}

func saveArtifact(t *testing.T, name string, img image.Image) {
	if img == nil {
		return
	}
	dir := filepath.Join("..", "test-artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	var buf bytes.Buffer
	png.Encode(&buf, img)
	os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644)
}
