package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
)

// errStreamClosed is returned by stream reads and writes after either side
// closed the stream or the transport died.
var errStreamClosed = errors.New("vphone: stream closed")

// Device is what answers the host behind a connection.
type Device interface {
	// Banner is the CNXN payload ("device::ro.product.name=…;features=…").
	Banner() string
	// Service opens the service the host names ("shell,v2:…", "sync:"),
	// or refuses it.
	Service(name string) (Service, error)
}

// Service serves one stream until it ends; the stream is closed after.
type Service func(ctx context.Context, s *Stream) error

// Conn is one host connection: the device side of an adb transport.
type Conn struct {
	dev    Device
	log    *slog.Logger
	conn   net.Conn
	ctx    context.Context
	cancel context.CancelFunc

	wmu sync.Mutex // serialises packet writes

	mu      sync.Mutex
	streams map[uint32]*Stream
	nextID  uint32
	maxData int // the host's maximum payload
	online  bool
}

// New is the device side of the host connection conn, for dev; Serve runs
// it. ctx ends it (and every stream).
func New(ctx context.Context, conn net.Conn, dev Device, log *slog.Logger) *Conn {
	ctx, cancel := context.WithCancel(ctx)
	return &Conn{dev: dev, log: log, conn: conn, ctx: ctx, cancel: cancel, streams: map[uint32]*Stream{}, maxData: deviceMaxData}
}

// Kill drops the connection at once, as an unplugged cable would.
func (t *Conn) Kill() {
	t.cancel()
	t.conn.Close()
}

func (t *Conn) send(pk packet) error {
	bufs := net.Buffers{pk.header()} // one writev, no copy of the payload
	if len(pk.data) > 0 {
		bufs = append(bufs, pk.data) // (an empty write would block a net.Pipe)
	}
	t.wmu.Lock()
	defer t.wmu.Unlock()
	if t.ctx.Err() != nil {
		return errStreamClosed
	}
	_, err := bufs.WriteTo(t.conn)
	if err != nil {
		t.Kill()
	}
	return err
}

// Serve reads packets until the connection ends.
func (t *Conn) Serve() {
	defer t.shutdown()
	go func() {
		<-t.ctx.Done()
		t.conn.Close()
	}()
	for {
		pk, err := readPacket(t.conn)
		if err != nil {
			if t.ctx.Err() == nil && !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				t.log.Debug("vphone: transport read", "err", err)
			}
			return
		}
		if err := t.handle(pk); err != nil {
			t.log.Debug("vphone: transport", "err", err)
			return
		}
	}
}

func (t *Conn) shutdown() {
	t.Kill()
	t.mu.Lock()
	streams := t.streams
	t.streams = map[uint32]*Stream{}
	t.mu.Unlock()
	for _, s := range streams {
		s.closeLocal(false)
	}
}

func (t *Conn) handle(pk packet) error {
	switch pk.cmd {
	case cmdCNXN:
		if pk.arg1 > 0 && pk.arg1 < uint32(t.maxData) {
			t.maxData = int(pk.arg1)
		}
		t.mu.Lock()
		t.online = true
		t.mu.Unlock()
		return t.send(packet{cmd: cmdCNXN, arg0: adbVersion, arg1: deviceMaxData, data: []byte(t.dev.Banner())})
	case cmdAUTH, cmdSYNC:
		// No AUTH: we never ask for it, and a host never starts it.
		return nil
	case cmdOPEN:
		t.mu.Lock()
		online := t.online
		t.mu.Unlock()
		if !online {
			return fmt.Errorf("%w: OPEN before CNXN", ErrBadPacket)
		}
		t.open(pk.arg0, strings.TrimRight(string(pk.data), "\x00"))
		return nil
	case cmdOKAY:
		if s := t.stream(pk.arg1); s != nil && s.remote == pk.arg0 {
			select {
			case s.ack <- struct{}{}:
			default:
			}
		}
		return nil
	case cmdWRTE:
		if s := t.stream(pk.arg1); s != nil && s.remote == pk.arg0 {
			s.push(pk.data)
		}
		return nil
	case cmdCLSE:
		if s := t.stream(pk.arg1); s != nil && (s.remote == pk.arg0 || pk.arg0 == 0) {
			s.closeLocal(false)
		}
		return nil
	default:
		return fmt.Errorf("%w: unknown command %q", ErrBadPacket, cmdName(pk.cmd))
	}
}

func (t *Conn) stream(id uint32) *Stream {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.streams[id]
}

// open starts a service for the host's OPEN, or refuses it with CLSE.
func (t *Conn) open(remote uint32, service string) {
	run, err := t.dev.Service(service)
	if err != nil {
		t.log.Debug("vphone: refused service", "service", service, "err", err)
		_ = t.send(packet{cmd: cmdCLSE, arg0: 0, arg1: remote})
		return
	}
	t.mu.Lock()
	t.nextID++
	s := newStream(t, t.nextID, remote)
	t.streams[s.local] = s
	t.mu.Unlock()
	if err := t.send(packet{cmd: cmdOKAY, arg0: s.local, arg1: remote}); err != nil {
		return
	}
	go func() {
		defer s.Close()
		if err := run(s.ctx, s); err != nil && s.ctx.Err() == nil {
			t.log.Debug("vphone: service", "service", service, "err", err)
		}
	}()
}

// Stream is one adb stream seen from the device: Write sends lock-step
// WRTE packets (each waits for the host's OKAY), Read returns the host's
// WRTE payloads and acknowledges each once it is consumed, so a slow
// consumer slows the host down instead of buffering without bound.
type Stream struct {
	t             *Conn
	local, remote uint32
	ctx           context.Context
	cancel        context.CancelFunc
	ack           chan struct{}

	wmu sync.Mutex

	mu     sync.Mutex
	in     [][]byte
	notify chan struct{}
	closed bool // either side closed
}

func newStream(t *Conn, local, remote uint32) *Stream {
	ctx, cancel := context.WithCancel(t.ctx)
	return &Stream{t: t, local: local, remote: remote, ctx: ctx, cancel: cancel,
		ack: make(chan struct{}, 1), notify: make(chan struct{}, 1)}
}

func (s *Stream) push(b []byte) {
	s.mu.Lock()
	if !s.closed {
		s.in = append(s.in, b)
	}
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// Read returns what the host wrote; io.EOF once the host closed the stream
// and everything was read.
func (s *Stream) Read(p []byte) (int, error) {
	for {
		s.mu.Lock()
		if len(s.in) > 0 {
			n := copy(p, s.in[0])
			s.in[0] = s.in[0][n:]
			done := len(s.in[0]) == 0
			if done {
				s.in = s.in[1:]
			}
			closed := s.closed
			s.mu.Unlock()
			if done && !closed {
				_ = s.t.send(packet{cmd: cmdOKAY, arg0: s.local, arg1: s.remote})
			}
			return n, nil
		}
		closed := s.closed
		s.mu.Unlock()
		if closed {
			return 0, io.EOF
		}
		select {
		case <-s.notify:
		case <-s.ctx.Done():
			s.mu.Lock()
			empty := len(s.in) == 0
			s.mu.Unlock()
			if empty {
				return 0, io.EOF
			}
		}
	}
}

// Write sends p in WRTE packets of at most the host's payload size, waiting
// for the host's OKAY after each.
func (s *Stream) Write(p []byte) (int, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	n := 0
	for len(p) > 0 {
		if s.ctx.Err() != nil {
			return n, errStreamClosed
		}
		c := min(len(p), s.t.maxData)
		if err := s.t.send(packet{cmd: cmdWRTE, arg0: s.local, arg1: s.remote, data: p[:c]}); err != nil {
			return n, errStreamClosed
		}
		select {
		case <-s.ack:
		case <-s.ctx.Done():
			return n, errStreamClosed
		}
		n += c
		p = p[c:]
	}
	return n, nil
}

// Close ends the stream from our side (CLSE to the host).
func (s *Stream) Close() error {
	s.closeLocal(true)
	return nil
}

func (s *Stream) closeLocal(sendCLSE bool) {
	s.mu.Lock()
	send := sendCLSE && !s.closed
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.t.mu.Lock()
	if s.t.streams[s.local] == s {
		delete(s.t.streams, s.local)
	}
	s.t.mu.Unlock()
	if send {
		_ = s.t.send(packet{cmd: cmdCLSE, arg0: s.local, arg1: s.remote})
	}
}

// MaxData is the largest payload the host takes in one packet.
func (s *Stream) MaxData() int { return s.t.maxData }

// Drop drops the whole connection the stream is on (a failure switch: an
// unplugged cable mid-command).
func (s *Stream) Drop() { s.t.Kill() }
