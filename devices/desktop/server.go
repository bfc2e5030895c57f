package desktop

import (
	"context"
	"fmt"
	"image"
	"os"
	"slices"
	"sync"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"tandem/engine/device"
)

// xserver is one X server as the drivers of this process share it: one
// pointer and one keyboard, so one injector. Two displays driven at once
// are two monitors of one X server, and each driver took the other's
// pointer moves for the person's hand (issue 27: 5 runs in 8 never
// finished); so the drivers on one server inject through one connection,
// one action at a time (do), and know every input Tandem injected (expect)
// and where Tandem last put the pointer (exp). The RECORD stream (rec)
// shows them every input event of the server in order; what Tandem did
// not inject is the person's.
//
// servers is the process's one table of them, the way the X server itself
// is one per display: a driver cannot be handed the other drivers' injections
// by its caller without every caller having to remember to.
type xserver struct {
	key  string
	refs int

	c    *xgb.Conn // injections, markers and pointer queries
	root xproto.Window
	rec  *recorder       // nil: the server has no RECORD; the guard polls
	mark func(id uint32) // sends a marker (rec.mark)

	do chan struct{} // one action at a time on this server's pointer and keyboard (a slot)

	mu      sync.Mutex
	exp     image.Point // where Tandem last put the pointer
	expect  []*expected // injected, in the stream's view, not yet seen
	keys    keymap
	keysOK  bool
	next    uint32
	marks   map[uint32]func()
	drivers []*Driver
}

// expected is an input event Tandem injected.
type expected struct {
	typ, detail byte
	at          image.Point // a motion's end
	dead        bool        // the injection did not happen (a refused warp)
}

// maxExpected bounds the injected events waiting to be seen; they are seen
// within a moment, so only a server that lost some would fill it.
const maxExpected = 1024

var servers = struct {
	sync.Mutex
	m map[string]*xserver
}{m: map[string]*xserver{}}

// serverKey names an X server: ":0", ":0.0" and "" with DISPLAY=:0 are one.
func serverKey(display string) string {
	if display == "" {
		display = os.Getenv("DISPLAY")
	}
	if host, num, err := parseDisplay(display); err == nil {
		return host + ":" + num
	}
	return display
}

// joinServer adds d to its X server's drivers, connecting first when d is
// the first.
func joinServer(ctx context.Context, display string, record bool, d *Driver) (*xserver, error) {
	servers.Lock()
	defer servers.Unlock()
	key := serverKey(display)
	s := servers.m[key]
	if s == nil {
		c, err := dial(ctx, display)
		if err != nil {
			return nil, err
		}
		s = &xserver{key: key, c: c, root: xproto.Setup(c).DefaultScreen(c).Root, marks: map[uint32]func(){},
			do: make(chan struct{}, 1)}
		if !hasExtension(c, "XTEST") {
			c.Close()
			return nil, fmt.Errorf("%w: the X server has no XTEST extension to send input with", device.ErrUnsupported)
		}
		// Without RECORD the guard falls back to polling (see guard.go).
		if record {
			if s.rec, _ = startRecord(ctx, display, c, s); s.rec != nil {
				s.mark = s.rec.mark
			}
		}
		servers.m[key] = s
	}
	s.refs++
	s.mu.Lock()
	s.drivers = append(s.drivers, d)
	s.mu.Unlock()
	return s, nil
}

// leave removes d, closing the connection with the last driver.
func (s *xserver) leave(d *Driver) {
	servers.Lock()
	defer servers.Unlock()
	s.mu.Lock()
	s.drivers = slices.DeleteFunc(s.drivers, func(x *Driver) bool { return x == d })
	s.mu.Unlock()
	if s.refs--; s.refs > 0 {
		return
	}
	delete(servers.m, s.key)
	if s.rec != nil {
		s.rec.stop()
	}
	s.c.Close()
}

// markLocked runs f on the stream's goroutine where the server processes
// this call, after every input event before it; s.mu is held, and f runs
// with s.mu held. Without RECORD f never runs.
func (s *xserver) markLocked(f func()) {
	if s.mark == nil {
		return
	}
	s.next++
	s.marks[s.next] = f
	s.mark(s.next)
}

// The stream (streamSink), in the server's order.

func (s *xserver) device(ev xevent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.oursLocked(ev) {
		return
	}
	for _, d := range s.drivers {
		d.personEventLocked(ev)
	}
}

func (s *xserver) marker(id uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.marks[id]; f != nil {
		delete(s.marks, id)
		f()
	}
}

func (s *xserver) mapping() {
	s.mu.Lock()
	s.keysOK = false
	s.mu.Unlock()
}

// oursLocked reports whether ev is an event Tandem injected. An injection
// is expected from the marker sent just before it: the stream may be read
// long after Tandem injected more, and a person's event the server
// processed before an injection must not be taken for it (a person's
// button release for the end of a drag the agent was only about to make).
// The server processes Tandem's injections in the order sent, so expected
// events before the one seen will never come and are dropped.
func (s *xserver) oursLocked(ev xevent) bool {
	for i, e := range s.expect {
		if !e.dead && e.typ == ev.typ && e.detail == ev.detail && (ev.typ != xproto.MotionNotify || e.at == ev.root) {
			s.expect = s.expect[i+1:]
			return true
		}
	}
	return false
}

// expectLocked says Tandem is about to inject e: it is expected in the
// stream from this point of the server's order on.
func (s *xserver) expectLocked(e *expected) {
	s.markLocked(func() {
		if len(s.expect) >= maxExpected {
			s.expect = s.expect[1:]
		}
		s.expect = append(s.expect, e)
	})
}

// keymapLocked is the keyboard mapping, read again after it changed.
func (s *xserver) keymapLocked() (keymap, error) {
	if !s.keysOK {
		k, err := loadKeymap(s.c)
		if err != nil {
			return keymap{}, err
		}
		s.keys, s.keysOK = k, true
	}
	return s.keys, nil
}

// pointerLocked is where the pointer is, in root coordinates.
func (s *xserver) pointerLocked() (image.Point, uint16, error) {
	q, err := xproto.QueryPointer(s.c, s.root).Reply()
	if err != nil {
		return image.Point{}, 0, fmt.Errorf("query pointer: %w", err)
	}
	return image.Pt(int(q.RootX), int(q.RootY)), q.Mask, nil
}

// warpLocked moves the pointer from exp to p, only if it is still at exp:
// the server checks and moves in one step (XWarpPointer with a source
// rectangle), so a hand that moved the pointer a moment before is never
// overruled. It reports whether the pointer moved.
func (s *xserver) warpLocked(p image.Point) (bool, error) {
	e := &expected{typ: xproto.MotionNotify, at: p}
	s.expectLocked(e)
	err := xproto.WarpPointerChecked(s.c, s.root, s.root, int16(s.exp.X), int16(s.exp.Y), 1, 1,
		int16(p.X), int16(p.Y)).Check()
	if err != nil {
		return false, fmt.Errorf("move the pointer: %w", err)
	}
	at, _, err := s.pointerLocked()
	if err != nil {
		return false, err
	}
	if at != p {
		e.dead = true // refused: no motion will come
		return false, nil
	}
	s.exp = p
	return true, nil
}

// fakeLocked injects one key or button event through XTEST.
func (s *xserver) fakeLocked(typ, detail byte) error {
	if err := s.sendFakeLocked(typ, detail, 0).Check(); err != nil {
		return fmt.Errorf("send input: %w", err)
	}
	return nil
}

// sendFakeLocked sends one key or button event through XTEST, for the
// server to make delay ms after it reads the request, without waiting.
func (s *xserver) sendFakeLocked(typ, detail byte, delay uint32) xtest.FakeInputCookie {
	s.expectLocked(&expected{typ: typ, detail: detail})
	return xtest.FakeInputChecked(s.c, typ, detail, delay, s.root, 0, 0, 0)
}
