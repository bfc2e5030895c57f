package mirror

import (
	"bytes"
	"context"
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
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	typ, msg, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if typ != websocket.MessageBinary {
		t.Fatalf("type %v", typ)
	}
	w, h, _, jb, err := ParseMessage(msg)
	if err != nil {
		t.Fatal(err)
	}
	img, err := jpeg.Decode(bytes.NewReader(jb))
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
	if err := hub.Publish(id, solid(1080, 2400, color.RGBA{200, 30, 30, 255}), time.Now()); err != nil {
		t.Fatal(err)
	}
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
		hub.PublishEncoded("d", Frame{Width: i + 1, Height: 1, JPEG: []byte{byte(i)}})
	}
	hub.PublishEncoded("d", Frame{Width: 999, Height: 1, JPEG: []byte{1}})
	// Whatever was in flight first, the newest frame arrives within a few
	// messages, never after 50 stale ones.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for n := 1; ; n++ {
		_, msg, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		w, _, _, _, _ := ParseMessage(msg)
		if w == 999 {
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
	hub.PublishEncoded("b", Frame{Width: 7, Height: 7, JPEG: []byte{1}})
	hub.PublishEncoded("a", Frame{Width: 3, Height: 3, JPEG: []byte{1}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, msg, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if w, _, _, _, _ := ParseMessage(msg); w != 3 {
		t.Fatalf("got frame of width %d", w)
	}
}

func TestParseMessageRejectsShortInput(t *testing.T) {
	if _, _, _, _, err := ParseMessage([]byte{1, 2, 3}); err == nil {
		t.Fatal("no error")
	}
}
