package backend

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"tandem/mirror"
	"tandem/vphone/vphonetest"

	"github.com/coder/websocket"
)

// A viewer watching before the phone's stream opens is told the path
// before the first frame: no frame ever flows while the hub names no path
// (issue 30: BenchmarkMirrorPhone saw `path ""` after its first frame).
func TestPhoneMirrorNamesItsPathBeforeTheFirstFrame(t *testing.T) {
	_, env := vphonetest.Start(t)
	hub, srv, f := mirrorDesks(t, NewDevices("127.0.0.1:"+strconv.Itoa(env.Port), t.TempDir()))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, srv.StreamURL(env.Serial), nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(64 << 20)
	defer c.CloseNow()
	if err := f.Watch(ctx, "test", env.Serial); err != nil {
		t.Fatal(err)
	}
	typ, msg, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if typ != websocket.MessageText {
		t.Fatalf("the first message is a frame (%d bytes) while the hub names no path (%+v)", len(msg), hub.PathOf(env.Serial))
	}
	var p mirror.Path
	if err := json.Unmarshal(msg, &p); err != nil || p.Path != "screenrecord" {
		t.Fatalf("the first message %s, want the screenrecord path", msg)
	}
}
