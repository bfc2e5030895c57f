package backend

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"tandem/backend/chore"
	"tandem/engine"
	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"

	openai "github.com/sashabaranov/go-openai"
)

// fakeClock moves only when the test says; After's channels fire when it
// passes their time. waits hears each After, so a test knows the
// scheduler is asleep before it moves the clock.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []fakeTimer
	waits  chan struct{}
}

type fakeTimer struct {
	at time.Time
	c  chan time.Time
}

func newFakeClock(t time.Time) *fakeClock { return &fakeClock{now: t, waits: make(chan struct{}, 64)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	ch := make(chan time.Time, 1)
	c.timers = append(c.timers, fakeTimer{at: c.now.Add(d), c: ch})
	c.mu.Unlock()
	c.waits <- struct{}{}
	return ch
}

// set moves the clock to t and fires the timers it passes.
func (c *fakeClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
	kept := c.timers[:0]
	for _, tm := range c.timers {
		if !tm.at.After(t) {
			tm.c <- t
		} else {
			kept = append(kept, tm)
		}
	}
	c.timers = kept
}

// asleep waits until the scheduler has gone to sleep again.
func (c *fakeClock) asleep(t *testing.T) {
	t.Helper()
	select {
	case <-c.waits:
	case <-time.After(20 * time.Second):
		t.Fatal("the scheduler did not go to sleep")
	}
}

// twoCounters is two virtual phones on one adb server, both on the
// Counter, and a backend that sees them.
func twoCounters(t *testing.T, sizes ...[2]int) (*Backend, []*vphone.Phone, []string) {
	t.Helper()
	if len(sizes) == 0 {
		sizes = [][2]int{{360, 800}, {360, 800}}
	}
	adb, port := vphonetest.StartServer(t)
	t.Setenv("ADB_LOCAL_TRANSPORT_MAX_PORT", "0")
	var phones []*vphone.Phone
	var serials []string
	for _, sz := range sizes {
		p, err := vphone.New(vphone.WithSize(sz[0], sz[1]))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Listen("127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		env := vphonetest.Env{ADB: adb, Port: port, Serial: p.Addr(), Address: p.Addr()}
		if err := vphonetest.Connect(context.Background(), env); err != nil {
			t.Fatal(err)
		}
		if err := p.Launch(vphone.PkgCounter); err != nil {
			t.Fatal(err)
		}
		phones, serials = append(phones, p), append(serials, env.Serial)
	}
	b := New(Config{ConfigDir: t.TempDir(), DataDir: t.TempDir(), KeyFile: true, ADB: "127.0.0.1:" + strconv.Itoa(port)})
	t.Cleanup(b.Shutdown)
	if err := b.Begin(context.Background(), NotifierFunc(func(string, any) {})); err != nil {
		t.Fatal(err)
	}
	return b, phones, serials
}

// recordCount is a finished run on phone 0 that taps +1 once, made with a
// model that is then gone: the chore replays it.
func recordCount(t *testing.T, b *Backend, p *vphone.Phone, serial string) string {
	t.Helper()
	box, _ := p.Bounds("plus")
	c := box.Min.Add(box.Max).Div(2)
	srv := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply {
		if p.State().Counter == 0 {
			return modeltest.Reply{ToolCalls: []openai.ToolCall{{ID: "1", Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: "tap", Arguments: fmt.Sprintf(`{"x":%d,"y":%d}`, c.X*1000/360, c.Y*1000/800)}}}}
		}
		return modeltest.Reply{ToolCalls: []openai.ToolCall{{ID: "2", Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "finish", Arguments: `{"summary":"One.","success":true}`}}}}
	})
	defer srv.Close()
	snap, err := b.StartRun(context.Background(), serial, "Tap +1 once", RunChoice{Model: &Profile{Name: "t", BaseURL: srv.URL, Model: "m", Dialect: "tools", Variant: "rel1000"}})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		d, err := b.RunSteps(snap.ID)
		return err == nil && d.Result != nil
	}, "the recorded run's end on its record")
	return snap.ID
}

func waitFor(t *testing.T, ok func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 30 s for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A chore scheduled daily at 08:00 on two phones starts on both at 08:00
// of the scheduler's clock, not a second before, each its own run marked
// as the schedule's; a slot that passes while the scheduler is not running
// is shown as missed at its next start and runs nothing by itself.
func TestScheduleFiresOnTimeOnTwoPhones(t *testing.T) {
	b, phones, serials := twoCounters(t)
	from := recordCount(t, b, phones[0], serials[0])
	c, err := b.SaveChore(chore.Chore{Name: "count", Goal: "Tap +1 once", FromRun: from, Devices: serials,
		Schedule: &chore.Schedule{Kind: chore.Daily, At: "08:00"}})
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	clock := newFakeClock(day.Add(7*time.Hour + 58*time.Minute))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); b.Schedule(ctx, clock, time.UTC) }()
	clock.asleep(t)
	clock.set(day.Add(7*time.Hour + 59*time.Minute + 59*time.Second))
	clock.asleep(t)
	if n := phones[1].State().Counter; n != 0 || len(b.ChoresNews().Started) != 0 {
		t.Fatalf("before 08:00: counter %d, started %+v", n, b.ChoresNews().Started)
	}
	clock.set(day.Add(8 * time.Hour))
	clock.asleep(t)
	waitFor(t, func() bool { return phones[0].State().Counter == 2 && phones[1].State().Counter == 1 }, "both phones to count")
	news := b.ChoresNews()
	if len(news.Started) != 1 || len(news.Started[0].Starts) != 2 || news.Started[0].Chore != c.ID {
		t.Fatalf("started %+v", news.Started)
	}
	for _, s := range news.Started[0].Starts {
		if s.Error != "" {
			t.Fatalf("%s did not start: %s", s.Device, s.Error)
		}
		r, _ := b.Run(s.Run.ID, ByWindow())
		for end := time.Now().Add(30 * time.Second); !r.State().Terminal(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("the scheduled run on %s did not end: %+v", s.Device, r.Snapshot())
			}
		}
		if r.State() != engine.Done {
			t.Fatalf("the scheduled run on %s ended %s: %+v", s.Device, r.State(), r.Snapshot())
		}
		if calls := r.Snapshot().Usage.Calls; calls != 0 {
			t.Errorf("a replay with no model says %d model calls", calls)
		}
	}
	past, _ := b.PastRuns()
	scheduled := 0
	for _, r := range past {
		if r.StartedBy == "schedule:count" {
			scheduled++
		}
	}
	if scheduled != 2 {
		t.Errorf("%d runs in History say the schedule started them, want 2", scheduled)
	}
	cancel()
	<-done

	// Tandem closed through the next day's 08:00.
	clock.set(day.Add(24*time.Hour + 9*time.Hour))
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	go b.Schedule(ctx, clock, time.UTC)
	clock.asleep(t)
	missed := b.ChoresNews().Missed
	if len(missed) != 1 || missed[0].Chore != c.ID || !missed[0].Slot.Equal(day.Add(32*time.Hour)) {
		t.Fatalf("missed %+v", missed)
	}
	if phones[1].State().Counter != 1 {
		t.Fatal("a missed slot ran by itself")
	}
	if _, err := b.AnswerMissed(context.Background(), c.ID, false); err != nil || len(b.ChoresNews().Missed) != 0 {
		t.Fatalf("skipping: %v, missed %+v", err, b.ChoresNews().Missed)
	}
}
