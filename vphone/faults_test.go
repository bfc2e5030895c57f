package vphone_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"image/png"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

func TestFailureSwitches(t *testing.T) {
	t.Parallel()
	p, env := vphonetest.Start(t)

	t.Run("latency", func(t *testing.T) {
		p.SetLatency(300 * time.Millisecond)
		defer p.SetLatency(0)
		start := time.Now()
		env.Shell(t, "true")
		if d := time.Since(start); d < 300*time.Millisecond {
			t.Fatalf("command took %v with 300 ms latency", d)
		}
	})
	t.Run("idle state", func(t *testing.T) {
		p.SetIdleError(true)
		defer p.SetIdleError(false)
		out, errOut, _ := env.Run(t, "shell", "uiautomator dump /dev/tty")
		if out != "" || errOut != "ERROR: could not get idle state.\n" {
			t.Fatalf("stdout %q stderr %q", out, errOut)
		}
	})
	t.Run("inject events", func(t *testing.T) {
		p.SetInjectDenied(true)
		defer p.SetInjectDenied(false)
		if err := p.Launch(vphone.PkgCounter); err != nil {
			t.Fatal(err)
		}
		x, y := center(t, p, "plus")
		_, errOut, code := env.Run(t, "shell", fmt.Sprintf("input tap %d %d", x, y))
		if code != 255 || !strings.HasPrefix(errOut, "Exception occurred while executing 'tap':\njava.lang.SecurityException: Injecting to another application requires INJECT_EVENTS permission\n") {
			t.Fatalf("exit %d stderr %q", code, errOut)
		}
		if p.State().Counter != 0 {
			t.Fatal("a refused tap changed the counter")
		}
	})
	t.Run("secure", func(t *testing.T) {
		p.SetSecure(true)
		defer p.SetSecure(false)
		out, _, _ := env.Run(t, "exec-out", "screencap", "-p")
		img, err := png.Decode(strings.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y += 37 {
			for x := b.Min.X; x < b.Max.X; x += 29 {
				if r, g, bl, _ := img.At(x, y).RGBA(); r|g|bl != 0 {
					t.Fatalf("pixel %d,%d not black", x, y)
				}
			}
		}
	})
}

func TestDropMidScreencap(t *testing.T) {
	t.Parallel()
	p, env := vphonetest.Start(t)
	full, err := p.ScreenshotPNG()
	if err != nil {
		t.Fatal(err)
	}
	p.SetDropMidScreencap(true)
	out, _, _ := env.Run(t, "exec-out", "screencap", "-p")
	if len(out) >= len(full) {
		t.Fatalf("got %d of %d bytes although the connection dropped", len(out), len(full))
	}
	if _, err := png.Decode(strings.NewReader(out)); err == nil {
		t.Fatal("a cut PNG decoded")
	}
}

func TestOffline(t *testing.T) {
	t.Parallel()
	p, env := vphonetest.Start(t)
	p.SetOffline(true)
	waitState(t, env, func(s string) bool { return s != "device" }, 10*time.Second)
	p.SetOffline(false)
	// The adb server reconnects to a TCP phone by itself.
	waitState(t, env, func(s string) bool { return s == "device" }, 30*time.Second)
	env.Shell(t, "true")
}

func waitState(t *testing.T, env vphonetest.Env, ok func(string) bool, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		out, errOut, _ := env.Run(t, "get-state")
		state := strings.TrimSpace(out + errOut)
		if ok(state) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("state still %q after %v", state, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestSyncPushPull(t *testing.T) {
	t.Parallel()
	_, env := vphonetest.Start(t)
	dir := t.TempDir()
	data := bytes.Repeat([]byte("tandem-sync-"), 20000) // 240 KB: several DATA chunks
	src := filepath.Join(dir, "in.bin")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := env.Run(t, "push", src, "/sdcard/Download/in.bin"); code != 0 {
		t.Fatalf("push: %s %s", out, errOut)
	}
	if got := env.Shell(t, "ls /sdcard/Download"); got != "in.bin\n" {
		t.Fatalf("ls: %q", got)
	}
	dst := filepath.Join(dir, "out.bin")
	if out, errOut, code := env.Run(t, "pull", "/sdcard/Download/in.bin", dst); code != 0 {
		t.Fatalf("pull: %s %s", out, errOut)
	}
	got, err := os.ReadFile(dst)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("pulled %d bytes (%v), want %d identical", len(got), err, len(data))
	}
	// A dump written on the phone comes back intact.
	env.Shell(t, "uiautomator dump")
	if _, _, code := env.Run(t, "pull", "/sdcard/window_dump.xml", filepath.Join(dir, "d.xml")); code != 0 {
		t.Fatal("pull of the dump failed")
	}
	if out, errOut, code := env.Run(t, "pull", "/sdcard/none", filepath.Join(dir, "none")); code == 0 || !strings.Contains(out+errOut, "does not exist") {
		t.Fatalf("pull of a missing file: exit %d %q %q", code, out, errOut)
	}
}

func TestForward(t *testing.T) {
	t.Parallel()
	p, env := vphonetest.Start(t)
	p.HandleSocket("localabstract:scrcpy_*", func(ctx context.Context, conn io.ReadWriteCloser) error {
		buf := make([]byte, 64)
		n, err := conn.Read(buf)
		if err != nil {
			return err
		}
		_, err = conn.Write(append([]byte("pong:"), buf[:n]...))
		return err
	})
	out, errOut, code := env.Run(t, "forward", "tcp:0", "localabstract:scrcpy_0000abcd")
	if code != 0 {
		t.Fatalf("forward: %s %s", out, errOut)
	}
	port := strings.TrimSpace(out)
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+port, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	conn.Write([]byte("ping"))
	got, _ := io.ReadAll(conn)
	if string(got) != "pong:ping" {
		t.Fatalf("forward answered %q", got)
	}
	// Nothing listens on tcp:9: the server closes the connection at once.
	out, _, _ = env.Run(t, "forward", "tcp:0", "tcp:9")
	c2, err := net.DialTimeout("tcp", "127.0.0.1:"+strings.TrimSpace(out), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	c2.SetDeadline(time.Now().Add(5 * time.Second))
	if n, err := c2.Read(make([]byte, 1)); err == nil {
		t.Fatalf("read %d bytes from a refused forward", n)
	}
}

func TestAnimationSettles(t *testing.T) {
	t.Parallel()
	// The animation runs on the phone's clock, which the test moves: a
	// busy machine cannot make it skip past the frames it checks.
	clock := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	p, err := vphone.New(vphone.WithAnimation(200*time.Millisecond), vphone.WithClock(clock.now))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Launch(vphone.PkgAnim); err != nil {
		t.Fatal(err)
	}
	r, _ := p.Bounds("start")
	p.Tap(r.Min.X+5, r.Min.Y+5)
	if !p.State().Animating {
		t.Fatal("not animating after a tap")
	}
	a := clonePix(p.Screenshot())
	clock.add(40 * time.Millisecond) // two and a half vsyncs
	b := clonePix(p.Screenshot())
	if bytes.Equal(a, b) {
		t.Fatal("animation frames are identical")
	}
	clock.add(150 * time.Millisecond)
	if !p.State().Animating {
		t.Fatal("settled 190 ms into a 200 ms animation")
	}
	clock.add(20 * time.Millisecond)
	if p.State().Animating {
		t.Fatal("still animating after its 200 ms")
	}
	c, d := clonePix(p.Screenshot()), clonePix(p.Screenshot())
	if !bytes.Equal(c, d) {
		t.Fatal("settled screen still changes")
	}
}

func clonePix(img *image.RGBA) []byte { return append([]byte(nil), img.Pix...) }

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestGameHasEmptyTree(t *testing.T) {
	t.Parallel()
	p, err := vphone.New()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Launch(vphone.PkgGame); err != nil {
		t.Fatal(err)
	}
	d := string(p.UIDump())
	if strings.Count(d, "<node") != 1 || !strings.Contains(d, `class="android.widget.FrameLayout" package="com.tandem.game"`) {
		t.Fatalf("game dump: %s", d)
	}
	p.Tap(540, 1200) // the first target's centre
	if p.State().GameScore != 1 {
		t.Fatalf("score %d", p.State().GameScore)
	}
	p.Tap(540, 1200) // the target moved away
	if p.State().GameScore != 1 {
		t.Fatalf("a miss scored: %d", p.State().GameScore)
	}
	p.Key(4)
	if err := p.Launch(vphone.PkgNotes); err != nil {
		t.Fatal(err)
	}
	p.TypeText("备忘")
	p.Key(67)
	if p.State().Note != "备" || p.State().Foreground != vphone.PkgNotes {
		t.Fatalf("state %+v", p.State())
	}
	if err := p.Launch(vphone.PkgList); err != nil {
		t.Fatal(err)
	}
	p.Swipe(540, 2000, 540, 1500)
	if p.State().ListScroll != 500 {
		t.Fatalf("scroll %d", p.State().ListScroll)
	}
}

// A phone that lies about its screen says so everywhere a driver reads
// it, with well-formed headers and the real pixels behind them.
func TestClaimedScreen(t *testing.T) {
	t.Parallel()
	p, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	real, err := p.ScreenshotPNG()
	if err != nil {
		t.Fatal(err)
	}
	p.SetClaimedScreen(100000, 100000)
	if got := env.Shell(t, "wm size"); got != "Physical size: 100000x100000\n" {
		t.Fatalf("wm size: %q", got)
	}
	out, _, _ := env.Run(t, "exec-out", "screencap", "-p")
	cfg, err := png.DecodeConfig(strings.NewReader(out))
	if err != nil || cfg.Width != 100000 || cfg.Height != 100000 {
		t.Fatalf("png header %dx%d, %v", cfg.Width, cfg.Height, err)
	}
	if out[33:] != string(real[33:]) {
		t.Fatal("the PNG's data after its header changed")
	}
	raw, _, _ := env.Run(t, "exec-out", "screencap")
	if w, h := binary.LittleEndian.Uint32([]byte(raw)), binary.LittleEndian.Uint32([]byte(raw[4:])); w != 100000 || h != 100000 {
		t.Fatalf("raw header %dx%d", w, h)
	}
	if len(raw) != 16+360*800*4 {
		t.Fatalf("raw frame of %d bytes: the real pixels should follow", len(raw))
	}
	p.SetClaimedScreen(0, 0)
	if got := env.Shell(t, "wm size"); got != "Physical size: 360x800\n" {
		t.Fatalf("after the lie: %q", got)
	}
}
