package app

import (
	"context"
	"image"
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

// TestWindowPopsOutTheMirror: the production window under Xvfb, the virtual
// phone behind a private adb server: the mirror's pop-out button opens a
// second window (this program started again) that shows the phone's
// screen, and a click in it reaches the phone (no task is running).
func TestWindowPopsOutTheMirror(t *testing.T) {
	bin := productionBinary(t, "import", "xdotool", "ffmpeg")
	d := xvfb.Start(t, 1280, 860)
	p, env := vphonetest.Start(t)
	if err := p.Launch(vphone.PkgList); err != nil {
		t.Fatal(err)
	}
	cfg := t.TempDir()
	if err := os.WriteFile(filepath.Join(cfg, "settings.json"), []byte(`{"welcome_done":true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(d.Env(), "TANDEM_CONFIG_DIR="+cfg, "TANDEM_DATA_DIR="+t.TempDir(), "LANG=en_US.UTF-8",
		"TANDEM_ADB_PORT="+strconv.Itoa(env.Port), "ADB_LOCAL_TRANSPORT_MAX_PORT=0")
	var logs lockedBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.WaitDelay = 10 * time.Second // the pop-out, which shares the output, closes once the app is gone
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); cmd.Wait() }()
	s := &stateShooter{t: t, d: d, logs: &logs}
	s.await("the window", uicheck.LooksLikeTandem)
	s.await("the phone listed and mirrored", func(img image.Image) bool {
		if greenInMirror(img) > 200 {
			return true
		}
		s.xdo("mousemove", "140", "170", "click", "1")
		return false
	})
	// The person picks the dark theme (written as another window would):
	// the pop-out opened now is dark too.
	if err := os.WriteFile(filepath.Join(cfg, "settings.json"), []byte(`{"welcome_done":true,"theme":"dark"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// The pop-out button, the last tool of the mirror's header.
	s.xdo("mousemove", "853", "118", "click", "1")
	var win popWindow
	s.await("the pop-out window", func(image.Image) bool {
		var ok bool
		win, ok = findWindow(d, "Tandem — Tandem Virtual Phone")
		return ok
	})
	s.await("the phone's screen in the pop-out", func(img image.Image) bool {
		return greenIn(img, win.r) > 200
	})
	img, raw := s.capture()
	_ = os.WriteFile(filepath.Join("..", "test-artifacts", "window-popout.png"), raw, 0o644)
	// The pop-out (the app started again as a window of its own) composites
	// without GL, as the main window does (app.go's gpuPolicy).
	pops := children(cmd.Process.Pid, filepath.Base(bin)[:min(len(filepath.Base(bin)), 15)])
	if len(pops) == 0 {
		t.Fatal("no pop-out process of the app found")
	}
	for _, pop := range pops {
		n, _ := strconv.Atoi(pop)
		if gl := softwareGLThreads(t, n); len(gl) > 0 {
			t.Errorf("the pop-out's page composites through software GL (threads %q)", gl)
		}
	}
	// The hint below the phone: the page's own background, dark.
	hint := image.Rect(win.r.Min.X, win.r.Max.Y-30, win.r.Max.X, win.r.Max.Y)
	if l := meanLuma(img, hint); l > 90 {
		t.Errorf("the pop-out is light (mean luma %d below the phone) with the dark theme picked", l)
	}

	// A click on the list in the pop-out reaches the phone.
	n := len(p.Events())
	x, y := win.r.Min.X+win.r.Dx()/2, win.r.Min.Y+win.r.Dy()/2
	s.xdo("mousemove", strconv.Itoa(x), strconv.Itoa(y), "click", "1")
	deadline := time.Now().Add(20 * time.Second)
	for !tappedSince(p, n) {
		if time.Now().After(deadline) {
			t.Fatalf("the click in the pop-out did not reach the phone\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond) // polling the phone until the tap is there
	}
}

// popWindow is a top-level window found by name, and where it is.
type popWindow struct {
	id string
	r  image.Rectangle
}

// findWindow finds the visible window named name on d. xdotool's --name
// matches the legacy WM_NAME, where a name beyond Latin-1 (the em dash) is
// in compound text; getwindowname reads the UTF-8 one.
func findWindow(d *xvfb.Display, name string) (popWindow, bool) {
	run := func(args ...string) string {
		c := exec.Command("xdotool", args...)
		c.Env = d.Env()
		out, _ := c.Output()
		return strings.TrimSpace(string(out))
	}
	for _, id := range strings.Fields(run("search", "--onlyvisible", "--name", "^Tandem")) {
		if run("getwindowname", id) != name {
			continue
		}
		v := map[string]int{}
		for _, line := range strings.Fields(run("getwindowgeometry", "--shell", id)) {
			if k, val, ok := strings.Cut(line, "="); ok {
				v[k], _ = strconv.Atoi(val)
			}
		}
		if v["WIDTH"] > 0 && v["HEIGHT"] > 0 {
			return popWindow{id: id, r: image.Rect(v["X"], v["Y"], v["X"]+v["WIDTH"], v["Y"]+v["HEIGHT"])}, true
		}
	}
	return popWindow{}, false
}

// greenIn counts the List app's green (its title bar) inside r.
func greenIn(img image.Image, r image.Rectangle) int {
	n := 0
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		for x := r.Min.X; x < r.Max.X; x += 2 {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if r, g, b := int(cr>>8), int(cg>>8), int(cb>>8); g > r+50 && g > b+50 {
				n++
			}
		}
	}
	return n
}

// tappedSince: the phone got a tap after its first n events.
func tappedSince(p *vphone.Phone, n int) bool {
	ev := p.Events()
	for _, e := range ev[min(n, len(ev)):] {
		if e.Kind == "tap" {
			return true
		}
	}
	return false
}

// meanLuma is the mean brightness (0-255) of img inside r.
func meanLuma(img image.Image, r image.Rectangle) int {
	r = r.Intersect(img.Bounds())
	var sum, n uint32
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			sum += (299*(cr>>8) + 587*(cg>>8) + 114*(cb>>8)) / 1000
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return int(sum / n)
}
