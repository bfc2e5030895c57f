package backend

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"tandem/engine"
	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// TestAStillScreenIsConfirmedOnThePhone (issue 48): in a headless run on
// the virtual phone behind the real adb server, each step's still screen
// is confirmed by the phone's checksum of a capture, not by a second
// capture sent whole, and the confirmation never hides a change: every
// request shows the last tap's effect.
func TestAStillScreenIsConfirmedOnThePhone(t *testing.T) {
	const taps = 5
	phone, env := vphonetest.Start(t, vphone.WithSize(540, 1200))
	if err := phone.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	box, _ := phone.Bounds("plus")
	c := box.Min.Add(box.Max).Div(2)
	plus := fmt.Sprintf(`{"x":%d,"y":%d}`, c.X*1000/540, c.Y*1000/1200)
	var mu sync.Mutex
	var pictures []string
	srv := modeltest.NewFunc(t, func(req modeltest.Request) modeltest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if imgs := req.Images(); len(imgs) > 0 {
			pictures = append(pictures, imgs[len(imgs)-1])
		}
		if phone.State().Counter >= taps {
			return finishReply()
		}
		return tapReply(plus)
	})
	b := New(Config{ConfigDir: t.TempDir(), DataDir: t.TempDir(), KeyFile: true, ADB: "127.0.0.1:" + strconv.Itoa(env.Port)})
	t.Cleanup(b.Shutdown)
	if err := b.Begin(context.Background(), NotifierFunc(func(string, any) {})); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SaveProfile(Profile{Name: "scripted", BaseURL: srv.URL, Model: "scripted", Dialect: "tools", Variant: "rel1000"}, ""); err != nil {
		t.Fatal(err)
	}
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
	mu.Lock()
	defer mu.Unlock()
	for i := 1; i < len(pictures); i++ {
		if pictures[i] == pictures[i-1] {
			t.Fatalf("request %d shows the same screen as the one before it: a confirmation hid the tap's change", i+1)
		}
	}
}
