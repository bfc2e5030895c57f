package app

import (
	"context"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"tandem/internal/uicheck"
	"tandem/internal/xvfb"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// TestAPopOutKeepsItsPhoneWhileTheWindowShowsAnother: the production
// window under Xvfb with two virtual phones behind one adb server. Phone
// A's mirror pops out; then the main window selects phone B. The pop-out
// still streams A (a change on A's screen reaches it) and still takes
// touches (a click in it taps A, never B), while the main window shows B.
// Each device has a desk of its own in the backend; the window's mirror
// and the pop-out are two viewers, so moving one leaves the other alone.
func TestAPopOutKeepsItsPhoneWhileTheWindowShowsAnother(t *testing.T) {
	d, phoneA, phoneB, s := twoPhonesInTheWindow(t)

	s.await("the window", uicheck.LooksLikeTandem)

	// The list's first two rows are the phones, in the adb server's order:
	// the first row's screen says which is A.
	mirror := image.Rect(300, 140, 870, 620)
	s.xdo("mousemove", "140", "170", "click", "1")
	s.await("a phone in the main mirror", func(img image.Image) bool { return !isBlank(img, mirror) })
	rowA, rowB := "230", "170"
	if img, _ := s.capture(); greenInMirror(img) > 200 {
		rowA, rowB = "170", "230"
	}
	s.xdo("mousemove", "140", rowA, "click", "1")
	s.await("phone A in the main mirror", func(img image.Image) bool { return greenInMirror(img) > 200 })
	// The pop-out button, the last tool of the mirror's header.
	s.xdo("mousemove", "853", "118", "click", "1")
	var win popWindow
	s.await("phone A's pop-out", func(image.Image) bool {
		var ok bool
		win, ok = findWindow(d, "Tandem — Tandem Phone A")
		return ok
	})
	// Keep the pop-out over the Steps panel, clear of the main mirror (no
	// window manager places it).
	s.xdo("windowmove", win.id, "870", "0")
	s.await("phone A in its pop-out", func(image.Image) bool {
		var ok bool
		win, ok = findWindow(d, "Tandem — Tandem Phone A")
		img, _ := s.capture()
		return ok && img != nil && greenIn(img, win.r) > 200
	})

	// The main window moves to phone B.
	s.xdo("mousemove", "140", rowB, "click", "1")
	s.await("phone B in the main mirror", func(img image.Image) bool {
		return greenIn(img, mirror) < 20 && !isBlank(img, mirror)
	})

	// The pop-out still streams A: A's screen changes, the pop-out follows.
	if err := phoneA.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	s.await("phone A's new screen in its pop-out while the window shows B", func(img image.Image) bool {
		return greenIn(img, win.r) < 20 && !isBlank(img, win.r)
	})
	if err := phoneA.Launch(vphone.PkgList); err != nil {
		t.Fatal(err)
	}
	s.await("phone A's list back in its pop-out", func(img image.Image) bool { return greenIn(img, win.r) > 200 })
	_, raw := s.capture()
	art := filepath.Join("..", "test-artifacts")
	_ = os.MkdirAll(art, 0o755)
	_ = os.WriteFile(filepath.Join(art, "window-two-phones-popout.png"), raw, 0o644)

	// And still takes touches: a click in it taps A, never B.
	na, nb := len(phoneA.Events()), len(phoneB.Events())
	s.xdo("mousemove", strconv.Itoa(win.r.Min.X+win.r.Dx()/2), strconv.Itoa(win.r.Min.Y+win.r.Dy()/2), "click", "1")
	deadline := time.Now().Add(20 * time.Second)
	for !tappedSince(phoneA, na) {
		if time.Now().After(deadline) {
			t.Fatalf("the click in A's pop-out did not reach A while the window shows B\n%s", s.logs.String())
		}
		time.Sleep(50 * time.Millisecond) // polling the phone until the tap is there
	}
	if tappedSince(phoneB, nb) {
		t.Fatal("a click in A's pop-out tapped B")
	}
}

// twoPhonesInTheWindow starts the production window under Xvfb with two
// virtual phones behind one adb server: A on the List (green), B on the
// shop (no green).
func twoPhonesInTheWindow(t *testing.T) (*xvfb.Display, *vphone.Phone, *vphone.Phone, *stateShooter) {
	t.Helper()
	bin := productionBinary(t, "import", "xdotool", "ffmpeg")
	d := xvfb.Start(t, 1280, 860)
	phoneA, env := vphonetest.Start(t, vphone.WithProduct("phone_a", "Phone A", "a"))
	phoneB, err := vphone.New(vphone.WithProduct("phone_b", "Phone B", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if err := phoneB.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { phoneB.Close() })
	if err := vphonetest.Connect(context.Background(), vphonetest.Env{ADB: env.ADB, Port: env.Port, Serial: phoneB.Addr(), Address: phoneB.Addr()}); err != nil {
		t.Fatal(err)
	}
	if err := phoneA.Launch(vphone.PkgList); err != nil { // green title bar
		t.Fatal(err)
	}
	if err := phoneB.Launch(vphone.PkgShop); err != nil { // not green
		t.Fatal(err)
	}
	cfg := t.TempDir()
	if err := os.WriteFile(filepath.Join(cfg, "settings.json"), []byte(`{"welcome_done":true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(d.Env(), "TANDEM_CONFIG_DIR="+cfg, "TANDEM_DATA_DIR="+t.TempDir(), "LANG=en_US.UTF-8",
		"TANDEM_ADB_PORT="+strconv.Itoa(env.Port), "ADB_LOCAL_TRANSPORT_MAX_PORT=0")
	var logs lockedBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	return d, phoneA, phoneB, &stateShooter{t: t, d: d, logs: &logs}
}

// isBlank: r is one flat colour (no picture in it).
func isBlank(img image.Image, r image.Rectangle) bool {
	r = r.Intersect(img.Bounds())
	if r.Empty() {
		return true
	}
	r0, g0, b0, _ := img.At(r.Min.X+r.Dx()/2, r.Min.Y+r.Dy()/2).RGBA()
	diff := 0
	for y := r.Min.Y; y < r.Max.Y; y += 4 {
		for x := r.Min.X; x < r.Max.X; x += 4 {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if absDiff(cr, r0)+absDiff(cg, g0)+absDiff(cb, b0) > 3*20<<8 {
				diff++
			}
		}
	}
	return diff < 50
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}
