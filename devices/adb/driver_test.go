package adb

import (
	"context"
	"errors"
	"image"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// ---- harness: a private adb server and a virtual phone connected to it ----

type rig struct {
	srv    Server
	phone  *vphone.Phone
	serial string
	dev    *Device
	state  string // the driver's state dir
}

// startPhone connects a fresh virtual phone to a private adb server and
// opens the driver on it. Everything is torn down when the test ends.
func startPhone(t testing.TB, opts ...vphone.Option) *rig {
	t.Helper()
	p, env := vphonetest.Start(t, opts...)
	r := &rig{srv: Server{Addr: "127.0.0.1:" + strconv.Itoa(env.Port)}, phone: p, serial: env.Serial, state: t.TempDir()}
	r.dev = r.open(t)
	return r
}

func (r *rig) open(t testing.TB) *Device {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := Open(ctx, Options{Server: r.srv, Serial: r.serial, StateDir: r.state})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func centre(t testing.TB, p *vphone.Phone, text string) (int, int) {
	t.Helper()
	b, ok := p.BoundsOfText(text)
	if !ok {
		t.Fatalf("%q is not on the screen (foreground %s)", text, p.State().Foreground)
	}
	c := b.Min.Add(b.Max).Div(2)
	return c.X, c.Y
}

// returnsBy runs call and fails the test if it has not returned by the
// guard: a hang guard for calls that must end with their context (the
// server or phone never answers), generous so a busy machine never trips
// it; how fast they end is the benchmarks' business.
func returnsBy(t *testing.T, name string, guard time.Duration, call func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- call() }()
	select {
	case err := <-done:
		return err
	case <-time.After(guard):
		t.Fatalf("%s still running %v after its context ended", name, guard)
		return nil
	}
}

func ctx10(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// ---- tests ----

func TestDriverInfoAndTree(t *testing.T) {
	t.Parallel()
	r := startPhone(t, vphone.WithSize(1080, 2400), vphone.WithDensity(440), vphone.WithProduct("tandem", "Tandem Phone", "vphone"))
	ctx := ctx10(t)
	info, err := r.dev.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.ID != r.serial || info.Kind != device.Phone || info.Screen != (action.Size{W: 1080, H: 2400}) ||
		info.Density != 440 || info.Rotation != 0 || !strings.Contains(info.Name, "Tandem Phone") {
		t.Errorf("info %+v", info)
	}
	img, err := r.dev.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds() != image.Rect(0, 0, 1080, 2400) {
		t.Errorf("screenshot bounds %v", img.Bounds())
	}
	tree, err := r.dev.UITree(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(tree), "<?xml") || !strings.HasSuffix(string(tree), "</hierarchy>") || !strings.Contains(string(tree), `text="Counter"`) {
		t.Errorf("tree %.300s", tree)
	}
	if err := r.phone.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	pkg, act, err := r.dev.ForegroundApp(ctx)
	if err != nil || pkg != vphone.PkgCounter || act != "com.tandem.counter.MainActivity" {
		t.Errorf("foreground %q %q %v", pkg, act, err)
	}
	caps := r.dev.Capabilities()
	if !caps.UITree || caps.Supports(action.RightClick) || caps.Supports(action.Hotkey) || !caps.Supports(action.Launch) {
		t.Errorf("caps %+v", caps)
	}
}

// actionCheck judges an action by the phone after it: its state before,
// and the events the action made.
type actionCheck func(t *testing.T, r *rig, before vphone.State, events []vphone.Event)

// lastKind: the action's last event is of kind.
func lastKind(kind string) actionCheck {
	return func(t *testing.T, r *rig, _ vphone.State, ev []vphone.Event) {
		if len(ev) == 0 || ev[len(ev)-1].Kind != kind {
			t.Errorf("last event %+v, want %s", ev, kind)
		}
	}
}

// driverActionCases are the actions of TestDriverActions, each on a fresh
// phone.
var driverActionCases = []struct {
	name  string
	app   string                                   // launched first ("" = launcher)
	act   func(t *testing.T, r *rig) action.Action // built once the screen is up
	check actionCheck
}{
	{"tap", vphone.PkgCounter, func(t *testing.T, r *rig) action.Action {
		x, y := centre(t, r.phone, "+1")
		return action.Action{Type: action.Tap, X: x, Y: y}
	}, func(t *testing.T, r *rig, _ vphone.State, ev []vphone.Event) {
		if c := r.phone.State().Counter; c != 1 {
			t.Errorf("counter %d", c)
		}
		lastKind("tap")(t, r, vphone.State{}, ev)
	}},
	{"double tap", vphone.PkgCounter, func(t *testing.T, r *rig) action.Action {
		x, y := centre(t, r.phone, "+1")
		return action.Action{Type: action.DoubleTap, X: x, Y: y}
	}, func(t *testing.T, r *rig, _ vphone.State, ev []vphone.Event) {
		if c := r.phone.State().Counter; c != 2 {
			t.Errorf("counter %d", c)
		}
	}},
	{"long press", vphone.PkgCounter, func(t *testing.T, r *rig) action.Action {
		return action.Action{Type: action.LongPress, X: 500, Y: 500, Ms: 600}
	}, func(t *testing.T, r *rig, _ vphone.State, ev []vphone.Event) {
		if len(ev) == 0 || ev[len(ev)-1].X != 500 || ev[len(ev)-1].Y != 500 {
			t.Errorf("events %+v", ev)
		}
	}},
	{"swipe scrolls the list", vphone.PkgList, func(t *testing.T, r *rig) action.Action {
		return action.Action{Type: action.Swipe, X: 540, Y: 1800, X2: 540, Y2: 800}
	}, func(t *testing.T, r *rig, b vphone.State, ev []vphone.Event) {
		swipeEvent(540, 1800, 540, 800, 300)(t, r, b, ev)
		if s := r.phone.State().ListScroll; s <= 0 {
			t.Errorf("list scroll %d", s)
		}
	}},
	{"drag", vphone.PkgList, func(t *testing.T, r *rig) action.Action {
		return action.Action{Type: action.Drag, X: 540, Y: 1800, X2: 540, Y2: 1000}
	}, swipeEvent(540, 1800, 540, 1000, 1000)},
	{"scroll down shows more", vphone.PkgList, func(t *testing.T, r *rig) action.Action {
		return action.Action{Type: action.Scroll, X: 540, Y: 1200, Direction: "down"}
	}, swipeEvent(540, 1200+480, 540, 1200-480, 400)}, // 20% of 2400 each way; the finger moves up
	{"scroll right", vphone.PkgList, func(t *testing.T, r *rig) action.Action {
		return action.Action{Type: action.Scroll, X: 540, Y: 1200, Direction: "right"}
	}, swipeEvent(540+216, 1200, 540-216, 1200, 400)},
	{"back closes the dialog", vphone.PkgDialog, func(t *testing.T, r *rig) action.Action {
		return action.Action{Type: action.Key, Key: "back"}
	}, func(t *testing.T, r *rig, before vphone.State, ev []vphone.Event) {
		if !before.DialogOpen || r.phone.State().DialogOpen {
			t.Errorf("dialog open before %v after %v", before.DialogOpen, r.phone.State().DialogOpen)
		}
	}},
	{"home", vphone.PkgCounter, func(t *testing.T, r *rig) action.Action {
		return action.Action{Type: action.Key, Key: "home"}
	}, func(t *testing.T, r *rig, _ vphone.State, ev []vphone.Event) {
		if fg := r.phone.State().Foreground; fg != vphone.PkgLauncher {
			t.Errorf("foreground %s", fg)
		}
	}},
	{"recent apps", vphone.PkgCounter, func(t *testing.T, r *rig) action.Action {
		return action.Action{Type: action.Key, Key: "app_switch"}
	}, func(t *testing.T, r *rig, _ vphone.State, ev []vphone.Event) {
		if !r.phone.State().Recents {
			t.Error("recents not open")
		}
	}},
	{"type ASCII with quotes and spaces", vphone.PkgNotes, func(t *testing.T, r *rig) action.Action {
		return action.Action{Type: action.TypeText, Text: `it's 100% "ok" & $5; 50%sale`}
	}, func(t *testing.T, r *rig, _ vphone.State, ev []vphone.Event) {
		if n := r.phone.State().Note; n != `it's 100% "ok" & $5; 50%sale` {
			t.Errorf("note %q", n)
		}
		if ime := r.phone.State().IME; ime != vphone.IMELatin {
			t.Errorf("ASCII typing switched the keyboard to %s", ime)
		}
	}},
	{"type multi-line and delete", vphone.PkgNotes, func(t *testing.T, r *rig) action.Action {
		return action.Action{Type: action.TypeText, Text: "one\ntwo"}
	}, func(t *testing.T, r *rig, _ vphone.State, ev []vphone.Event) {
		if n := r.phone.State().Note; n != "one\ntwo" {
			t.Errorf("note %q", n)
		}
		if err := r.dev.Do(ctx10(t), action.Action{Type: action.Key, Key: "delete"}); err != nil {
			t.Fatal(err)
		}
		if n := r.phone.State().Note; n != "one\ntw" {
			t.Errorf("after delete %q", n)
		}
	}},
	{"launch by Chinese name", "", func(t *testing.T, r *rig) action.Action {
		return action.Action{Type: action.Launch, App: "微信"}
	}, func(t *testing.T, r *rig, _ vphone.State, ev []vphone.Event) {
		if fg := r.phone.State().Foreground; fg != vphone.PkgChat {
			t.Errorf("foreground %s", fg)
		}
	}},
	{"launch Settings", "", func(t *testing.T, r *rig) action.Action {
		return action.Action{Type: action.Launch, App: "设置"}
	}, func(t *testing.T, r *rig, _ vphone.State, ev []vphone.Event) {
		if fg := r.phone.State().Foreground; fg != vphone.PkgSettings {
			t.Errorf("foreground %s", fg)
		}
	}},
	{"launch by fuzzy name", "", func(t *testing.T, r *rig) action.Action {
		return action.Action{Type: action.Launch, App: "counter"}
	}, func(t *testing.T, r *rig, _ vphone.State, ev []vphone.Event) {
		if fg := r.phone.State().Foreground; fg != vphone.PkgCounter {
			t.Errorf("foreground %s", fg)
		}
	}},
}

func TestDriverActions(t *testing.T) {
	t.Parallel()
	for _, tt := range driverActionCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := startPhone(t)
			if tt.app != "" {
				if err := r.phone.Launch(tt.app); err != nil {
					t.Fatal(err)
				}
			}
			a := tt.act(t, r)
			before, n := r.phone.State(), len(r.phone.Events())
			if err := r.dev.Do(ctx10(t), a); err != nil {
				t.Fatalf("%s: %v", a, err)
			}
			tt.check(t, r, before, r.phone.Events()[n:])
		})
	}
}

func TestDriverRefusals(t *testing.T) {
	t.Parallel()
	r := startPhone(t)
	ctx := ctx10(t)
	for _, a := range []action.Action{{Type: action.RightClick, X: 1, Y: 1}, {Type: action.Hotkey, Keys: []string{"ctrl", "c"}},
		{Type: action.Key, Key: "hyperspace"}} {
		if err := r.dev.Do(ctx, a); !errors.Is(err, device.ErrUnsupported) {
			t.Errorf("%s: %v", a, err)
		}
	}
	if err := r.dev.Do(ctx, action.Action{Type: action.Tap, X: -1}); !errors.Is(err, action.ErrInvalid) {
		t.Errorf("bad tap: %v", err)
	}
	if err := r.dev.Do(ctx, action.Action{Type: action.Launch, App: "淘宝"}); !errors.Is(err, ErrAppNotFound) {
		t.Errorf("launch missing app: %v", err)
	}
	start := time.Now()
	if err := r.dev.Do(ctx, action.Action{Type: action.Wait, Ms: 30}); err != nil || time.Since(start) < 30*time.Millisecond {
		t.Errorf("wait: %v after %v", err, time.Since(start))
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := r.dev.Do(short, action.Action{Type: action.Wait, Ms: 5000}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cancelled wait: %v", err)
	}
}

// echoed exit marker, and the driver works the same.
func TestDriverShellV1(t *testing.T) {
	t.Parallel()
	r := startPhone(t, vphone.WithFeatures())
	if r.dev.v2 {
		t.Fatal("driver chose shell v2 on a phone without it")
	}
	ctx := ctx10(t)
	if info, err := r.dev.Info(ctx); err != nil || info.Screen.W == 0 {
		t.Fatalf("info %+v %v", info, err)
	}
	if err := r.dev.Do(ctx, action.Action{Type: action.Launch, App: "Notes"}); err != nil {
		t.Fatal(err)
	}
	if err := r.dev.Do(ctx, action.Action{Type: action.TypeText, Text: "v1 你好"}); err != nil {
		t.Fatal(err)
	}
	if n := r.phone.State().Note; n != "v1 你好" {
		t.Errorf("note %q", n)
	}
	if _, err := r.dev.UITree(ctx); err != nil {
		t.Fatal(err)
	}
	r.phone.SetInjectDenied(true)
	if err := r.dev.Do(ctx, action.Action{Type: action.Key, Key: "back"}); !errors.Is(err, device.ErrPermission) {
		t.Errorf("inject denied over v1: %v", err)
	}
}

// A slow phone: every call returns when its context ends, not when the
// phone finally answers.
func TestDriverHonoursContextOnSlowPhone(t *testing.T) {
	t.Parallel()
	r := startPhone(t, vphone.WithSize(360, 800))
	r.phone.SetLatency(time.Hour) // a call that waited for the phone would never return
	for name, call := range map[string]func(context.Context) error{
		"screenshot": func(ctx context.Context) error { _, err := r.dev.Screenshot(ctx); return err },
		"tree":       func(ctx context.Context) error { _, err := r.dev.UITree(ctx); return err },
		"tap":        func(ctx context.Context) error { return r.dev.Do(ctx, action.Action{Type: action.Tap, X: 5, Y: 5}) },
		"info":       func(ctx context.Context) error { _, err := r.dev.Info(ctx); return err },
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
		err := returnsBy(t, name, 30*time.Second, func() error { return call(ctx) })
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Forwards and raw device sockets, the way a mirror reaches scrcpy.
func TestForwardAndRawSocket(t *testing.T) {
	t.Parallel()
	r := startPhone(t)
	r.phone.HandleSocket("localabstract:echo_*", func(ctx context.Context, c io.ReadWriteCloser) error {
		defer c.Close()
		_, err := io.Copy(c, c)
		return err
	})
	ctx := ctx10(t)
	st, err := r.srv.Open(ctx, r.serial, "localabstract:echo_1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(st, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("raw socket: %q %v", buf, err)
	}
	st.Close()

	port, err := r.srv.Forward(ctx, r.serial, "tcp:0", "localabstract:echo_2")
	if err != nil || port <= 0 {
		t.Fatalf("forward: %d %v", port, err)
	}
	defer r.srv.KillForward(ctx, r.serial, "tcp:"+strconv.Itoa(port))
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte("pong")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "pong" {
		t.Fatalf("forward: %q %v", buf, err)
	}
}

// A Type that asks for it (AutoGLM's, as Open-AutoGLM's client does:
// phone_agent/adb/input.py clear_text then type) replaces what the field
// held, with ADB Keyboard and, for plain text, without it.
func TestDriverTypeClearsFirst(t *testing.T) {
	t.Parallel()
	for _, noKeyboard := range []bool{false, true} {
		var opts []vphone.Option
		if noKeyboard {
			opts = append(opts, vphone.WithoutADBKeyboard())
		}
		r := startPhone(t, opts...)
		ctx := ctx10(t)
		if err := r.phone.Launch(vphone.PkgNotes); err != nil {
			t.Fatal(err)
		}
		if err := r.dev.Do(ctx, action.Action{Type: action.TypeText, Text: "old text"}); err != nil {
			t.Fatal(err)
		}
		if err := r.dev.Do(ctx, action.Action{Type: action.TypeText, Text: "new", Clear: true}); err != nil {
			t.Fatal(err)
		}
		if n := r.phone.State().Note; n != "new" {
			t.Errorf("without ADB Keyboard %v: note %q, want %q", noKeyboard, n, "new")
		}
	}
}
