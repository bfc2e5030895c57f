package model

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tandem/internal/modeltest"
)

// waitUntil polls cond until it holds (a generous deadline, no fixed sleep).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// queued starts an Acquire that reports its places and its grant, and
// returns once it waits in the queue.
type queued struct {
	mu      sync.Mutex
	places  []int
	release func()
	err     error
	done    chan struct{}
	cancel  context.CancelFunc
}

func (q *queued) last() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.places) == 0 {
		return -1
	}
	return q.places[len(q.places)-1]
}

func enqueue(t *testing.T, l *Limiter, granted chan<- *queued) *queued {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	q := &queued{done: make(chan struct{}), cancel: cancel}
	before := l.Queued()
	go func() {
		defer close(q.done)
		q.release, q.err = l.Acquire(ctx, func(n int) { q.mu.Lock(); q.places = append(q.places, n); q.mu.Unlock() })
		if q.err == nil {
			granted <- q
		}
	}()
	waitUntil(t, "the call to queue", func() bool { return l.Queued() == before+1 })
	return q
}

// TestLimiterIsFIFOAndSaysThePlace: with one slot held, calls queue in the
// order they came, each told how many go before it; a queued call that
// gives up moves those behind it up, holds nothing and frees nothing; the
// slots go in arrival order.
func TestLimiterIsFIFOAndSaysThePlace(t *testing.T) {
	l := NewLimiter(1)
	first, err := l.Acquire(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	granted := make(chan *queued, 8)
	qs := []*queued{enqueue(t, l, granted), enqueue(t, l, granted), enqueue(t, l, granted), enqueue(t, l, granted)}
	for i, q := range qs {
		waitUntil(t, "the first place", func() bool { return q.last() == i+1 })
	}
	// The second in the queue gives up: the first keeps its place, the two
	// behind move up, and still only the one slot is held.
	qs[1].cancel()
	<-qs[1].done
	if !errors.Is(qs[1].err, context.Canceled) || qs[1].release != nil {
		t.Fatalf("a call that gave up: %v", qs[1].err)
	}
	waitUntil(t, "the places after one left", func() bool { return qs[2].last() == 2 && qs[3].last() == 3 })
	if qs[0].last() != 1 || l.InFlight() != 1 || l.Queued() != 3 {
		t.Fatalf("first at %d, %d in flight, %d queued", qs[0].last(), l.InFlight(), l.Queued())
	}
	// Each release lets exactly the next one in.
	first()
	first() // a second release gives nothing back
	for _, want := range []*queued{qs[0], qs[2], qs[3]} {
		got := <-granted
		if got != want {
			t.Fatal("a slot went out of arrival order")
		}
		if got.last() != 0 || l.InFlight() != 1 {
			t.Fatalf("granted at place %d with %d in flight", got.last(), l.InFlight())
		}
		got.release()
	}
	if l.InFlight() != 0 || l.Queued() != 0 {
		t.Fatalf("%d in flight, %d queued at the end", l.InFlight(), l.Queued())
	}
}

// TestLimiterNeverLeaksASlot: many callers at random, some giving up while
// they wait (some just as they are granted): never more than the limit hold
// a slot at once, and in the end none does and none waits.
func TestLimiterNeverLeaksASlot(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		limit := 1 + rng.IntN(3)
		l := NewLimiter(limit)
		var holding, most atomic.Int32
		var wg sync.WaitGroup
		for i := range 40 {
			patience := time.Duration(rng.IntN(3000)) * time.Microsecond
			hold := time.Duration(rng.IntN(500)) * time.Microsecond
			giveUp := i%3 == 0
			wg.Go(func() {
				ctx := context.Background()
				if giveUp {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, patience)
					defer cancel()
				}
				release, err := l.Acquire(ctx, nil)
				if err != nil {
					return
				}
				n := holding.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				time.Sleep(hold)
				holding.Add(-1)
				release()
			})
		}
		wg.Wait()
		if int(most.Load()) > limit || l.InFlight() != 0 || l.Queued() != 0 {
			t.Fatalf("seed %d: limit %d, %d at once, %d in flight and %d queued at the end", seed, limit, most.Load(), l.InFlight(), l.Queued())
		}
	}
}

// TestLimiterSetMaxLetsTheWaitingGo: raising the limit grants queued calls
// at once; 0 means no limit.
func TestLimiterSetMaxLetsTheWaitingGo(t *testing.T) {
	l := NewLimiter(1)
	release, _ := l.Acquire(context.Background(), nil)
	granted := make(chan *queued, 4)
	enqueue(t, l, granted)
	enqueue(t, l, granted)
	l.SetMax(0)
	for range 2 {
		select {
		case q := <-granted:
			defer q.release()
		case <-time.After(20 * time.Second):
			t.Fatal("a call still waits after the limit was lifted")
		}
	}
	release()
	var nilLimiter *Limiter
	if r, err := nilLimiter.Acquire(context.Background(), nil); err != nil {
		t.Fatal(err)
	} else {
		r()
	}
}

// TestClientsShareALimit: three clients of one server share a limit of one;
// the server never answers two of their requests at once, the calls that
// wait say how many are ahead, and the requests reach the server in the
// order the calls were made.
func TestClientsShareALimit(t *testing.T) {
	gate := make(chan struct{})
	srv := modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		select {
		case <-gate:
		case <-time.After(20 * time.Second):
		}
		return modeltest.Reply{Content: "ok " + r.Text()}
	})
	l := NewLimiter(1)
	var wg sync.WaitGroup
	var mu sync.Mutex
	aheads := map[string][]int{}
	for i, name := range []string{"first", "second", "third"} {
		c := newTestClient(t, srv.URL, func(c *ClientConfig) { c.Limit = l })
		ctx := WithWaitNotice(context.Background(), func(w Waiting) {
			mu.Lock()
			aheads[name] = append(aheads[name], w.Ahead)
			mu.Unlock()
		})
		wg.Go(func() {
			if _, err := c.Call(ctx, userPrompt(name), true, nil, nil); err != nil {
				t.Error(err)
			}
		})
		waitUntil(t, name+" to be sent or queued", func() bool { return l.InFlight()+l.Queued() == i+1 })
	}
	waitUntil(t, "the places told", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(aheads["second"]) > 0 && len(aheads["third"]) > 0
	})
	mu.Lock()
	if aheads["second"][0] != 1 || aheads["third"][0] != 2 || len(aheads["first"]) > 0 && aheads["first"][0] != 0 {
		t.Errorf("places told: %v", aheads)
	}
	mu.Unlock()
	close(gate)
	wg.Wait()
	if n := srv.MaxActive("gpt-4o"); n != 1 {
		t.Fatalf("the server answered %d requests at once", n)
	}
	var order []string
	for _, r := range srv.Requests() {
		order = append(order, strings.TrimSpace(r.Text()))
	}
	if strings.Join(order, ",") != "first,second,third" {
		t.Fatalf("requests reached the server as %v", order)
	}
}
