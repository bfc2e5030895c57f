package stream_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/devices/adb"
	"tandem/internal/scrcpy"
	"tandem/mirror/stream"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// collector gathers packets and wakes waiters.
type collector struct {
	mu      sync.Mutex
	packets []stream.Packet
	changed chan struct{}
}

func newCollector() *collector { return &collector{changed: make(chan struct{})} }

func (c *collector) emit(p stream.Packet) {
	c.mu.Lock()
	c.packets = append(c.packets, p)
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

func (c *collector) packets0() []stream.Packet {
	ps, _ := c.snapshot()
	return ps
}

func (c *collector) snapshot() ([]stream.Packet, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]stream.Packet(nil), c.packets...), c.changed
}

// waitFor waits until ok(packets) or fails after d.
func (c *collector) waitFor(t testing.TB, d time.Duration, what string, ok func([]stream.Packet) bool) []stream.Packet {
	t.Helper()
	deadline := time.After(d)
	for {
		ps, ch := c.snapshot()
		if ok(ps) {
			return ps
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("%s: not within %v (%d packets)", what, d, len(ps))
		}
	}
}

func frames(ps []stream.Packet) int {
	n := 0
	for _, p := range ps {
		if !p.Config {
			n++
		}
	}
	return n
}

func setup(t testing.TB) (*vphone.Phone, stream.Options) {
	t.Helper()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("ffmpeg is not installed")
		}
		t.Skip("ffmpeg is not installed")
	}
	p, env := vphonetest.Start(t, vphone.WithSize(720, 1600))
	w, h := p.Size()
	return p, stream.Options{Server: adb.Server{Addr: "127.0.0.1:" + itoa(env.Port)}, Serial: env.Serial, Screen: [2]int{w, h}, MaxSide: 800}
}

// openStream opens the best path for o, collecting its packets; the
// stream and its context end with the test.
func openStream(t *testing.T, o stream.Options) (context.Context, stream.Source, string, *collector) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := newCollector()
	src, why, err := stream.Open(ctx, o, c.emit)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return ctx, src, why, c
}

func itoa(i int) string { return strconv.Itoa(i) }

// fakeJar is a file standing for scrcpy-server's jar (the virtual phone
// plays the server; it only checks the jar was pushed).
func fakeJar(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "scrcpy-server")
	if err := os.WriteFile(path, []byte("PK\x03\x04 scrcpy-server test jar"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestScrcpyPathStreamsAndDragsLive(t *testing.T) {
	t.Parallel()
	p, o := setup(t)
	o.ScrcpyJar = fakeJar(t)
	if err := p.Launch(vphone.PkgList); err != nil {
		t.Fatal(err)
	}
	ctx, src, why, c := openStream(t, o)
	if src.Path() != stream.PathScrcpy || !strings.Contains(why, "scrcpy-server 3.3.4") {
		t.Fatalf("path %s (%s)", src.Path(), why)
	}
	ps := c.waitFor(t, 10*time.Second, "config and key frame", func(ps []stream.Packet) bool { return len(ps) >= 2 })
	if !ps[0].Config || !ps[1].Key || ps[1].Width != 360 || ps[1].Height != 800 {
		t.Fatalf("first packets %+v %+v", ps[0].Config, ps[1])
	}
	screenshotsBeside(ctx, t, p, o, c)
	dragIsLive(ctx, t, p, src.(stream.Toucher), c)
	typesUnicodeAndKeys(ctx, t, p, src.(stream.Toucher))
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-src.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("not done after Close")
	}
}

// screenshotsBeside: the agent's lossless screenshots go on beside the
// stream, and a change after one is streamed.
func screenshotsBeside(ctx context.Context, t *testing.T, p *vphone.Phone, o stream.Options, c *collector) {
	before0 := frames(c.packets0())
	shot, err := o.Server.Exec(ctx, o.Serial, "screencap -p", 64<<20)
	if err != nil || !bytes.HasPrefix(shot, []byte("\x89PNG")) {
		t.Fatalf("screencap beside the stream: %v (%d bytes)", err, len(shot))
	}
	r0, _ := p.Bounds("item")
	p.Tap(r0.Min.X+10, r0.Min.Y+10) // select a row: the picture changes
	c.waitFor(t, 5*time.Second, "a frame after the screenshot", func(ps []stream.Packet) bool { return frames(ps) > before0 })
}

// dragIsLive: a drag goes down, moves, up through the control socket, and
// the list follows the finger before the finger lifts.
func dragIsLive(ctx context.Context, t *testing.T, p *vphone.Phone, tc stream.Toucher, c *collector) {
	if err := tc.Touch(ctx, scrcpy.ActionDown, 360, 1200); err != nil {
		t.Fatal(err)
	}
	for y := 1150; y >= 700; y -= 50 {
		if err := tc.Touch(ctx, scrcpy.ActionMove, 360, y); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for p.State().ListScroll == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	mid := p.State().ListScroll
	if mid == 0 {
		t.Fatal("the list did not move while the finger was down")
	}
	before := frames(c.packets0())
	if err := tc.Touch(ctx, scrcpy.ActionUp, 360, 700); err != nil {
		t.Fatal(err)
	}
	c.waitFor(t, 5*time.Second, "frames of the moving list", func(ps []stream.Packet) bool { return frames(ps) > before })
	gesture := func() string {
		var kinds []string
		for _, e := range p.Events() {
			if strings.HasPrefix(e.Kind, "touch_") {
				kinds = append(kinds, strings.TrimPrefix(e.Kind, "touch_"))
			}
		}
		return strings.Join(kinds, ",")
	}
	for deadline := time.Now().Add(5 * time.Second); !strings.HasSuffix(gesture(), "up") && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	got := gesture()
	if !strings.HasPrefix(got, "down,move,") || !strings.HasSuffix(got, ",move,up") || strings.Count(got, "down") != 1 {
		t.Fatalf("gesture %s, want one down, moves, one up", got)
	}
}

// typesUnicodeAndKeys: Unicode goes through the clipboard, keys through
// INJECT_KEYCODE.
func typesUnicodeAndKeys(ctx context.Context, t *testing.T, p *vphone.Phone, tc stream.Toucher) {
	if err := p.Launch(vphone.PkgNotes); err != nil {
		t.Fatal(err)
	}
	r, ok := p.Bounds("note_editor")
	if !ok {
		t.Fatal("no note editor")
	}
	at := r.Min.Add(r.Max).Div(2)
	p.Tap(at.X, at.Y)
	if err := tc.Paste(ctx, "你好 world"); err != nil {
		t.Fatal(err)
	}
	if err := tc.Key(ctx, 67); err != nil { // DEL
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for p.State().Note != "你好 worl" && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := p.State().Note; n != "你好 worl" {
		t.Fatalf("note %q", n)
	}
}

// A jar that hides its release is started as the pinned one; the server's
// refusal names its own release, which the one retry speaks, and the
// cache remembers it for the next start.
func TestScrcpyJarThatHidesItsVersionIsAskedOnce(t *testing.T) {
	t.Parallel()
	p, o := setup(t)
	o.ScrcpyJar = fakeJar(t)
	o.Versions = &stream.JarVersions{}
	p.SetScrcpyVersion("3.1")
	for range 2 {
		src, why, err := stream.Open(context.Background(), o, func(stream.Packet) {})
		if err != nil || src.Path() != stream.PathScrcpy || !strings.Contains(why, "scrcpy-server 3.1 ") {
			t.Fatalf("path %v (%s) %v", src, why, err)
		}
		src.Close()
	}
	if got := p.ScrcpyRefusals(); got != 1 {
		t.Fatalf("%d refusals: the second start should have known the release", got)
	}
	p.SetScrcpyVersion("1.25")
	o.Versions = nil
	_, src, why, _ := openStream(t, o)
	if src.Path() != stream.PathScreenrecord || !strings.Contains(why, "scrcpy-server 1.25 is too old") {
		t.Fatalf("path %s (%s)", src.Path(), why)
	}
	if _, ok := src.(stream.Toucher); ok {
		t.Fatal("screenrecord takes no live input")
	}
}

func TestScreenrecordTakesOverBeforeTheLimitWithoutAGap(t *testing.T) {
	t.Parallel()
	p, o := setup(t)
	o.RecordFor = 700 * time.Millisecond
	if err := p.Launch(vphone.PkgAnim); err != nil {
		t.Fatal(err)
	}
	_, src, why, c := openStream(t, o)
	if src.Path() != stream.PathScreenrecord || !strings.Contains(why, "no scrcpy-server found") {
		t.Fatalf("path %s (%s)", src.Path(), why)
	}
	r, _ := p.Bounds("start")
	tap := r.Min.Add(r.Max).Div(2)
	p.Tap(tap.X, tap.Y) // 1.5 s of animation: frames all along
	rec := src.(*stream.Recording)
	ps := c.waitFor(t, 20*time.Second, "two take-overs", func([]stream.Packet) bool { return rec.Restarts() >= 2 })
	// Every take-over starts with config then a key frame.
	for i, pk := range ps {
		if pk.Config && (i+1 >= len(ps) || !ps[i+1].Key) && i+1 < len(ps) {
			t.Fatalf("config at %d not followed by a key frame", i)
		}
	}
	// No gap: each new recording took over while the old one still ran
	// (its own time limit is 10 s past the restart, so only a switch that
	// waited for the old one to end could be late). Wall-clock gaps are
	// the machine's, not the code's; BenchmarkMirrorPhone measures them.
	if n := rec.Late(); n != 0 {
		t.Fatalf("%d of %d take-overs came after the old recording had ended", n, rec.Restarts())
	}
}

func TestNoVideoPathSaysWhy(t *testing.T) {
	t.Parallel()
	_, o := setup(t)
	o.ScrcpyJar = filepath.Join(t.TempDir(), "missing")
	o.NoScreenrecord = true
	_, why, err := stream.Open(context.Background(), o, func(stream.Packet) {})
	if !errors.Is(err, stream.ErrNoPath) || !strings.Contains(why, "polling screencap") || !strings.Contains(why, "scrcpy-server failed") {
		t.Fatalf("err %v, why %q", err, why)
	}
}

func TestFindJar(t *testing.T) {
	t.Parallel()
	jar := fakeJar(t)
	if got, err := stream.FindJar(jar); err != nil || got != jar {
		t.Fatalf("override: %q %v", got, err)
	}
	if _, err := stream.FindJar(jar + ".nope"); err == nil {
		t.Fatal("a missing override must be an error")
	}
}

// A turned phone restarts the video at the new size (3.x: a new config;
// 4.x: a session packet first), and touches follow it.
func TestScrcpyRestartsTheVideoWhenThePhoneTurns(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"3.3.4", "4.1"} {
		t.Run(v, func(t *testing.T) { testTurn(t, v) })
	}
}

func testTurn(t *testing.T, v string) {
	t.Parallel()
	p, o := setup(t)
	o.ScrcpyJar = jarOf(t, v)
	if err := p.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	ctx, src, _, c := openStream(t, o)
	c.waitFor(t, 10*time.Second, "the portrait video", func(ps []stream.Packet) bool { return len(ps) >= 2 })
	p.SetRotation(1)
	ps := c.waitFor(t, 10*time.Second, "a landscape config and key frame", func(ps []stream.Packet) bool {
		for i, pk := range ps {
			if pk.Config && pk.Width > pk.Height && i+1 < len(ps) && ps[i+1].Key {
				return true
			}
		}
		return false
	})
	last := ps[len(ps)-1]
	if last.Width != 800 || last.Height != 360 {
		t.Fatalf("landscape video %dx%d, want 800x360", last.Width, last.Height)
	}
	// A tap at the +1 button where the turned display shows it.
	r, _ := p.Bounds("plus")
	m := r.Min.Add(r.Max).Div(2)
	w, _ := p.Size()
	x, y := m.Y, w-m.X // ROTATION_90: display (x, y) = (model y, width - model x)
	tc := src.(stream.Toucher)
	for _, a := range []byte{scrcpy.ActionDown, scrcpy.ActionUp} {
		if err := tc.Touch(ctx, a, x, y); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for p.State().Counter != 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if p.State().Counter != 1 {
		t.Fatalf("counter %d after a tap on the turned screen", p.State().Counter)
	}
}
