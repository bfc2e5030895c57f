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
	var b *segment
	started := false
	defer func() {
		if a != nil {
			a.close()
		}
		if b != nil {
			b.close()
		}
	}()
	idle := time.NewTimer(time.Hour)
	restart := time.NewTimer(r.o.RecordFor)
	defer idle.Stop()
	defer restart.Stop()
	fail := func(err error) {
		r.mu.Lock()
		r.err = err
		r.mu.Unlock()
		if !started {
			first <- err
		}
	}
	startNext := func() bool {
		if b != nil {
			return true
		}
		var err error
		b, err = r.startSegment(ctx, false)
		if err != nil {
			if ctx.Err() == nil {
				fail(fmt.Errorf("restarting screenrecord: %w", err))
			}
			return false
		}
		return true
	}
	for {
		var ach, bch <-chan []byte
		if a != nil {
			ach = a.chunks
		}
		if b != nil {
			bch = b.chunks
		}
		select {
		case <-ctx.Done():
			fail(ctx.Err())
			return
		case c, ok := <-ach:
			if !ok {
				if !a.ready && !started {
					fail(a.failure())
					return
				}
				a.sp.flush()
				a.close()
				a = nil
				if !startNext() { // ended early: the next takes over at once
					return
				}
				continue
			}
			a.write(c)
			idle.Reset(a.sp.idle)
		case c, ok := <-bch:
			if !ok {
				err := b.failure()
				b.close()
				b = nil
				if a == nil {
					fail(err)
					return
				}
				restart.Reset(time.Second) // try again soon, the old one still runs
				continue
			}
			b.write(c)
			idle.Reset(b.sp.idle)
		case <-idle.C:
			if a != nil {
				a.sp.flush()
			}
			if b != nil {
				b.sp.flush()
			}
		case <-restart.C:
			if !startNext() {
				return
			}
		}
		if a != nil && a.ready && !started {
			started = true
			first <- nil
		}
		// Switch over once the next recording has its key frame.
		if b != nil && b.ready {
			for _, p := range b.held {
				r.emit(p)
			}
			b.held, b.live = nil, true
			r.mu.Lock()
			r.restarts++
			if a == nil {
				r.late++
			}
			r.mu.Unlock()
			if a != nil {
				a.close()
			}
			a, b = b, nil
			restart.Reset(r.o.RecordFor)
			if !started {
				started = true
				first <- nil
			}
		}
	}
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
