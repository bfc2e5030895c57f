package desktop

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"tandem/engine/action"
	"tandem/engine/device"
)

func do(t *testing.T, d *Driver, a action.Action) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	if err := d.Do(ctx, a); err != nil {
		t.Fatalf("%v: %v", a, err)
	}
}

func at(e pageEvent, x, y int) bool { return e.X == float64(x) && e.Y == float64(y) }

// Every pointer action lands on the exact pixel, as the kind of event meant.
func TestPointerActionsLandOnTheirPoint(t *testing.T) {
	p := page(t)
	d := open(t, Options{})
	for _, c := range []struct {
		name  string
		check func(t *testing.T, p *testEnv, d *Driver)
	}{
		{"tap", landsTap},
		{"double_tap", landsDoubleTap},
		{"right_click", landsRightClick},
		{"long_press", landsLongPress},
		{"drag", landsDrag},
		{"scroll", landsScroll},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, p, d) })
	}
}

// landsTap: a tap is one left mousedown, mouseup and click at its point, no dblclick.
func landsTap(t *testing.T, p *testEnv, d *Driver) {
	p.reset()
	do(t, d, action.Action{Type: action.Tap, X: 333, Y: 211})
	// The page reports each event on its own, so they may arrive in any
	// order: wait for all three kinds, and for whatever the click set off (a
	// dblclick, if the tap wrongly made one).
	evs := p.waitFor(t, "mousedown, mouseup and click", func(evs []pageEvent) bool {
		return len(ofType(evs, "mousedown")) >= 1 && len(ofType(evs, "mouseup")) >= 1 && clicksDone(evs, 1)
	})
	for _, typ := range []string{"mousedown", "mouseup", "click"} {
		es := ofType(evs, typ)
		if len(es) != 1 || !at(es[0], 333, 211) || es[0].Button != 0 {
			t.Errorf("%s: want one left at (333,211), got %v", typ, es)
		}
	}
	if len(ofType(evs, "dblclick")) != 0 {
		t.Errorf("a tap gave a dblclick: %v", evs)
	}

}

// landsDoubleTap: a double tap is a dblclick after two mousedowns at its point.
func landsDoubleTap(t *testing.T, p *testEnv, d *Driver) {
	p.reset()
	do(t, d, action.Action{Type: action.DoubleTap, X: 1517, Y: 902})
	evs := p.waitFor(t, "dblclick and two mousedowns", func(evs []pageEvent) bool {
		return len(ofType(evs, "dblclick")) >= 1 && len(ofType(evs, "mousedown")) >= 2
	})
	if es := ofType(evs, "dblclick"); !at(es[0], 1517, 902) {
		t.Errorf("dblclick at %v", es[0])
	}
	if es := ofType(evs, "mousedown"); len(es) != 2 || !at(es[0], 1517, 902) || !at(es[1], 1517, 902) {
		t.Errorf("mousedowns: %v", es)
	}

}

// landsRightClick: a right click is a contextmenu with the right button.
func landsRightClick(t *testing.T, p *testEnv, d *Driver) {
	p.reset()
	do(t, d, action.Action{Type: action.RightClick, X: 7, Y: 1070})
	evs := p.waitFor(t, "contextmenu and mouseup", func(evs []pageEvent) bool {
		return len(ofType(evs, "contextmenu")) == 1 && len(ofType(evs, "mouseup")) == 1 && len(ofType(evs, "mousedown")) == 1
	})
	if es := ofType(evs, "contextmenu"); !at(es[0], 7, 1070) || es[0].Button != 2 {
		t.Errorf("contextmenu %v", es[0])
	}
	if es := ofType(evs, "mousedown"); len(es) != 1 || es[0].Button != 2 {
		t.Errorf("mousedown %v", es)
	}

}

// landsLongPress: a long press holds the button for its duration.
func landsLongPress(t *testing.T, p *testEnv, d *Driver) {
	p.reset()
	start := time.Now()
	do(t, d, action.Action{Type: action.LongPress, X: 640, Y: 360, Ms: 300})
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Errorf("long press took %v", took)
	}
	evs := p.waitFor(t, "mousedown and mouseup", func(evs []pageEvent) bool {
		return len(ofType(evs, "mousedown")) >= 1 && len(ofType(evs, "mouseup")) >= 1
	})
	down, up := ofType(evs, "mousedown")[0], ofType(evs, "mouseup")[0]
	if !at(down, 640, 360) || !at(up, 640, 360) {
		t.Errorf("down %v up %v", down, up)
	}
	if held := up.T - down.T; held < 280 {
		t.Errorf("held %v ms, want >= 300", held)
	}

}

// landsDrag: a drag holds the button along a path of moves from its start to its end.
func landsDrag(t *testing.T, p *testEnv, d *Driver) {
	p.reset()
	do(t, d, action.Action{Type: action.Drag, X: 200, Y: 150, X2: 700, Y2: 450, Ms: 300})
	evs := p.waitFor(t, "mousedown, mouseup and every move between", func(evs []pageEvent) bool {
		down, up := ofType(evs, "mousedown"), ofType(evs, "mouseup")
		return len(down) >= 1 && len(up) >= 1 && gapFree(evs, down[0].N, up[0].N)
	})
	down, up := ofType(evs, "mousedown"), ofType(evs, "mouseup")
	if len(down) != 1 || !at(down[0], 200, 150) || len(up) != 1 || !at(up[0], 700, 450) {
		t.Fatalf("down %v up %v", down, up)
	}
	var between []pageEvent
	for _, e := range ofType(evs, "mousemove") {
		if e.N > down[0].N && e.N < up[0].N {
			if e.Buttons != 1 {
				t.Errorf("move without the button held: %v", e)
			}
			between = append(between, e)
		}
	}
	if len(between) < 5 {
		t.Errorf("%d intermediate moves, want a path", len(between))
	}
	for i := 1; i < len(between); i++ {
		if between[i].X < between[i-1].X || between[i].Y < between[i-1].Y {
			t.Errorf("path goes backwards: %v then %v", between[i-1], between[i])
		}
	}

}

// landsScroll: a scroll is wheel events in its direction at its point.
func landsScroll(t *testing.T, p *testEnv, d *Driver) {
	for _, c := range []struct {
		dir    string
		dx, dy int // signs
	}{{"down", 0, 1}, {"up", 0, -1}, {"left", -1, 0}, {"right", 1, 0}} {
		p.reset()
		do(t, d, action.Action{Type: action.Scroll, X: 1111, Y: 555, Direction: c.dir})
		// chromium merges wheel events; X11 notches are 120 each.
		evs := p.waitFor(t, "wheel "+c.dir, func(evs []pageEvent) bool {
			sum := 0.0
			for _, e := range ofType(evs, "wheel") {
				sum += math.Abs(e.DX) + math.Abs(e.DY)
			}
			return sum >= 5*120
		})
		for _, e := range ofType(evs, "wheel") {
			if !at(e, 1111, 555) || sign(e.DX) != c.dx || sign(e.DY) != c.dy {
				t.Errorf("scroll %s: %v", c.dir, e)
			}
		}
	}

}

func sign(f float64) int {
	switch {
	case f > 0:
		return 1
	case f < 0:
		return -1
	}
	return 0
}

// A hotkey reaches the page as one keydown with its modifiers held.
func TestHotkeyArrivesAsHotkey(t *testing.T) {
	p := page(t)
	d := open(t, Options{})
	do(t, d, action.Action{Type: action.Tap, X: 1500, Y: 300}) // focus the page, not the text field
	for _, c := range []struct {
		keys             []string
		key              string
		ctrl, shift, met bool
	}{
		{[]string{"ctrl", "b"}, "b", true, false, false},
		{[]string{"Control+Shift+K"}, "K", true, true, false},
		{[]string{"cmd", "space"}, " ", false, false, true},
	} {
		p.reset()
		do(t, d, action.Action{Type: action.Hotkey, Keys: c.keys})
		evs := p.waitFor(t, "keydown "+c.key, func(evs []pageEvent) bool {
			for _, e := range ofType(evs, "keydown") {
				if e.Key == c.key {
					return true
				}
			}
			return false
		})
		for _, e := range ofType(evs, "keydown") {
			if e.Key == c.key && (e.Ctrl != c.ctrl || e.Shift != c.shift || e.Meta != c.met || e.Alt) {
				t.Errorf("%v: keydown %v", c.keys, e)
			}
		}
	}
	p.reset()
	do(t, d, action.Action{Type: action.Key, Key: "PageDown"})
	p.waitFor(t, "PageDown", func(evs []pageEvent) bool {
		es := ofType(evs, "keydown")
		return len(es) == 1 && es[0].Key == "PageDown" && !es[0].Ctrl
	})
}

// ASCII is typed and Chinese pasted into a real text field, read back
// exactly; the person's clipboard survives the paste.
// TestPastesBackToBack pastes twenty short Chinese texts one after another,
// each checked in the page before the next: every paste lands whole, none is
// lost or doubled. Before the driver nudged the apps (see clipboard), about
// one run in three lost a paste: Chromium stalled mid-paste until the
// person's clipboard came back, then pasted nothing.
func TestPastesBackToBack(t *testing.T) {
	p := page(t)
	d := open(t, Options{})
	setClipboard(t, "person")
	do(t, d, action.Action{Type: action.Tap, X: 500, Y: 660})
	do(t, d, action.Action{Type: action.Hotkey, Keys: []string{"ctrl", "a"}})
	do(t, d, action.Action{Type: action.Key, Key: "delete"})
	want := ""
	for i := 0; i < 20; i++ {
		s := strings.Repeat("再", i%3+1)
		want += s
		do(t, d, action.Action{Type: action.TypeText, Text: s})
		p.waitFor(t, fmt.Sprintf("paste %d", i+1), lastValue(want))
	}
	if got := readClipboard(t); got != "person" {
		t.Errorf("clipboard after the pastes = %q, want the person's %q", got, "person")
	}
}

func TestTypeASCIIAndChinese(t *testing.T) {
	p := page(t)
	d := open(t, Options{})
	clip := "the person's clipboard ✓"
	setClipboard(t, clip)
	focus := run(t, "xdotool", "getwindowfocus")

	do(t, d, action.Action{Type: action.Tap, X: 500, Y: 660})
	do(t, d, action.Action{Type: action.Hotkey, Keys: []string{"ctrl", "a"}}) // whatever an earlier test left
	do(t, d, action.Action{Type: action.Key, Key: "delete"})
	ascii := `Hello, World! 0123456789 ~!@#$%^&*()_+-={}[]|\:;"'<>,.?/` + "`"
	if !d.keyboardTypes(ascii) {
		t.Fatal("on the US layout ASCII must be typed key by key, not pasted")
	}
	do(t, d, action.Action{Type: action.TypeText, Text: ascii})
	p.waitFor(t, "typed ASCII", lastValue(ascii))

	do(t, d, action.Action{Type: action.Hotkey, Keys: []string{"ctrl", "a"}})
	do(t, d, action.Action{Type: action.Key, Key: "backspace"})
	p.waitFor(t, "cleared", lastValue(""))

	zh := "你好，世界！Tandem 测试：打开微信 ✓ émoji 😀"
	do(t, d, action.Action{Type: action.TypeText, Text: zh})
	p.waitFor(t, "pasted Chinese", lastValue(zh))
	do(t, d, action.Action{Type: action.TypeText, Text: " 再见", Submit: true})
	p.waitFor(t, "submitted", lastValue(zh+" 再见\n"))

	if got := readClipboard(t); got != clip {
		t.Errorf("clipboard after typing = %q, want the person's %q", got, clip)
	}
	if got := run(t, "xdotool", "getwindowfocus"); got != focus {
		t.Errorf("focus moved from %s to %s", focus, got)
	}
	d.Close()
	// xclip, which keeps it, forks before it tells the X server it owns
	// the clipboard: on a busy machine that takes a moment.
	got := readClipboard(t)
	for deadline := time.Now().Add(patience); got != clip && time.Now().Before(deadline); got = readClipboard(t) {
		time.Sleep(50 * time.Millisecond)
	}
	if got != clip {
		t.Errorf("clipboard after Close = %q, want %q", got, clip)
	}
}

// On a German keyboard robotgo's US rule would type '@' as 'Q', and '#', '/'
// and '<' sit elsewhere: the driver pastes such text instead.
func TestTypeOnAnotherLayout(t *testing.T) {
	p := page(t)
	run(t, "setxkbmap", "de")
	t.Cleanup(func() { execIn("setxkbmap", "us").Run() })
	d := open(t, Options{})
	if d.keyboardTypes("me@example.com") {
		t.Error("the German layout was judged safe for robotgo's US typing")
	}
	if !d.keyboardTypes("Hallo Welt") {
		t.Error("plain letters should type on a German layout")
	}
	do(t, d, action.Action{Type: action.Tap, X: 500, Y: 660})
	do(t, d, action.Action{Type: action.Hotkey, Keys: []string{"ctrl", "a"}})
	do(t, d, action.Action{Type: action.Key, Key: "delete"})
	text := "me@example.com #1 /x/y <ok> [z]"
	do(t, d, action.Action{Type: action.TypeText, Text: text})
	p.waitFor(t, "text typed on a German layout", lastValue(text))
}

func lastValue(want string) func([]pageEvent) bool {
	return func(evs []pageEvent) bool {
		vs := ofType(evs, "value")
		return len(vs) > 0 && vs[len(vs)-1].Value == want
	}
}

func setClipboard(t *testing.T, s string) {
	t.Helper()
	cmd := execIn("xclip", "-selection", "clipboard", "-in")
	cmd.Stdin = stringsReader(s)
	// xclip forks a child that keeps the selection: no output pipes, or
	// waiting for them would wait for that child.
	if err := cmd.Run(); err != nil {
		t.Fatalf("xclip: %v", err)
	}
	deadline := time.Now().Add(patience)
	for readClipboard(t) != s {
		if time.Now().After(deadline) {
			t.Fatal("xclip did not take the clipboard")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readClipboard(t *testing.T) string {
	t.Helper()
	out, err := execIn("xclip", "-selection", "clipboard", "-out").Output()
	if err != nil {
		return ""
	}
	return string(out)
}

func TestUnsupportedAndInvalid(t *testing.T) {
	d := open(t, Options{})
	ctx := context.Background()
	for _, c := range []struct {
		a    action.Action
		want error
	}{
		{action.Action{Type: action.Launch, App: "微信"}, device.ErrUnsupported},
		{action.Action{Type: action.Swipe, X: 1, Y: 1, X2: 50, Y2: 50}, device.ErrUnsupported},
		{action.Action{Type: action.Key, Key: "back"}, device.ErrUnsupported},
		{action.Action{Type: action.Key, Key: "hyperdrive"}, device.ErrUnsupported},
		{action.Action{Type: action.Hotkey, Keys: []string{"ctrl", "c", "v"}}, device.ErrUnsupported},
		{action.Action{Type: action.Tap, X: 1920, Y: 5}, action.ErrInvalid},
		{action.Action{Type: action.Scroll, X: 5, Y: 5, Direction: "sideways"}, action.ErrInvalid},
	} {
		if err := d.Do(ctx, c.a); !errors.Is(err, c.want) {
			t.Errorf("%v: got %v, want %v", c.a, err, c.want)
		}
	}
	caps := d.Capabilities()
	if caps.UITree || caps.Supports(action.Launch) || caps.Supports(action.Swipe) || !caps.Supports(action.Drag) {
		t.Errorf("capabilities %+v", caps)
	}
	if _, ok := any(d).(device.UITree); ok {
		t.Error("the desktop driver must not offer a UI tree")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := d.Do(cctx, action.Action{Type: action.Tap, X: 5, Y: 5}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled ctx: %v", err)
	}
}

// A terminal is a real X text field too: xterm running cat, with ctrl+shift+v
// pasting the CLIPBOARD as terminals do, gets ASCII typed and Chinese pasted.
func TestTypeIntoXterm(t *testing.T) {
	page(t)
	out := t.TempDir() + "/typed.txt"
	xterm := execIn("xterm", "-u8", "-geometry", "80x10+0+0",
		"-xrm", "XTerm*VT100.Translations: #override Ctrl Shift <Key>V: insert-selection(CLIPBOARD)",
		"-e", "sh", "-c", "stty -echo; cat > "+out)
	xterm.Env = append(xterm.Env, "LANG=C.UTF-8", "LC_ALL=C.UTF-8")
	if err := xterm.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { xterm.Process.Kill(); xterm.Wait() })
	d := open(t, Options{PasteKeys: []string{"ctrl", "shift", "v"}})
	deadline := time.Now().Add(patience)
	for {
		if w, _ := d.topWindowAt(image.Pt(40, 40)); w != 0 && d.windowPID(w, 2) == xterm.Process.Pid {
			if _, err := os.Stat(out); err == nil {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("xterm did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// No window manager here to focus a clicked window: focus it as one would.
	w, _ := d.topWindowAt(image.Pt(40, 40))
	run(t, "xdotool", "windowfocus", "--sync", strconv.Itoa(int(w)))
	do(t, d, action.Action{Type: action.Tap, X: 40, Y: 40})
	do(t, d, action.Action{Type: action.TypeText, Text: "echo 'Hi there' | wc -c && ls ~/", Submit: true})
	do(t, d, action.Action{Type: action.TypeText, Text: "中文输入 ok ✓", Submit: true})
	want := "echo 'Hi there' | wc -c && ls ~/\n中文输入 ok ✓\n"
	for deadline := time.Now().Add(patience); ; time.Sleep(20 * time.Millisecond) {
		got, _ := os.ReadFile(out)
		if string(got) == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("xterm's cat wrote %q, want %q", got, want)
		}
	}
}

// gapFree reports whether every event the page numbered from..to has
// arrived (each is posted on its own, so they may come out of order).
func gapFree(evs []pageEvent, from, to int) bool {
	seen := map[int]bool{}
	for _, e := range evs {
		seen[e.N] = true
	}
	for n := from; n <= to; n++ {
		if !seen[n] {
			return false
		}
	}
	return true
}

// TestDoubleTapIsOneDoubleClickHoweverLateItRuns: a double tap is one
// double click even when this process wakes late from every wait, as on a
// machine too busy to run it on time. Here each wait ends a second late,
// past Chromium's double-click time (ui::kDoubleClickTimeMs, 500 ms): a
// driver that waited between its two clicks made two single clicks.
func TestDoubleTapIsOneDoubleClickHoweverLateItRuns(t *testing.T) {
	p := page(t)
	d := open(t, Options{})
	d.inj.s.mu.Lock()
	d.inj.after = func(w time.Duration) <-chan time.Time { return time.After(w + time.Second) }
	d.inj.s.mu.Unlock()
	// A press within the browser's double-click time of an earlier one at
	// the same point continues that click sequence (a triple click, detail
	// 3, and no dblclick): the test run again, or an earlier test's tap
	// there, must not decide this one. A tap far away ends any sequence.
	do(t, d, action.Action{Type: action.Tap, X: 60, Y: 60})
	p.reset()
	do(t, d, action.Action{Type: action.DoubleTap, X: 901, Y: 450})
	// Two clicks without a dblclick fail the test; a dblclick still on its
	// way when the second click arrives must not (it did on a busy machine).
	// The page reports each event on its own, so they may arrive in any
	// order: wait for both presses and releases too.
	evs := p.waitFor(t, "two mousedowns and mouseups, two clicks and what follows them", func(evs []pageEvent) bool {
		return len(ofType(evs, "mousedown")) >= 2 && len(ofType(evs, "mouseup")) >= 2 && clicksDone(evs, 2)
	})
	if es := ofType(evs, "dblclick"); len(es) != 1 || !at(es[0], 901, 450) {
		t.Errorf("want one dblclick at (901,450), got %v in %v", es, evs)
	}
	if es := ofType(evs, "mousedown"); len(es) != 2 || es[1].T <= es[0].T {
		t.Errorf("want two mousedowns, the second later: %v", es)
	}
}
