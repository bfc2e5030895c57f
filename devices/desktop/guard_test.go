package desktop

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb/xproto"

	"tandem/engine/action"
)

// pointer reads the pointer position from a separate X client.
func pointer(t *testing.T) image.Point {
	t.Helper()
	out := run(t, "xdotool", "getmouselocation", "--shell")
	var p image.Point
	for _, line := range strings.Split(out, "\n") {
		k, v, _ := strings.Cut(line, "=")
		n, _ := strconv.Atoi(v)
		switch k {
		case "X":
			p.X = n
		case "Y":
			p.Y = n
		}
	}
	return p
}

// A second X client moves the pointer in the middle of a drag: the takeover
// signal fires within 200 ms, the drag stops, and the agent sends nothing
// more but the release of the button it held.
func TestPhysicalTakeoverStopsTheAgent(t *testing.T) {
	p := page(t)
	d := open(t, Options{})
	ctx := context.Background()
	done := make(chan error, 1)
	// A drag long enough to be still under way however late a loaded
	// machine shows its first moves (3 s ended before the person moved
	// under make stress, and a finished drag has no one to take over from).
	go func() {
		done <- d.Do(ctx, action.Action{Type: action.Drag, X: 100, Y: 100, X2: 900, Y2: 900, Ms: 30000})
	}()
	p.waitFor(t, "the drag under way", func(evs []pageEvent) bool {
		for _, e := range ofType(evs, "mousemove") {
			if e.Buttons == 1 && e.X > 150 {
				return true
			}
		}
		return false
	})
	person := image.Pt(1700, 300)
	moved := time.Now()
	run(t, "xdotool", "mousemove", strconv.Itoa(person.X), strconv.Itoa(person.Y))
	select {
	case <-d.Takeover():
		// How fast is the machine's business (logged); that it comes is the
		// promise.
		t.Logf("takeover signalled %v after xdotool started", time.Since(moved))
	case <-time.After(patience):
		t.Fatal("no takeover signal")
	}
	signalled := float64(time.Now().UnixMicro()) / 1000
	select {
	case err := <-done:
		if !errors.Is(err, ErrTakenOver) {
			t.Fatalf("drag returned %v, want ErrTakenOver", err)
		}
	case <-time.After(patience):
		t.Fatal("the drag went on after the takeover")
	}
	if err := d.Do(ctx, action.Action{Type: action.Tap, X: 50, Y: 50}); !errors.Is(err, ErrTakenOver) {
		t.Fatalf("tap after takeover: %v, want ErrTakenOver", err)
	}
	// Give the agent every chance to misbehave, then check nothing moved.
	time.Sleep(400 * time.Millisecond)
	if got := pointer(t); got != person {
		t.Errorf("pointer at %v after the takeover, the person left it at %v", got, person)
	}
	for _, e := range p.snapshot() {
		if e.T > signalled+5 && !at(e, person.X, person.Y) {
			t.Errorf("agent input after the takeover: %v (%.0f ms after)", e, e.T-signalled)
		}
	}
	// Handed back: the agent drives again.
	d.Resume()
	p.reset()
	do(t, d, action.Action{Type: action.Tap, X: 640, Y: 480})
	p.waitFor(t, "a click after Resume", func(evs []pageEvent) bool {
		es := ofType(evs, "click")
		return len(es) == 1 && at(es[0], 640, 480)
	})
}

// Typing or clicking by the person is a takeover too, however short: a key
// tapped or a button clicked between two samples of the old 25 ms poll
// passed unseen.
func TestKeyboardAndButtonTakeover(t *testing.T) {
	p := page(t)
	d := open(t, Options{})
	for _, person := range [][]string{{"key", "x"}, {"click", "2"}} {
		done := pressUnderWay(t, p, d, image.Pt(1500, 200)) // the person acts while the agent does
		run(t, "xdotool", person...)
		select {
		case <-d.Takeover():
		case <-time.After(patience):
			t.Fatalf("xdotool %v: no takeover", person)
		}
		if err := <-done; !errors.Is(err, ErrTakenOver) {
			t.Fatalf("the press during xdotool %v: %v", person, err)
		}
		if err := d.Do(context.Background(), action.Action{Type: action.Tap, X: 5, Y: 5}); !errors.Is(err, ErrTakenOver) {
			t.Fatalf("after xdotool %v: %v", person, err)
		}
		d.Resume()
	}
}

// Between the agent's actions the computer is the person's: moving the
// mouse to Tandem's own confirmation dialog and clicking Allow is no
// takeover, and the agent's next action runs (issue 19).
func TestPersonBetweenActionsIsNoTakeover(t *testing.T) {
	page(t)
	d := open(t, Options{})
	do(t, d, action.Action{Type: action.Tap, X: 1500, Y: 200})
	run(t, "xdotool", "mousemove", "600", "700", "click", "1")
	// The watcher samples every 25 ms; give it many chances to misjudge.
	select {
	case <-d.Takeover():
		t.Fatal("the person's mouse between actions was taken for a takeover")
	case <-time.After(300 * time.Millisecond):
	}
	do(t, d, action.Action{Type: action.Tap, X: 640, Y: 480})
}

// The stop hotkey works while another window has the focus, and halts the agent.
func TestStopHotkey(t *testing.T) {
	page(t)
	d := open(t, Options{})
	run(t, "xdotool", "key", "ctrl+shift+Escape")
	select {
	case <-d.StopHotkey():
	case <-time.After(patience):
		t.Fatal("the stop hotkey did not fire")
	}
	if err := d.Do(context.Background(), action.Action{Type: action.Tap, X: 5, Y: 5}); !errors.Is(err, ErrStopped) {
		t.Fatalf("tap after stop: %v, want ErrStopped", err)
	}
	// Another chord, NumLock on.
	d.Close()
	d2 := open(t, Options{StopHotkey: "Alt+F12"})
	run(t, "xdotool", "key", "Num_Lock", "alt+F12", "Num_Lock")
	select {
	case <-d2.StopHotkey():
	case <-time.After(patience):
		t.Fatal("alt+F12 with NumLock did not fire")
	}
	// A second driver of the chord (as another Tandem's) shares it: the
	// grab is the first's, the second hears the chord in the stream, and
	// one press stops both (issue 49).
	d3, err := Open(context.Background(), "desktop:0", Options{StopHotkey: "alt+F12"})
	if err != nil {
		t.Fatalf("a second driver of the same hotkey: %v", err)
	}
	run(t, "xdotool", "key", "alt+F12")
	for _, d := range []*Driver{d2, d3} {
		select {
		case <-d.StopHotkey():
		case <-time.After(patience):
			t.Fatal("one press of a shared stop hotkey did not stop both drivers")
		}
	}
	d3.Close()
	d2.Close()
	if err := d2.Do(context.Background(), action.Action{Type: action.Tap, X: 5, Y: 5}); !errors.Is(err, ErrClosed) {
		t.Errorf("tap after Close: %v, want ErrClosed", err)
	}
}

// The agent may not click on Tandem's own window (by PID) or an excluded rectangle.
func TestOwnWindowIsRefused(t *testing.T) {
	p := page(t)
	xterm := exec.Command("xterm", "-geometry", "40x10+100+100", "-e", "sleep", "60")
	xterm.Env = env.display.Env()
	if err := xterm.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { xterm.Process.Kill(); xterm.Wait() })
	d := open(t, Options{ExcludePIDs: []int{xterm.Process.Pid}, ExcludeRects: []image.Rectangle{image.Rect(1800, 0, 1920, 40)}})
	deadline := time.Now().Add(patience)
	for {
		w, err := d.topWindowAt(image.Pt(150, 150))
		if err != nil {
			t.Fatal(err)
		}
		if w != 0 && d.windowPID(w, 2) == xterm.Process.Pid {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("xterm did not map")
		}
		time.Sleep(20 * time.Millisecond)
	}
	ctx := context.Background()
	for _, a := range []action.Action{
		{Type: action.Tap, X: 150, Y: 150},
		{Type: action.Drag, X: 600, Y: 600, X2: 120, Y2: 120},
		{Type: action.Tap, X: 1850, Y: 20},
	} {
		if err := d.Do(ctx, a); !errors.Is(err, ErrOwnWindow) {
			t.Errorf("%v: %v, want ErrOwnWindow", a, err)
		}
	}
	p.reset()
	do(t, d, action.Action{Type: action.Tap, X: 900, Y: 700})
	p.waitFor(t, "a click beside the excluded window", count("click", 1))
	if n := len(ofType(p.snapshot(), "mousedown")); n != 1 {
		t.Errorf("%d mousedowns, want only the allowed one", n)
	}
}

func TestWindowPIDWalksFrames(t *testing.T) {
	d := open(t, Options{})
	root := xproto.Setup(d.ctl).DefaultScreen(d.ctl).Root
	if pid := d.windowPID(root, 0); pid != 0 {
		t.Errorf("root has pid %d", pid)
	}
}

// Two drivers (two displays of one X server) share the stop hotkey: a press
// stops both, and after the one holding the grab closes, the other still
// hears it (issue 19: the second display could not open at all).
func TestStopHotkeySharedByTwoDrivers(t *testing.T) {
	page(t)
	keys := NewStopKeys()
	a := open(t, Options{StopKeys: keys})
	b := open(t, Options{StopKeys: keys})
	run(t, "xdotool", "key", "ctrl+shift+Escape")
	for name, d := range map[string]*Driver{"first": a, "second": b} {
		select {
		case <-d.StopHotkey():
		case <-time.After(patience):
			t.Fatalf("the %s driver did not hear the stop hotkey", name)
		}
	}
	a.Close()
	b.Resume()
	run(t, "xdotool", "key", "ctrl+shift+Escape")
	select {
	case <-b.StopHotkey():
	case <-time.After(patience):
		t.Fatal("after the holder closed, the other driver no longer hears the stop hotkey")
	}
}

// Tandem's own windows are left out of what the agent sees (and of the
// mirror): painted over in screenshots, except where another window lies on
// top of them; excluded rectangles likewise (issue 17: the agent saw, and
// the mirror mirrored, Tandem's own window).
func TestOwnWindowIsLeftOutOfScreenshots(t *testing.T) {
	page(t)
	xterm := func(geom string) *exec.Cmd {
		c := exec.Command("xterm", "-bg", "white", "-geometry", geom, "-e", "sleep", "60")
		c.Env = env.display.Env()
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		return c
	}
	own := xterm("40x10+100+100")
	d := open(t, Options{ExcludePIDs: []int{own.Process.Pid}, ExcludeRects: []image.Rectangle{image.Rect(1800, 0, 1920, 40)}})
	waitTop := func(p image.Point, pid int) {
		t.Helper()
		deadline := time.Now().Add(patience)
		for {
			if w, err := d.topWindowAt(p); err == nil && w != 0 && d.windowPID(w, 2) == pid {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("no window of process %d at %v", pid, p)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitTop(image.Pt(110, 110), own.Process.Pid)
	other := xterm("20x5+150+105") // on top of part of Tandem's window
	waitTop(image.Pt(160, 115), other.Process.Pid)

	shot, err := d.Screenshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	img := shot.(*image.RGBA)
	for _, c := range []struct {
		p    image.Point
		own  bool
		what string
	}{
		{image.Pt(110, 110), true, "Tandem's window"},
		{image.Pt(105, 180), true, "Tandem's window beside the other"},
		{image.Pt(160, 115), false, "the window on top of Tandem's"},
		{image.Pt(1850, 20), true, "an excluded rectangle"},
		{image.Pt(900, 700), false, "the page"},
		{image.Pt(60, 60), false, "outside every window"},
	} {
		if got := img.RGBAAt(c.p.X, c.p.Y) == OwnColour; got != c.own {
			t.Errorf("%s at %v: painted over %v, want %v (pixel %v)", c.what, c.p, got, c.own, img.RGBAAt(c.p.X, c.p.Y))
		}
	}
	// The mirror's path (ScreenshotInto) is masked the same way.
	into, err := d.ScreenshotInto(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if into.RGBAAt(110, 110) != OwnColour || into.RGBAAt(160, 115) == OwnColour {
		t.Errorf("ScreenshotInto: Tandem's window %v, the other %v", into.RGBAAt(110, 110), into.RGBAAt(160, 115))
	}
}

// On an X server without RECORD the guard polls, as it did before: the
// person's moves and held keys are still seen (their acts are not).
func TestWithoutRecordTheGuardPolls(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	xvfb := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "800x600x24", "-nolisten", "tcp",
		"-noreset", "-ac")
	xvfb.ExtraFiles = []*os.File{w}
	if err := xvfb.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { xvfb.Process.Kill(); xvfb.Wait() })
	var num int
	if _, err := fmt.Fscan(r, &num); err != nil {
		t.Fatalf("Xvfb did not say its display: %v", err)
	}
	display := fmt.Sprintf(":%d", num)
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	d, err := Open(ctx, "desktop:0", Options{Display: display, noRecord: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if d.inj.s.rec != nil {
		t.Fatal("the driver uses RECORD")
	}
	person := func(args ...string) {
		cmd := exec.Command("xdotool", args...)
		cmd.Env = append(os.Environ(), "DISPLAY="+display)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("xdotool %v: %v\n%s", args, err, out)
		}
	}
	for _, hand := range [][]string{{"mousemove", "700", "500"}, {"keydown", "x"}} {
		done := make(chan error, 1)
		go func() {
			done <- d.Do(context.Background(), action.Action{Type: action.LongPress, X: 100, Y: 100, Ms: 60000})
		}()
		for deadline := time.Now().Add(patience); ; time.Sleep(10 * time.Millisecond) { // the press under way
			d.inj.s.mu.Lock()
			pressed := len(d.inj.held) > 0
			d.inj.s.mu.Unlock()
			if pressed || time.Now().After(deadline) {
				break
			}
		}
		person(hand...)
		select {
		case <-d.Takeover():
		case <-time.After(patience):
			t.Fatalf("xdotool %v: no takeover", hand)
		}
		if err := <-done; !errors.Is(err, ErrTakenOver) {
			t.Fatalf("the press during xdotool %v: %v", hand, err)
		}
		if hand[0] == "keydown" {
			person("keyup", "x")
		}
		d.Resume()
	}
}
