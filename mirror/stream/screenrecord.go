package stream

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"tandem/devices/adb"
)

// splitIdle is how long the stream must be quiet before a pending frame is
// taken as complete (see splitter).
const splitIdle = 6 * time.Millisecond

// startTimeout bounds the wait for a recording's first frame.
const startTimeout = 10 * time.Second

// Recording is the screenrecord path: `exec:screenrecord
// --output-format=h264 ... -` streams Annex-B H.264. AOSP stops a recording
// after at most 180 s, so before that a second recording starts; its
// packets are held until its first key frame (it begins with SPS, PPS and
// an IDR frame), then the old one is closed: the viewer sees no gap.
type Recording struct {
	o      Options
	emit   func(Packet)
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	err      error
	restarts int
	late     int // take-overs after the old recording had already ended
}

// segment is one screenrecord process.
type segment struct {
	st     *adb.Stream
	cancel context.CancelFunc
	chunks chan []byte
	sp     *splitter
	head   []byte // the first bytes, for an error message
	held   []Packet
	ready  bool // has emitted (or held) a key frame
	live   bool // emits straight out
}

func (r *Recording) command() string {
	w, h := videoSize(r.o.Screen[0], r.o.Screen[1], r.o.MaxSide)
	limit := min(180, int(r.o.RecordFor/time.Second)+10)
	return fmt.Sprintf("screenrecord --output-format=h264 --size %dx%d --bit-rate %d --time-limit %d -", w, h, r.o.BitRate, limit)
}

func (r *Recording) startSegment(ctx context.Context, live bool) (*segment, error) {
	sctx, cancel := context.WithCancel(ctx)
	st, err := r.o.Server.Open(sctx, r.o.Serial, "exec:"+r.command())
	if err != nil {
		cancel()
		return nil, err
	}
	s := &segment{st: st, cancel: cancel, chunks: make(chan []byte, 16), live: live}
	s.sp = newSplitter(splitIdle, func(p Packet) {
		p.At = time.Now()
		if p.Key {
			s.ready = true
		}
		if s.live {
			r.emit(p)
		} else {
			s.held = append(s.held, p)
		}
	})
	go func() {
		defer close(s.chunks)
		for {
			buf := make([]byte, 64<<10)
			n, err := st.Read(buf)
			if n > 0 {
				select {
				case s.chunks <- buf[:n]:
				case <-sctx.Done():
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return s, nil
}

func (s *segment) write(b []byte) {
	if len(s.head) < 512 {
		s.head = append(s.head, b[:min(len(b), 512-len(s.head))]...)
	}
	s.sp.write(b)
}

func (s *segment) close() {
	s.cancel()
	s.st.Close()
}

// failure describes a recording that ended without video.
func (s *segment) failure() error {
	text := strings.TrimSpace(strings.ToValidUTF8(string(s.head), "?"))
	if text == "" {
		return errors.New("screenrecord ended without output")
	}
	return fmt.Errorf("screenrecord: %s", text)
}

// StartScreenrecord starts the screenrecord path and returns once the first
// frame arrived (or the phone refused). ctx bounds the stream's life.
func StartScreenrecord(ctx context.Context, o Options, emit func(Packet)) (*Recording, error) {
	o.defaults()
	ctx, cancel := context.WithCancel(ctx)
	r := &Recording{o: o, emit: emit, cancel: cancel, done: make(chan struct{})}
	first := make(chan error, 1)
	a, err := r.startSegment(ctx, true)
	if err != nil {
		cancel()
		return nil, err
	}
	go r.loop(ctx, a, first)
	select {
	case err := <-first:
		if err != nil {
			cancel()
			<-r.done
			return nil, err
		}
		return r, nil
	case <-time.After(startTimeout):
		cancel()
		<-r.done
		return nil, fmt.Errorf("screenrecord sent no frame in %v", startTimeout)
	case <-ctx.Done():
		<-r.done
		return nil, ctx.Err()
	}
}

func (r *Recording) loop(ctx context.Context, a *segment, first chan<- error) {
	defer close(r.done)
	l := &relay{r: r, ctx: ctx, a: a, first: first, idle: time.NewTimer(time.Hour), restart: time.NewTimer(r.o.RecordFor)}
	defer l.close()
	for {
		var ach, bch <-chan []byte
		if l.a != nil {
			ach = l.a.chunks
		}
		if l.b != nil {
			bch = l.b.chunks
		}
		goOn := true
		select {
		case <-ctx.Done():
			l.fail(ctx.Err())
			return
		case c, ok := <-ach:
			goOn = l.fromCurrent(c, ok)
		case c, ok := <-bch:
			goOn = l.fromNext(c, ok)
		case <-l.idle.C:
			l.flush()
		case <-l.restart.C:
			goOn = l.startNext()
		}
		if !goOn {
			return
		}
		if l.a != nil && l.a.ready {
			l.begin()
		}
		l.switchOver()
	}
}

// relay is the state of a recording's loop: the segment on screen (a), the
// next one started before a's time limit (b), and whether the first frame
// has been told to Start.
type relay struct {
	r             *Recording
	ctx           context.Context
	a, b          *segment
	started       bool
	first         chan<- error
	idle, restart *time.Timer
}

func (l *relay) close() {
	if l.a != nil {
		l.a.close()
	}
	if l.b != nil {
		l.b.close()
	}
	l.idle.Stop()
	l.restart.Stop()
}

// begin tells Start the stream runs (once).
func (l *relay) begin() {
	if !l.started {
		l.started = true
		l.first <- nil
	}
}

func (l *relay) fail(err error) {
	l.r.mu.Lock()
	l.r.err = err
	l.r.mu.Unlock()
	if !l.started {
		l.first <- err
	}
}

func (l *relay) flush() {
	if l.a != nil {
		l.a.sp.flush()
	}
	if l.b != nil {
		l.b.sp.flush()
	}
}

// startNext starts the next segment unless one is starting; false ends
// the stream.
func (l *relay) startNext() bool {
	if l.b != nil {
		return true
	}
	var err error
	l.b, err = l.r.startSegment(l.ctx, false)
	if err != nil {
		if l.ctx.Err() == nil {
			l.fail(fmt.Errorf("restarting screenrecord: %w", err))
		}
		return false
	}
	return true
}

// fromCurrent handles a chunk of the segment on screen (ok false: it
// ended); false ends the stream.
func (l *relay) fromCurrent(c []byte, ok bool) bool {
	a := l.a
	if !ok {
		if !a.ready && !l.started {
			l.fail(a.failure())
			return false
		}
		a.sp.flush()
		a.close()
		l.a = nil
		return l.startNext() // ended early: the next takes over at once
	}
	a.write(c)
	l.idle.Reset(a.sp.idle)
	return true
}

// fromNext handles a chunk of the next segment (ok false: it failed
// before taking over); false ends the stream.
func (l *relay) fromNext(c []byte, ok bool) bool {
	b := l.b
	if !ok {
		err := b.failure()
		b.close()
		l.b = nil
		if l.a == nil {
			l.fail(err)
			return false
		}
		l.restart.Reset(time.Second) // try again soon, the old one still runs
		return true
	}
	b.write(c)
	l.idle.Reset(b.sp.idle)
	return true
}

// switchOver makes the next segment the one on screen once it has its key
// frame: what it held back is sent, the old one closed.
func (l *relay) switchOver() {
	b, r := l.b, l.r
	if b == nil || !b.ready {
		return
	}
	for _, p := range b.held {
		r.emit(p)
	}
	b.held, b.live = nil, true
	r.mu.Lock()
	r.restarts++
	if l.a == nil {
		r.late++
	}
	r.mu.Unlock()
	if l.a != nil {
		l.a.close()
	}
	l.a, l.b = b, nil
	l.restart.Reset(r.o.RecordFor)
	l.begin()
}

// Path is PathScreenrecord.
func (r *Recording) Path() Path { return PathScreenrecord }

// Done is closed when the stream ended.
func (r *Recording) Done() <-chan struct{} { return r.done }

// Err says why the stream ended.
func (r *Recording) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Restarts counts the recordings that took over from an earlier one.
func (r *Recording) Restarts() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.restarts
}

// Late counts the take-overs that came after the old recording had already
// ended: the viewer saw a gap. Zero while every restart comes before
// screenrecord's own time limit.
func (r *Recording) Late() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.late
}

// Close stops the recording.
func (r *Recording) Close() error {
	r.cancel()
	<-r.done
	return nil
}
