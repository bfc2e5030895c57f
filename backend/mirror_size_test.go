package backend

import (
	"context"
	"image"
	"strconv"
	"testing"
	"time"

	"github.com/coder/websocket"

	"tandem/mirror"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// A phone's live video is made at the size its viewers show it (issue 48:
// a tile is not sent a phone's full screen): a tile of 180x400 watching a
// 720x1600 phone gets a 480 px high stream (its 400 px rounded up to a
// step of 160), and when a larger viewer's box comes, the stream is made
// again at that size (1200 → 1280 px high).
func TestAPhonesVideoIsMadeAtItsViewersSize(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, _, c := aTileWatching(t)
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"w":540,"h":1200}`)); err != nil {
		t.Fatal(err)
	}
	for {
		got := nextPictureSize(ctx, t, c)
		if got.Y == 1280 {
			break
		}
		if got.Y != 480 {
			t.Fatalf("after the box grew to 540x1200, a %v stream, want one 1280 high", got)
		}
	}
}

// A run's recording wants the video at its full size: when it begins on a
// phone whose video a tile made small, the video is made again at the full
// size and the recording starts with that one, so all its pictures are of
// one size (a player seeks in it).
func TestARecordingStartsWithTheVideoAtItsFullSize(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	hub, serial, _ := aTileWatching(t)
	fctx, stop := context.WithCancel(ctx)
	defer stop()
	configs := make(chan image.Point, 16)
	go hub.Follow(fctx, serial, func(fr mirror.Frame) {
		if sz, ok := spsSize(fr.Data); ok && fr.Config {
			select {
			case configs <- sz:
			default:
			}
		}
	})
	select {
	case sz := <-configs:
		if sz.Y != 1280 {
			t.Fatalf("the recording began with a %v video, want one 1280 high", sz)
		}
	case <-ctx.Done():
		t.Fatal("the recording got no video")
	}
}

// This computer's screen too: its video is made at its viewers' size.
func TestDesktopVideoIsMadeAtItsViewersSize(t *testing.T) {
	needFFmpeg(t)
	url, _ := desktopDesk(t, 1280, 720)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sizes := func(c *websocket.Conn, want image.Point) {
		t.Helper()
		for got := nextPictureSize(ctx, t, c); got != want; got = nextPictureSize(ctx, t, c) {
			t.Logf("a %v stream first (the viewer's size came after)", got)
		}
	}
	small, _, err := websocket.Dial(ctx, url+"&w=320&h=180", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer small.CloseNow()
	small.SetReadLimit(64 << 20)
	sizes(small, image.Pt(320, 180))
	large, _, err := websocket.Dial(ctx, url+"&w=640&h=400", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer large.CloseNow()
	large.SetReadLimit(64 << 20)
	sizes(small, image.Pt(640, 360))
}

// aTileWatching is a 720x1600 phone whose desk a 180x400 tile watches,
// already sent a stream 480 px high (its 400 rounded up to a step of 160).
func aTileWatching(t *testing.T) (*mirror.Hub, string, *websocket.Conn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	needFFmpeg(t)
	_, env := vphonetest.Start(t, vphone.WithSize(720, 1600))
	hub, srv, f := mirrorDesks(t, NewDevices("127.0.0.1:"+strconv.Itoa(env.Port), t.TempDir()))
	if err := f.Watch(ctx, "tile", env.Serial); err != nil {
		t.Fatal(err)
	}
	c, _, err := websocket.Dial(ctx, srv.StreamURL(env.Serial)+"&w=180&h=400", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	c.SetReadLimit(64 << 20)
	if got := nextPictureSize(ctx, t, c); got.Y != 480 {
		t.Fatalf("a 180x400 tile got a %v stream, want one 480 high", got)
	}
	return hub, env.Serial, c
}

// nextPictureSize reads c until an H.264 codec config and returns the
// picture size its parameter sets give.
func nextPictureSize(ctx context.Context, t *testing.T, c *websocket.Conn) image.Point {
	t.Helper()
	for {
		typ, msg, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("reading the stream: %v", err)
		}
		if typ != websocket.MessageBinary {
			continue
		}
		f, err := mirror.ParseMessage(msg)
		if err != nil || f.Kind != mirror.KindH264 || !f.Config {
			continue
		}
		if sz, ok := spsSize(f.Data); ok {
			return sz
		}
	}
}

// A stream is made again for a larger box at once, for a smaller one only
// when it saves a third of the side (each new start stops the picture and
// the live input for a moment).
func TestAStreamIsMadeAgainOnlyWhenItPays(t *testing.T) {
	screen := image.Pt(1080, 2400)
	for _, c := range []struct {
		side, want int
		remade     bool
	}{
		{640, 480, false}, // the box settled by a step
		{480, 640, true},  // larger: sharper at once
		{640, 640, false},
		{2400, 640, true},  // a tile of a phone made whole
		{0, 640, true},     // made at the screen's own size
		{0, 2400, false},   // that is the screen's size
		{1280, 960, false}, // three quarters
		{960, 640, true},   // two thirds
		{640, 0, false},    // no viewer says
	} {
		if got := remake(c.side, c.want, screen); got != c.remade {
			t.Errorf("made at %d, wanted %d: remade %v, want %v", c.side, c.want, got, c.remade)
		}
	}
}
