package backend

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"tandem/devices"
	"tandem/internal/xvfb"
	"tandem/mirror"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

func needFFmpeg(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatal("ffmpeg is not installed (apt-get install ffmpeg)")
		}
		tb.Skip("ffmpeg is not installed")
	}
}

// mirrorClient is a WebSocket client of the mirror server, as the UI is. A
// reader goroutine queues frames (a read that times out would close the
// connection), stamped with their arrival.
type mirrorClient struct {
	frames chan arrival
}

type arrival struct {
	f  mirror.Frame
	at time.Time
}

func dialMirror(tb testing.TB, url string) *mirrorClient {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		tb.Fatal(err)
	}
	c.SetReadLimit(64 << 20)
	tb.Cleanup(func() { c.CloseNow() })
	m := &mirrorClient{frames: make(chan arrival, 1<<16)}
	go func() {
		defer close(m.frames)
		for {
			typ, msg, err := c.Read(context.Background())
			if err != nil {
				return
			}
			if typ == websocket.MessageText {
				continue
			}
			if f, err := mirror.ParseMessage(msg); err == nil && !f.Config {
				m.frames <- arrival{f, time.Now()}
			}
		}
	}()
	return m
}

// next returns the next frame (not a codec config) and when it arrived.
func (m *mirrorClient) next(tb testing.TB, within time.Duration) (mirror.Frame, time.Time) {
	tb.Helper()
	t := time.NewTimer(within)
	defer t.Stop()
	select {
	case a, ok := <-m.frames:
		if !ok {
			tb.Fatal("the mirror stream ended")
		}
		return a.f, a.at
	case <-t.C:
		tb.Fatalf("no frame within %v", within)
	}
	return mirror.Frame{}, time.Time{}
}

// quiet reports whether no frame arrives within d.
func (m *mirrorClient) quiet(d time.Duration) bool {
	select {
	case <-m.frames:
		return false
	case <-time.After(d):
		return true
	}
}

// drain reads until the stream is quiet for 150 ms (video: the screen is
// still), or, for polling, until one fresh frame passed.
func (m *mirrorClient) drain(tb testing.TB, polling bool) {
	tb.Helper()
	if polling {
		m.next(tb, 10*time.Second)
		return
	}
	for !m.quiet(150 * time.Millisecond) {
	}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// painter changes the root window of the display every period until ctx
// ends: a screen that never stops changing.
func painter(ctx context.Context, tb testing.TB, display string, period time.Duration) {
	tb.Helper()
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		tb.Fatal(err)
	}
	scr := xproto.Setup(c).DefaultScreen(c)
	gc, _ := xproto.NewGcontextId(c)
	xproto.CreateGC(c, gc, xproto.Drawable(scr.Root), xproto.GcForeground, []uint32{0})
	go func() {
		defer c.Close()
		t := time.NewTicker(period)
		defer t.Stop()
		for i := uint32(0); ; i++ {
			xproto.ChangeGC(c, gc, xproto.GcForeground, []uint32{(i*0x10305 + 0x406080) & 0xffffff})
			x := int16(i * 37 % 1000)
			xproto.PolyFillRectangle(c, xproto.Drawable(scr.Root), gc, []xproto.Rectangle{{X: x, Y: 100, Width: 280, Height: 400}})
			xproto.GetInputFocus(c).Reply() // round trip: the drawing is done
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

// desktopMirror watches display 0 of a fresh Xvfb through the feed.
func desktopMirror(tb testing.TB, w, h int) (*mirrorClient, string) {
	m, display, _ := desktopMirrorURL(tb, w, h)
	return m, display
}

// desktopMirrorURL is desktopMirror that also returns the stream's URL.
func desktopMirrorURL(tb testing.TB, w, h int) (*mirrorClient, string, string) {
	tb.Helper()
	url, display := desktopDesk(tb, w, h)
	return dialMirror(tb, url), display, url
}

// desktopDesk watches a w x h display's desk and returns its stream's URL
// and the display's name; no viewer has connected yet.
func desktopDesk(tb testing.TB, w, h int) (string, string) {
	tb.Helper()
	d := xvfb.Start(tb, w, h)
	tb.Setenv("DISPLAY", d.Name)
	reg := NewDevices("127.0.0.1:1", tb.TempDir(), devices.NewDesktop())
	_, srv, f := mirrorDesks(tb, reg)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list, err := reg.List(ctx)
	if err != nil || len(list) == 0 {
		tb.Fatalf("no display listed: %v %v", list, err)
	}
	id := list[0].ID
	if err := f.Watch(ctx, "test", id); err != nil {
		tb.Fatal(err)
	}
	return srv.StreamURL(id), d.Name
}

func TestDesktopMirrorSendsVideoOnlyWhenTheScreenChanges(t *testing.T) {
	needFFmpeg(t)
	m, display := desktopMirror(t, 640, 480)
	f, _ := m.next(t, 10*time.Second)
	if f.Kind != mirror.KindH264 || !f.Key || f.Width != 640 || f.Height != 480 {
		t.Fatalf("first frame %+v", f)
	}
	// A static screen sends nothing more; a change is sent.
	if !m.quiet(300 * time.Millisecond) {
		t.Fatal("a frame of a static screen")
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	painter(ctx, t, display, time.Hour) // draws once now
	if f, _ := m.next(t, 5*time.Second); f.Kind != mirror.KindH264 || f.Key {
		t.Fatalf("the change came as %+v", f)
	}
}

func TestAWindowWithoutADecoderGetsPictures(t *testing.T) {
	needFFmpeg(t)
	m, display, url := desktopMirrorURL(t, 640, 480)
	if f, _ := m.next(t, 10*time.Second); f.Kind != mirror.KindH264 {
		t.Fatalf("first frame %+v", f)
	}
	stills := dialMirror(t, url+"&video=0")
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	painter(ctx, t, display, 20*time.Millisecond)
	for deadline := time.Now().Add(10 * time.Second); ; {
		f, _ := stills.next(t, 10*time.Second)
		if f.Kind == mirror.KindJPEG && f.Width == 640 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no picture for the client without a decoder")
		}
	}
}

// BenchmarkMirrorDesktop: a 1280x720 display that changes every 5 ms,
// mirrored through the feed and the mirror server to a WebSocket client.
// fps counts frames the client receives; latency-ms is capture start to
// arrival at the client (median).
func BenchmarkMirrorDesktop(b *testing.B) {
	needFFmpeg(b)
	m, display := desktopMirror(b, 1280, 720)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	painter(ctx, b, display, 5*time.Millisecond)
	m.next(b, 10*time.Second)
	lat := make([]float64, 0, b.N)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		f, got := m.next(b, 10*time.Second)
		lat = append(lat, float64(got.UnixMilli()-f.At.UnixMilli()))
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "fps")
	b.ReportMetric(median(lat), "latency-ms")
}

// BenchmarkMirrorPhone measures each phone path on the virtual phone
// (1080x2400) through the real adb server, the feed and the mirror server.
// fps: frames the client receives while the Animation app moves (it changes
// every 16 ms); latency-ms: from a tap applied to the phone (a static
// screen before) to the first frame after it at the client (median over
// b.N taps).
func BenchmarkMirrorPhone(b *testing.B) {
	needFFmpeg(b)
	for _, path := range []string{"scrcpy", "screenrecord", "screencap"} {
		b.Run(path, func(b *testing.B) {
			p, env := vphonetest.Start(b, vphone.WithAnimation(1500*time.Millisecond))
			hub, srv, f := mirrorDesks(b, NewDevices("127.0.0.1:"+strconv.Itoa(env.Port), b.TempDir()))
			switch path {
			case "scrcpy":
				jar := filepath.Join(b.TempDir(), "scrcpy-server")
				os.WriteFile(jar, []byte("PK\x03\x04 stand-in jar"), 0o644)
				f.scrcpyJar = jar
			case "screencap":
				f.noScreenrecord = true
			}
			if err := p.Launch(vphone.PkgAnim); err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := f.Watch(ctx, "test", env.Serial); err != nil {
				b.Fatal(err)
			}
			m := dialMirror(b, srv.StreamURL(env.Serial))
			m.next(b, 20*time.Second)
			if got := hub.PathOf(env.Serial).Path; got != path {
				b.Fatalf("path %q (%s), want %s", got, hub.PathOf(env.Serial).Reason, path)
			}
			// fps while the animation runs (1 s window).
			r, _ := p.Bounds("start")
			c := r.Min.Add(r.Max).Div(2)
			p.Tap(c.X, c.Y)
			n, t0 := 0, time.Now()
			for time.Since(t0) < time.Second {
				m.next(b, 10*time.Second)
				n++
			}
			fps := float64(n) / time.Since(t0).Seconds()
			// Latency: taps on the counter once the screen is still.
			if err := p.Launch(vphone.PkgCounter); err != nil {
				b.Fatal(err)
			}
			plus, _ := p.Bounds("plus")
			pc := plus.Min.Add(plus.Max).Div(2)
			lat := make([]float64, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				m.drain(b, path == "screencap")
				b.StartTimer()
				t := time.Now()
				p.Tap(pc.X, pc.Y)
				for {
					f, got := m.next(b, 10*time.Second)
					if !f.At.Before(t.Truncate(time.Millisecond)) || f.Kind == mirror.KindH264 {
						lat = append(lat, float64(got.Sub(t).Microseconds())/1000)
						break
					}
				}
			}
			b.ReportMetric(fps, "fps")
			b.ReportMetric(median(lat), "latency-ms")
		})
	}
}
