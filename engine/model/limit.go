package model

import (
	"context"
	"slices"
	"sync"
)

// Limiter bounds the requests in flight to one model server. A local
// server (llama.cpp's llama-server, Ollama, LM Studio) often answers one
// request at a time; four runs that each sent theirs would wait inside
// the server with nothing to show for it. Calls beyond the limit wait
// here instead, in the order they came (a call never overtakes one that
// asked before it), each wait bounded by its own call's context, and each
// can say how many requests are ahead of it.
//
// One Limiter is shared by every Client of the same server and model
// (ClientConfig.Limit; the backend keeps one per server and model). A
// slot is held for one attempt: from before the request is sent until its
// reply has been read or dropped, so a call backing off before a retry
// lets others in and then queues again. A nil *Limiter limits nothing.
type Limiter struct {
	mu       sync.Mutex
	max      int // 0: no limit
	inFlight int
	queue    []*ticket
}

// ticket is one call waiting for a slot.
type ticket struct {
	granted bool
	ready   chan struct{} // closed once granted
	moved   chan struct{} // one pending poke: the place in the queue changed
}

// NewLimiter returns a limiter of max requests in flight (0: no limit).
func NewLimiter(max int) *Limiter { return &Limiter{max: max} }

// SetMax changes the limit (0: none); calls waiting that now fit go at
// once, and calls in flight above a lowered limit finish as they are.
func (l *Limiter) SetMax(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.max = n
	l.grant()
}

// Max returns the limit (0: none).
func (l *Limiter) Max() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.max
}

// InFlight returns how many requests hold a slot now.
func (l *Limiter) InFlight() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.inFlight
}

// Queued returns how many calls wait for a slot now.
func (l *Limiter) Queued() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.queue)
}

// Acquire waits for a slot, in arrival order, until ctx ends. While it
// waits it calls place (on the caller's goroutine) with the number of
// requests ahead of it (those in flight and those queued before it) each
// time that number changes, and with 0 once it holds the slot. release
// gives the slot back (once; later calls do nothing). A call whose ctx
// ends while it waits leaves the queue at once and holds nothing.
func (l *Limiter) Acquire(ctx context.Context, place func(ahead int)) (release func(), err error) {
	if l == nil {
		return func() {}, nil
	}
	if place == nil {
		place = func(int) {}
	}
	l.mu.Lock()
	if len(l.queue) == 0 && l.fits() {
		l.inFlight++
		l.mu.Unlock()
		return l.releaser(), nil
	}
	t := &ticket{ready: make(chan struct{}), moved: make(chan struct{}, 1)}
	l.queue = append(l.queue, t)
	ahead := l.aheadOf(t)
	l.mu.Unlock()
	place(ahead)
	for {
		select {
		case <-t.ready:
			place(0)
			return l.releaser(), nil
		case <-t.moved:
			l.mu.Lock()
			granted, n := t.granted, l.aheadOf(t)
			l.mu.Unlock()
			if !granted && n != ahead {
				ahead = n
				place(n)
			}
		case <-ctx.Done():
			l.mu.Lock()
			if t.granted { // granted as the call gave up: pass the slot on
				l.inFlight--
				l.grant()
			} else {
				l.leave(t)
			}
			l.mu.Unlock()
			return nil, ctx.Err()
		}
	}
}

// fits says whether one more request may go now (l.mu held).
func (l *Limiter) fits() bool { return l.max <= 0 || l.inFlight < l.max }

// aheadOf is how many requests go before t (l.mu held).
func (l *Limiter) aheadOf(t *ticket) int { return l.inFlight + slices.Index(l.queue, t) }

// releaser returns the slot once.
func (l *Limiter) releaser() func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.inFlight--
			l.grant()
		})
	}
}

// grant hands free slots to the first calls in the queue and tells the
// rest their new place (l.mu held).
func (l *Limiter) grant() {
	n := 0
	for n < len(l.queue) && l.fits() {
		t := l.queue[n]
		t.granted = true
		l.inFlight++
		close(t.ready)
		n++
	}
	l.queue = l.queue[n:]
	l.poke(0)
}

// leave takes t out of the queue; those behind it move up (l.mu held).
func (l *Limiter) leave(t *ticket) {
	i := slices.Index(l.queue, t)
	if i < 0 {
		return
	}
	l.queue = slices.Delete(l.queue, i, i+1)
	l.poke(i)
}

// poke tells the queued calls from index i on that their place changed.
func (l *Limiter) poke(i int) {
	for _, t := range l.queue[i:] {
		select {
		case t.moved <- struct{}{}:
		default:
		}
	}
}
