package mirror

import (
	"context"
	"image"
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

// A viewer says the size it shows the picture at (the stream URL's w and
// h, and again over the socket when its box changes): the still is scaled
// and encoded to fit that box, never larger than the device's screen or
// the hub's MaxSide. A tile of 270x600 is not sent 1080x2400.
func TestAViewerGetsThePictureAtTheSizeItShows(t *testing.T) {
	hub, s := startServer(t)
	hub.Publish("p", solid(1080, 2400, color.RGBA{20, 220, 20, 255}), time.Now())
	cases := []struct {
		name  string
		query string
		want  image.Point
	}{
		{"a tile", "&w=270&h=600", image.Pt(270, 600)},
		{"a wide box fits by height", "&w=1000&h=400", image.Pt(180, 400)},
		{"a box larger than the hub's bound", "&w=4000&h=4000", image.Pt(576, 1280)},
		{"no size said", "", image.Pt(576, 1280)},
		{"a nonsense size", "&w=-3&h=x", image.Pt(576, 1280)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, s.StreamURL("p")+tc.query)
			w, h, img := read(t, c)
			if w != 1080 || h != 2400 {
				t.Fatalf("header %dx%d, want the device's 1080x2400", w, h)
			}
			if got := img.Bounds().Size(); got != tc.want {
				t.Fatalf("picture %v, want %v", got, tc.want)
			}
		})
	}

	// The box changes: the viewer says so and is sent the newest picture
	// again, at its new size, without waiting for the screen to change.
	c := dial(t, s.StreamURL("p")+"&w=270&h=600")
	if _, _, img := read(t, c); img.Bounds().Size() != image.Pt(270, 600) {
		t.Fatalf("picture %v, want 270x600", img.Bounds().Size())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"w":540,"h":1200}`)); err != nil {
		t.Fatal(err)
	}
	if _, _, img := read(t, c); img.Bounds().Size() != image.Pt(540, 1200) {
		t.Fatalf("after the resize, picture %v, want 540x1200", img.Bounds().Size())
	}
	// Viewers of one size share one encode of a frame.
	before := hub.Encodes()
	for range 2 {
		c := dial(t, s.StreamURL("p")+"&w=540&h=1200")
		read(t, c)
	}
	if n := hub.Encodes() - before; n != 0 {
		t.Fatalf("%d more encodes for two viewers of a size already encoded, want 0", n)
	}
}

// A phone's video is made as large as its largest viewer shows it, in
// steps of 160 px, within the hub's MaxSide: tiles alone take a small
// stream; a viewer with no size said, or one that keeps the video (a run's
// recording), takes the full size; none watching, none is wanted.
func TestAPhonesVideoIsAsLargeAsItsLargestViewer(t *testing.T) {
	hub, s := startServer(t)
	screen := image.Pt(1080, 2400)
	side := func(want int) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; {
			changed := hub.Changed("p")
			if got := hub.VideoSide("p", screen); got == want {
				return
			} else if time.Now().After(deadline) {
				t.Fatalf("video side %d, want %d", got, want)
			}
			select {
			case <-changed:
			case <-time.After(time.Until(deadline)):
			}
		}
	}
	side(0)
	tile := dial(t, s.StreamURL("p")+"&w=270&h=600")
	side(640)
	big := dial(t, s.StreamURL("p")+"&w=540&h=1200")
	side(1280)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := big.Write(ctx, websocket.MessageText, []byte(`{"w":400,"h":900}`)); err != nil {
		t.Fatal(err)
	}
	side(960) // 900 rounded up
	big.Close(websocket.StatusNormalClosure, "")
	side(640)
	fctx, stop := context.WithCancel(context.Background())
	followed := make(chan struct{})
	go func() { defer close(followed); hub.Follow(fctx, "p", func(Frame) {}) }()
	side(1280)
	stop()
	<-followed
	side(640)
	tile.Close(websocket.StatusNormalClosure, "")
	side(0)
	unsized := dial(t, s.StreamURL("p"))
	side(1280)
	_ = unsized
}

// halve is the plain average of each 2x2 block, rounded half up, channel
// by channel (its two-lanes-a-word arithmetic changes no byte).
func TestHalveAveragesEachBlock(t *testing.T) {
	src := image.NewRGBA(image.Rect(3, 5, 3+257, 5+131)) // odd sides, not at the origin
	for i := range src.Pix {
		src.Pix[i] = uint8(i*7919 + i/3)
	}
	got := halve(src)
	if got.Bounds().Size() != image.Pt(128, 65) {
		t.Fatalf("size %v", got.Bounds().Size())
	}
	for y := range 65 {
		for x := range 128 {
			for c := range 4 {
				at := func(dx, dy int) int { return int(src.Pix[(2*y+dy)*src.Stride+(2*x+dx)*4+c]) }
				want := uint8((at(0, 0) + at(1, 0) + at(0, 1) + at(1, 1) + 2) >> 2)
				if g := got.Pix[y*got.Stride+x*4+c]; g != want {
					t.Fatalf("pixel %d,%d channel %d: %d, want %d", x, y, c, g, want)
				}
			}
		}
	}
}
