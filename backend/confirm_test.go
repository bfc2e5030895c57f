package backend

import (
	"context"
	"testing"
	"time"

	"tandem/engine"
)

// TestAStillScreenIsConfirmedOnThePhone (issue 48): in a headless run on
// the virtual phone behind the real adb server, each step's still screen
// is confirmed by the phone's checksum of a capture, not by a second
// capture sent whole, and the confirmation never hides a change: every
// request shows the last tap's effect.
func TestAStillScreenIsConfirmedOnThePhone(t *testing.T) {
	const taps = 5
	c := newCounterTask(t, taps)
	b, phone, env := c.b, c.phone, c.env
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	caps, sums := phone.Screencaps(), phone.Checksums()
	snap, err := b.StartRun(ctx, env.Serial, "tap +1 five times", RunChoice{NoVideo: true})
	if err != nil {
		t.Fatal(err)
	}
	run, _ := b.Run(snap.ID, ByWindow())
	res, err := run.Wait(ctx)
	if err != nil || res.State != engine.Done || phone.State().Counter != taps {
		t.Fatalf("%+v %v, counter %d", res, err, phone.State().Counter)
	}
	caps, sums = phone.Screencaps()-caps, phone.Checksums()-sums
	t.Logf("%d steps: %d captures on the phone, %d of them checksummed there", res.Steps, caps, sums)
	if sums < int64(res.Steps) {
		t.Errorf("%d checksums for %d steps: the still screens were confirmed by captures sent whole", sums, res.Steps)
	}
	if n := c.sameAsBefore(); n != 0 {
		t.Fatalf("request %d shows the same screen as the one before it: a confirmation hid the tap's change", n)
	}
}
