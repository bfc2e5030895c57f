package app

import (
	"context"
	"image"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"tandem/internal/modeltest"
	"tandem/internal/uicheck"
	"tandem/internal/xvfb"
)

// TestWindowBecomesABarOnTheDesktop: the production window under Xvfb runs
// a task on this computer (the model thinks until stopped): after the
// person confirms, the window itself becomes a bar at the top of the screen
// and is captured as the screen shows it (test-artifacts/window-bar.png,
// the README's capture); Escape stops the run and the window comes back.
func TestWindowBecomesABarOnTheDesktop(t *testing.T) {
	w := startBar(t)
	s, d, bar, img := w.s, w.s.d, w.bar, w.shot
	crop := image.NewRGBA(bar.Sub(bar.Min))
	for y := range bar.Dy() {
		for x := range bar.Dx() {
			crop.Set(x, y, img.At(bar.Min.X+x, bar.Min.Y+y))
		}
	}
	saveArtifact(t, "window-bar.png", crop)

	s.xdo("key", "Escape")
	s.awaitRecord("Stopped", 1)
	s.await("the window whole again", func(image.Image) bool { return tandemWindow(t, d) == w.whole })
}

// barWindow is the production window as the bar of a task on this computer.
type barWindow struct {
	s     *stateShooter
	pid   int             // the window's process
	whole image.Rectangle // the window before it became the bar
	bar   image.Rectangle // the bar
	shot  image.Image     // the screen, the bar painted
}

// startBar starts the production window under Xvfb and a task on this
// computer (the model thinks until stopped), confirms it as the person
// would, and returns once the window is the bar, painted.
func startBar(t testing.TB) barWindow {
	t.Helper()
	bin := productionBinary(t, "import", "xdotool")
	srv := modeltest.New(t, modeltest.Reply{Content: "Looking at the desktop…", Hold: true})
	cfg, data := t.TempDir(), t.TempDir()
	seedProfile(t, cfg, data, srv.URL)
	d := xvfb.Start(t, 1280, 820)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(d.Env(), "TANDEM_CONFIG_DIR="+cfg, "TANDEM_DATA_DIR="+data, "LANG=en_US.UTF-8", "TANDEM_ADB_PORT=1")
	var logs lockedBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	s := &stateShooter{t: t, d: d, logs: &logs, runs: filepath.Join(data, "runs")}
	s.await("the window", uicheck.LooksLikeTandem)
	s.focusWindow()
	w := barWindow{s: s, pid: cmd.Process.Pid, whole: tandemWindow(t, d)}

	s.xdo("mousemove", "140", "155", "click", "1") // This computer, the only device
	s.xdo("mousemove", "400", "704", "click", "1") // the goal box
	s.xdo("type", "--delay", "15", "Tidy the desktop")
	s.xdo("key", "ctrl+Return")
	s.await("the confirmation", func(img image.Image) bool { // its Go button, where the mirror is otherwise
		r, g, b, _ := img.At(705, 500).RGBA()
		return near8(r>>8, 0x4f) && near8(g>>8, 0x6b) && near8(b>>8, 0xff)
	})
	s.xdo("mousemove", "772", "510", "click", "1") // "Let Tandem control it"
	s.awaitRecord("Planning", 1)
	s.await("the window as a bar, painted", func(shot image.Image) bool {
		w.bar, w.shot = tandemWindow(t, d), shot
		// Most of it in the bar's colour (--warn, #c98a0b).
		return w.bar.Dy() < 200 && w.bar.Min.Y == 0 && countNearIn(shot, w.bar, 0xc9, 0x8a, 0x0b) > w.bar.Dx()*w.bar.Dy()/8
	})
	return w
}

// tandemWindow is where Tandem's main window is on d.
func tandemWindow(t testing.TB, d *xvfb.Display) image.Rectangle {
	t.Helper()
	w, ok := findWindow(d, "Tandem")
	if !ok {
		t.Fatalf("no window named Tandem")
	}
	return w.r
}

// countNearIn counts the pixels of colour r, g, b in rect (every other row
// and column).
func countNearIn(img image.Image, rect image.Rectangle, r, g, b uint32) int {
	n := 0
	rect = rect.Intersect(img.Bounds())
	for y := rect.Min.Y; y < rect.Max.Y; y += 2 {
		for x := rect.Min.X; x < rect.Max.X; x += 2 {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if near8(cr>>8, r) && near8(cg>>8, g) && near8(cb>>8, b) {
				n++
			}
		}
	}
	return n
}
