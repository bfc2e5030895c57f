package backend

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// counterTask is a backend on a 540×1200 virtual phone showing the
// counter, whose scripted model taps +1 until the phone's counter reads
// taps (by the phone: an early call may be dropped), then finishes.
type counterTask struct {
	b     *Backend
	phone *vphone.Phone
	env   vphonetest.Env
	mu    sync.Mutex
	shown []string // the newest picture of each request
}

func newCounterTask(t *testing.T, taps int) *counterTask {
	t.Helper()
	c := &counterTask{}
	c.phone, c.env = vphonetest.Start(t, vphone.WithSize(540, 1200))
	if err := c.phone.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	box, _ := c.phone.Bounds("plus")
	mid := box.Min.Add(box.Max).Div(2)
	plus := fmt.Sprintf(`{"x":%d,"y":%d}`, mid.X*1000/540, mid.Y*1000/1200)
	srv := modeltest.NewFunc(t, func(req modeltest.Request) modeltest.Reply {
		c.mu.Lock()
		defer c.mu.Unlock()
		if imgs := req.Images(); len(imgs) > 0 {
			c.shown = append(c.shown, imgs[len(imgs)-1])
		}
		if c.phone.State().Counter >= taps {
			return finishReply()
		}
		return tapReply(plus)
	})
	c.b = New(Config{ConfigDir: t.TempDir(), DataDir: t.TempDir(), KeyFile: true, ADB: "127.0.0.1:" + strconv.Itoa(c.env.Port)})
	t.Cleanup(c.b.Shutdown)
	if err := c.b.Begin(context.Background(), NotifierFunc(func(string, any) {})); err != nil {
		t.Fatal(err)
	}
	scriptedProfile(t, c.b, srv.URL, "")
	return c
}

// sameAsBefore is the first request (from 1) whose picture is the one
// before it (a tap's change not captured), 0 when there is none.
func (c *counterTask) sameAsBefore() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := 1; i < len(c.shown); i++ {
		if c.shown[i] == c.shown[i-1] {
			return i + 1
		}
	}
	return 0
}
