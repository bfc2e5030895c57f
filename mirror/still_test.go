package mirror

import (
	"image/color"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// Stills published raw are encoded only for a viewer: none while nobody
// watches; a viewer that joins gets the newest picture, scaled and encoded
// then, once for every viewer of that frame.
func TestStillsAreEncodedOnlyForAViewer(t *testing.T) {
	hub, s := startServer(t)
	hub.MaxSide = 400
	red, green, blue := color.RGBA{220, 20, 20, 255}, color.RGBA{20, 220, 20, 255}, color.RGBA{20, 20, 220, 255}
	for _, c := range []color.RGBA{red, green, blue} {
		hub.Publish("p", solid(360, 800, c), time.Now())
	}
	if n := hub.Encodes(); n != 0 {
		t.Fatalf("%d stills encoded while nobody watched", n)
	}
	if f, _ := hub.Latest("p"); f == nil || f.Width != 360 || f.Height != 800 {
		t.Fatalf("the newest still is %+v, want one of the device's 360x800", f)
	}

	first := dial(t, s.StreamURL("p"))
	wantPicture(t, first, blue)
	if n := hub.Encodes(); n != 1 {
		t.Fatalf("%d encodes for one viewer joining, want 1 (the newest picture)", n)
	}
	second := dial(t, s.StreamURL("p"))
	wantPicture(t, second, blue)
	if n := hub.Encodes(); n != 1 {
		t.Fatalf("%d encodes once a second viewer joined, want the first one's shared", n)
	}

	hub.Publish("p", solid(360, 800, red), time.Now())
	wantPicture(t, first, red)
	wantPicture(t, second, red)
	if n := hub.Encodes(); n != 2 {
		t.Fatalf("%d encodes after a newer picture, want 2", n)
	}
}

// wantPicture reads the next message: a 360x800 screen, sent scaled to the
// hub's MaxSide (180x400), of colour want.
func wantPicture(t *testing.T, c *websocket.Conn, want color.RGBA) {
	t.Helper()
	w, h, img := read(t, c)
	if w != 360 || h != 800 {
		t.Fatalf("header size %dx%d, want the device's 360x800", w, h)
	}
	if b := img.Bounds(); b.Dx() != 180 || b.Dy() != 400 {
		t.Fatalf("picture %v, want 180x400", b)
	}
	r, g, bl, _ := img.At(90, 200).RGBA()
	near := func(a uint32, b uint8) bool { return int(a>>8)-int(b) < 30 && int(b)-int(a>>8) < 30 }
	if !near(r, want.R) || !near(g, want.G) || !near(bl, want.B) {
		t.Fatalf("picture of colour %d,%d,%d, want %v", r>>8, g>>8, bl>>8, want)
	}
}
