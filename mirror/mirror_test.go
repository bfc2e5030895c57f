package mirror

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func solid(w, h int, c color.Color) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, c)
		}
	}
	return img
}

func startServer(t *testing.T) (*Hub, *Server) {
	t.Helper()
	hub := NewHub()
	s, err := Start(hub)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return hub, s
}

func dial(t *testing.T, url string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(32 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return c
}

func read(t *testing.T, c *websocket.Conn) (int, int, image.Image) {
	t.Helper()
	typ, msg := readMsg(t, c)
	if typ != websocket.MessageBinary {
		t.Fatalf("type %v", typ)
	}
	f, err := ParseMessage(msg)
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != KindJPEG {
		t.Fatalf("kind %d", f.Kind)
	}
	w, h := f.Width, f.Height
	img, err := jpeg.Decode(bytes.NewReader(f.Data))
	if err != nil {
		t.Fatal(err)
	}
	return w, h, img
}

func TestBindsLoopbackOnly(t *testing.T) {
	_, s := startServer(t)
	if !strings.HasPrefix(s.URL(), "ws://127.0.0.1:") {
		t.Fatalf("url %s", s.URL())
	}
}

func TestRefusesWithoutTheToken(t *testing.T) {
	_, s := startServer(t)
	base := strings.Replace(s.URL(), "ws://", "http://", 1) + "/stream/" + encodeID("dev")
	for _, q := range []string{"", "?token=", "?token=wrong", "?token=" + s.Token()[:10]} {
		resp, err := http.Get(base + q)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%q: status %d", q, resp.StatusCode)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, _, err := websocket.Dial(ctx, s.URL()+"/stream/"+encodeID("dev"), nil); err == nil {
		t.Fatal("websocket without token accepted")
	}
}

func TestStreamsFramesScaledWithTheDeviceSize(t *testing.T) {
	hub, s := startServer(t)
	id := "127.0.0.1:5555"
	c := dial(t, s.StreamURL(id))
	hub.Publish(id, solid(1080, 2400, color.RGBA{200, 30, 30, 255}), time.Now())
	w, h, img := read(t, c)
	if w != 1080 || h != 2400 {
		t.Fatalf("header size %dx%d", w, h)
	}
	if b := img.Bounds(); b.Dy() != 1280 || b.Dx() != 576 {
		t.Fatalf("frame %v, want 576x1280", b)
	}
	r, _, _, _ := img.At(10, 10).RGBA()
	if r>>8 < 180 {
		t.Fatalf("colour lost: r=%d", r>>8)
	}
}

func TestSlowClientGetsTheNewestFrameNotAQueue(t *testing.T) {
	hub, s := startServer(t)
	c := dial(t, s.StreamURL("d"))
	for i := 0; i < 50; i++ {
		hub.PublishEncoded("d", Frame{Width: i + 1, Height: 1, Data: []byte{byte(i)}})
	}
	hub.PublishEncoded("d", Frame{Width: 999, Height: 1, Data: []byte{1}})
	// Whatever was in flight first, the newest frame arrives within a few
	// messages, never after 50 stale ones.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for n := 1; ; n++ {
		_, msg, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := ParseMessage(msg)
		if f.Width == 999 {
			if n > 3 {
				t.Fatalf("newest frame came as message %d", n)
			}
			return
		}
	}
}

func TestFramesOfOtherDevicesAreNotSent(t *testing.T) {
	hub, s := startServer(t)
	c := dial(t, s.StreamURL("a"))
	hub.PublishEncoded("b", Frame{Width: 7, Height: 7, Data: []byte{1}})
	hub.PublishEncoded("a", Frame{Width: 3, Height: 3, Data: []byte{1}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, msg, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := ParseMessage(msg); f.Width != 3 {
		t.Fatalf("got frame of width %d", f.Width)
	}
}

func TestParseMessageRejectsShortInput(t *testing.T) {
	if _, err := ParseMessage([]byte{1, 2, 3}); err == nil {
		t.Fatal("no error")
	}
	if _, err := ParseMessage(make([]byte, HeaderLen)); err == nil {
		t.Fatal("kind 0 accepted")
	}
}

// readMsg reads one message of any type.
func readMsg(t *testing.T, c *websocket.Conn) (websocket.MessageType, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	typ, msg, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return typ, msg
}

func TestVideoJoinersStartAtTheKeyFrameAndFollowInOrder(t *testing.T) {
	hub, s := startServer(t)
	pk := func(config, key bool, b byte) Frame {
		return Frame{Config: config, Key: key, Width: 1080, Height: 2400, At: time.Now(), Data: []byte{0, 0, 0, 1, b}}
	}
	hub.SetPath("p", Path{Path: "scrcpy", Reason: "scrcpy-server 3.3.4 found"})
	hub.PublishVideo("p", pk(true, false, 0x67))
	hub.PublishVideo("p", pk(false, true, 0x65))
	hub.PublishVideo("p", pk(false, false, 0x41))
	hub.PublishEncoded("p", Frame{Width: 5, Height: 5, Data: []byte{9}}) // a still while video flows: dropped
	hub.PublishVideo("p", pk(false, true, 0x65))                         // a new group
	hub.PublishVideo("p", pk(false, false, 0x42))
	c := dial(t, s.StreamURL("p"))
	typ, msg := readMsg(t, c)
	if typ != websocket.MessageText || !strings.Contains(string(msg), `"path":"scrcpy"`) {
		t.Fatalf("first message %v %s", typ, msg)
	}
	var got []string
	for i := 0; i < 3; i++ {
		_, msg := readMsg(t, c)
		f, err := ParseMessage(msg)
		if err != nil {
			t.Fatal(err)
		}
		if f.Kind != KindH264 || f.Width != 1080 {
			t.Fatalf("frame %+v", f)
		}
		got = append(got, fmt.Sprintf("%v/%v/%x/%v", f.Config, f.Key, f.Data[4], f.Behind))
	}
	// The group is sent at once, each packet but the last marked behind: a
	// joiner decodes the older pictures without showing them, so the first
	// picture it shows is the newest (issue 28's tile that showed the launcher).
	if want := []string{"true/false/67/true", "false/true/65/true", "false/false/42/false"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("joined with %v, want %v", got, want)
	}
	// Following live: each new packet arrives in order, to be shown.
	hub.PublishVideo("p", pk(false, false, 0x43))
	_, msg = readMsg(t, c)
	if f, _ := ParseMessage(msg); f.Data[4] != 0x43 || f.Config || f.Key || f.Behind {
		t.Fatalf("live packet %+v", f)
	}
	hub.SetPath("p", Path{Path: "screenrecord", Reason: "no scrcpy-server"})
	if typ, msg := readMsg(t, c); typ != websocket.MessageText || !strings.Contains(string(msg), "screenrecord") {
		t.Fatalf("path change %v %s", typ, msg)
	}
	hub.EndVideo("p")
	hub.PublishEncoded("p", Frame{Width: 6, Height: 6, Data: []byte{9}})
	// The ended path may be told first (when the writer wakes between the
	// end and the still): the still is the next picture.
	for typ, m := readMsg(t, c); ; typ, m = readMsg(t, c) {
		if typ == websocket.MessageBinary {
			msg = m
			break
		}
	}
	if f, _ := ParseMessage(msg); f.Kind != KindJPEG || f.Width != 6 {
		t.Fatalf("still after the video ended: %+v", f)
	}
}

// A viewer that joins (or reconnects) after the stream ended or restarted,
// before the new stream's first key frame (screenrecord writes none until
// the screen changes), is given the last group: it shows the last picture
// instead of nothing (issue 30: the blank "Live" mirror).
func TestJoinersGetTheLastPictureAcrossAStreamRestart(t *testing.T) {
	hub, s := startServer(t)
	pk := func(config, key bool, b byte) Frame {
		return Frame{Config: config, Key: key, Width: 1080, Height: 2400, At: time.Now(), Data: []byte{0, 0, 0, 1, b}}
	}
	hub.SetPath("p", Path{Path: "screenrecord"})
	hub.PublishVideo("p", pk(true, false, 0x67))
	hub.PublishVideo("p", pk(false, true, 0x65))
	hub.PublishVideo("p", pk(false, false, 0x41))
	joined := func(n int) string {
		c := dial(t, s.StreamURL("p"))
		if typ, _ := readMsg(t, c); typ != websocket.MessageText {
			t.Fatalf("first message %v, want the path", typ)
		}
		var got []string
		for i := 0; i < n; i++ {
			_, msg := readMsg(t, c)
			f, err := ParseMessage(msg)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("%v/%v/%x", f.Config, f.Key, f.Data[4]))
		}
		c.Close(websocket.StatusNormalClosure, "")
		return strings.Join(got, " ")
	}
	hub.EndVideo("p") // the stream ended; nothing new yet
	if got, want := joined(3), "true/false/67 false/true/65 false/false/41"; got != want {
		t.Fatalf("joined after the end with %q, want the last group %q", got, want)
	}
	hub.PublishVideo("p", pk(true, false, 0x68)) // a new recording: config, no key frame yet
	if got, want := joined(4), "true/false/67 false/true/65 false/false/41 true/false/68"; got != want {
		t.Fatalf("joined the new stream with %q, want the last group then its config %q", got, want)
	}
	hub.PublishVideo("p", pk(false, true, 0x66)) // its first key frame: the old group is no longer needed
	if got, want := joined(2), "true/false/68 false/true/66"; got != want {
		t.Fatalf("joined with %q, want %q", got, want)
	}
}

// A viewer is told when the stream ended (ended: true on its path) so it
// can say the picture is the last one rather than live, until a fresh
// frame comes, whatever path feeds the mirror by then (issue 30).
func TestViewersAreToldTheStreamEnded(t *testing.T) {
	hub, s := startServer(t)
	hub.SetPath("p", Path{Path: "screenrecord", Code: "screenrecord_no_jar"})
	hub.PublishVideo("p", Frame{Config: true, Width: 8, Height: 8, Data: []byte{0, 0, 0, 1, 0x67}})
	hub.PublishVideo("p", Frame{Key: true, Width: 8, Height: 8, Data: []byte{0, 0, 0, 1, 0x65}})
	c := dial(t, s.StreamURL("p"))
	pathMsg := func() Path {
		t.Helper()
		for {
			typ, msg := readMsg(t, c)
			if typ != websocket.MessageText {
				continue // the group
			}
			var p Path
			if err := json.Unmarshal(msg, &p); err != nil {
				t.Fatal(err)
			}
			return p
		}
	}
	if p := pathMsg(); p.Ended {
		t.Fatalf("the first path %+v says ended", p)
	}
	hub.EndVideo("p")
	if p := pathMsg(); !p.Ended || p.Path != "screenrecord" {
		t.Fatalf("after the stream ended the path is %+v, want screenrecord, ended", p)
	}
	hub.SetPath("p", Path{Path: "screencap", Code: "screencap"}) // polling, nothing fresh yet
	if p := pathMsg(); !p.Ended || p.Path != "screencap" {
		t.Fatalf("the fallback's path before any picture is %+v, want screencap, ended", p)
	}
	hub.PublishEncoded("p", Frame{Width: 8, Height: 8, Data: []byte{9}})
	if p := pathMsg(); p.Ended {
		t.Fatalf("after a fresh picture the path %+v still says ended", p)
	}
}

// Motion tells when the device's stream last brought a picture and
// whether a stream feeds it (the engine judges a settled screen by it):
// codec configs and stills are no pictures of a change; the stream's end
// says it is no longer live; each picture wakes a waiter.
func TestHubMotion(t *testing.T) {
	h := NewHub()
	if last, _, live, _ := h.Motion("p"); live || !last.IsZero() {
		t.Fatalf("no stream yet: last %v live %v", last, live)
	}
	h.PublishEncoded("p", Frame{Width: 1, Height: 1, Data: []byte{1}})
	if last, _, live, _ := h.Motion("p"); live || !last.IsZero() {
		t.Fatalf("a still: last %v live %v", last, live)
	}
	h.PublishVideo("p", Frame{Config: true, Data: []byte{0, 0, 0, 1, 0x67}})
	if last, _, live, _ := h.Motion("p"); !live || !last.IsZero() {
		t.Fatalf("a codec config: last %v live %v", last, live)
	}
	before := time.Now()
	_, _, _, next := h.Motion("p")
	h.PublishVideo("p", Frame{Key: true, Data: []byte{0, 0, 0, 1, 0x65}})
	select {
	case <-next:
	default:
		t.Fatal("a picture did not wake the waiter")
	}
	key, echo, live, _ := h.Motion("p")
	if !live || key.Before(before) || !echo.IsZero() {
		t.Fatalf("a key frame of screenrecord: last %v live %v, a copy owed until %v", key, live, echo)
	}
	h.PublishVideo("p", Frame{Data: []byte{0, 0, 0, 1, 0x41}})
	if last, _, _, _ := h.Motion("p"); last.Before(key) {
		t.Fatalf("a picture after the key frame: last %v before %v", last, key)
	}
	h.EndVideo("p")
	if _, _, live, _ := h.Motion("p"); live {
		t.Fatal("the stream ended and is still live")
	}
	if _, _, live, _ := h.Motion("q"); live {
		t.Fatal("another device's stream is live")
	}
}

// scrcpy-server's encoder sends a copy of its last picture once, 100 ms
// after it: the hub says a copy is owed, and a picture in that window is
// not counted as a change; one outside it, or a second, is.
func TestHubMotionEcho(t *testing.T) {
	h := NewHub()
	h.SetPath("p", Path{Path: "scrcpy"})
	s := func() *slot { h.mu.Lock(); defer h.mu.Unlock(); return h.slot("p") }()
	t0 := time.Now()
	h.mu.Lock()
	s.video = true
	s.picture(t0)
	h.mu.Unlock()
	last, echo, _, _ := h.Motion("p")
	if !last.Equal(t0) || !echo.Equal(t0.Add(echoTo)) {
		t.Fatalf("a change: last %v, copy owed until %v", last.Sub(t0), echo.Sub(t0))
	}
	for _, tc := range []struct {
		after   time.Duration
		counted bool
	}{
		{100 * time.Millisecond, false}, // the copy
		{200 * time.Millisecond, true},  // a change (no copy owed after the copy)
		{216 * time.Millisecond, true},  // the next frame of an animation
		{316 * time.Millisecond, false}, // its copy
		{600 * time.Millisecond, true},
		{900 * time.Millisecond, true}, // no copy came in the window: a change
	} {
		h.mu.Lock()
		before := s.moved
		s.picture(t0.Add(tc.after))
		counted := !s.moved.Equal(before)
		h.mu.Unlock()
		if counted != tc.counted {
			t.Fatalf("a picture %v after the first: counted as a change %v, want %v", tc.after, counted, tc.counted)
		}
	}
}
