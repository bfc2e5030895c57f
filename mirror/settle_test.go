package mirror

import (
	"image/color"
	"testing"
	"time"
)

// A device's last raw picture is traded for its JPEG once it has been idle
// a while (Settle): what a viewer who joins then gets is the same picture,
// and the raw frame is no longer held.
func TestAnIdleDevicesPictureIsKeptAsJPEG(t *testing.T) {
	hub, s := startServer(t)
	hub.MaxSide = 400
	blue, red := color.RGBA{20, 20, 220, 255}, color.RGBA{220, 20, 20, 255}
	hub.Publish("p", solid(360, 800, blue), time.Now())
	raw, _ := hub.Latest("p")
	if raw.still == nil || raw.Data != nil {
		t.Fatalf("a fresh still is kept raw: %+v", raw)
	}
	hub.Settle("p")
	settled, _ := hub.Latest("p")
	if settled.still != nil || len(settled.Data) == 0 {
		t.Fatalf("the settled still still holds its raw picture: %+v", settled)
	}
	if settled.Seq != raw.Seq || settled.Width != 360 || settled.Height != 800 || !settled.At.Equal(raw.At) {
		t.Fatalf("settling changed the frame: %+v from %+v", settled, raw)
	}
	wantPicture(t, dial(t, s.StreamURL("p")), blue)

	// Later, on its own: SettleLater.
	hub.SettleAfter = 10 * time.Millisecond
	hub.Publish("p", solid(360, 800, red), time.Now())
	hub.SettleLater("p")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if f, _ := hub.Latest("p"); f.still == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("SettleLater never settled the picture")
		}
	}
}
