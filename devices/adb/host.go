package adb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"tandem/engine/device"
)

// DefaultAddr is where adb's server listens unless told otherwise.
const DefaultAddr = "127.0.0.1:5037"

// Server addresses one adb server. The zero value means the default server
// on 127.0.0.1:5037 started, when needed, with "adb" from PATH.
type Server struct {
	Addr string // host:port of the adb server; "" = DefaultAddr
	ADB  string // the adb binary used by Start; "" = "adb" from PATH
	// Env is added to the environment of a server Start launches (tests
	// pass ADB_LOCAL_TRANSPORT_MAX_PORT=0 so it never scans for emulators).
	Env []string
	// Patience bounds the server's answer to each request (its status, a
	// query's reply) and a connection's dial; 0 is ReplyTimeout.
	Patience time.Duration
}

// ReplyTimeout is how long an adb server may take to answer a request: a
// server that accepted the connection and never answers (a stuck tunnel,
// a hung host) is given up on, never waited on for ever. A local server
// answers in milliseconds; one across a network within a second or two.
const ReplyTimeout = 15 * time.Second

// SilentError means the adb server did not answer a request in time.
type SilentError struct {
	Addr, Request string
	After         time.Duration
}

func (e *SilentError) Error() string {
	return fmt.Sprintf("the adb server at %s did not answer %s within %s", e.Addr, clip(e.Request, 60), e.After)
}

func (s Server) patience() time.Duration {
	if s.Patience > 0 {
		return s.Patience
	}
	return ReplyTimeout
}

// ErrNoServer means nothing listens on the server's address.
var ErrNoServer = errors.New("no adb server running")

// FailError is the adb server's FAIL reply to a request.
type FailError struct {
	Request string
	Msg     string
}

func (e *FailError) Error() string {
	return fmt.Sprintf("adb %s: %s", clip(e.Request, 60), clip(e.Msg, maxQuoted))
}

// maxQuoted bounds what an error quotes of what a server or phone sent.
const maxQuoted = 200

// gone reports whether the server refused because the device is not there
// (unplugged, offline, never connected). The server's reply is free text,
// so this is the one place that reads it; these phrases come from
// adb's transport.cpp (acquire_one_transport) and are stable across versions.
func (e *FailError) gone() bool {
	m := e.Msg
	return strings.HasPrefix(m, "device '") && strings.HasSuffix(m, "' not found") ||
		m == "device offline" || strings.HasPrefix(m, "device offline") ||
		m == "no devices/emulators found" || strings.HasPrefix(m, "device still ")
}

func (s Server) addr() string {
	if s.Addr == "" {
		return DefaultAddr
	}
	return s.Addr
}

// remote reports whether the server is on another computer (its address is
// not loopback), so what the phone sends crosses a network.
func (s Server) remote() bool {
	host, _, err := net.SplitHostPort(s.addr())
	if err != nil || host == "localhost" {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}

// conn is one connection to the adb server. It is closed when its context
// ends, which wakes any blocked read or write, so no call outlives its ctx.
type conn struct {
	net.Conn
	ctx      context.Context
	stop     func() bool
	addr     string
	patience time.Duration
}

func (s Server) dial(ctx context.Context) (*conn, error) {
	d := net.Dialer{Timeout: s.patience()}
	c, err := d.DialContext(ctx, "tcp", s.addr())
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("%w at %s", ErrNoServer, s.addr())
		}
		return nil, fmt.Errorf("adb server %s: %w", s.addr(), err)
	}
	return &conn{Conn: c, ctx: ctx, stop: context.AfterFunc(ctx, func() { c.Close() }), addr: s.addr(), patience: s.patience()}, nil
}

// answer reads the server's answer to req with read, within the
// server's patience (a *SilentError past it).
func (c *conn) answer(req string, read func() error) error {
	_ = c.SetReadDeadline(time.Now().Add(c.patience))
	err := read()
	_ = c.SetReadDeadline(time.Time{})
	var ne net.Error
	if err != nil && c.ctx.Err() == nil && errors.As(err, &ne) && ne.Timeout() {
		return &SilentError{Addr: c.addr, Request: req, After: c.patience}
	}
	return err
}

// Close stops watching the context and closes the connection.
func (c *conn) Close() error {
	c.stop()
	return c.Conn.Close()
}

// wrap turns an I/O error into ctx.Err() when the context ended it.
func (c *conn) wrap(err error) error {
	if err != nil && c.ctx.Err() != nil {
		return c.ctx.Err()
	}
	return err
}

func (c *conn) send(req string) error {
	if len(req) > 0xffff {
		return fmt.Errorf("adb request too long (%d bytes)", len(req))
	}
	_, err := fmt.Fprintf(c, "%04x%s", len(req), req)
	return c.wrap(err)
}

// status reads OKAY, or FAIL and its message, within the server's
// patience.
func (c *conn) status(req string) error {
	return c.answer(req, func() error { return c.readStatus(req) })
}

func (c *conn) readStatus(req string) error {
	var st [4]byte
	if _, err := io.ReadFull(c, st[:]); err != nil {
		return c.wrap(fmt.Errorf("adb %s: reading status: %w", req, err))
	}
	switch string(st[:]) {
	case "OKAY":
		return nil
	case "FAIL":
		msg, err := c.readString()
		if err != nil {
			return c.wrap(fmt.Errorf("adb %s: reading failure: %w", req, err))
		}
		return &FailError{Request: req, Msg: msg}
	}
	return fmt.Errorf("adb %s: bad status %q", clip(req, 60), st[:])
}

// readString reads one hex4-length-prefixed string.
func (c *conn) readString() (string, error) {
	var n [4]byte
	if _, err := io.ReadFull(c, n[:]); err != nil {
		return "", c.wrap(err)
	}
	size, err := strconv.ParseUint(string(n[:]), 16, 16)
	if err != nil {
		return "", fmt.Errorf("adb: bad length %q", n[:])
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(c, b); err != nil {
		return "", c.wrap(err)
	}
	return string(b), nil
}

// request opens a connection, sends req and checks the status.
func (s Server) request(ctx context.Context, req string) (*conn, error) {
	c, err := s.dial(ctx)
	if err != nil {
		return nil, err
	}
	if err := c.send(req); err != nil {
		c.Close()
		return nil, err
	}
	if err := c.status(req); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Query sends a host request whose answer is one length-prefixed string
// (host:version, host:devices-l, host-serial:S:get-state, host:connect:...).
// A host query only reads, so a connection that breaks under it is asked
// again once.
func (s Server) Query(ctx context.Context, req string) (string, error) {
	return again(ctx, func() (string, error) {
		c, err := s.request(ctx, req)
		if err != nil {
			return "", err
		}
		defer c.Close()
		var reply string
		err = c.answer(req, func() (err error) {
			reply, err = c.readString()
			return err
		})
		return reply, err
	})
}

// Version returns the server's internal version (41 for adb 29).
func (s Server) Version(ctx context.Context) (int, error) {
	v, err := s.Query(ctx, "host:version")
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(v, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("adb host:version: bad reply %q", clip(v, 40))
	}
	return int(n), nil
}

// Kill asks the server to exit.
func (s Server) Kill(ctx context.Context) error {
	c, err := s.request(ctx, "host:kill")
	if err != nil {
		return err
	}
	return c.Close()
}

// Start runs `adb -P PORT start-server`, as the adb client does when it
// finds no server. It returns once the server answers host:version.
func (s Server) Start(ctx context.Context) error {
	host, port, err := net.SplitHostPort(s.addr())
	if err != nil {
		return fmt.Errorf("adb server address %q: %w", s.addr(), err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%w at %s, and a server on another machine cannot be started from here", ErrNoServer, s.addr())
	}
	bin := s.ADB
	if bin == "" {
		bin = "adb"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return fmt.Errorf("%w, and the adb program was not found (install Android platform-tools, e.g. `apt install adb`): %v", ErrNoServer, err)
	}
	cmd := exec.CommandContext(ctx, path, "-P", port, "start-server")
	cmd.Env = append(os.Environ(), s.Env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("adb start-server: %v: %s", err, strings.TrimSpace(string(out)))
	}
	_, err = s.Version(ctx)
	return err
}

// Ensure returns nil when the server answers, starting it when nothing
// listens on a local address.
func (s Server) Ensure(ctx context.Context) error {
	_, err := s.Version(ctx)
	if errors.Is(err, ErrNoServer) {
		return s.Start(ctx)
	}
	return err
}

// Open connects to service on the device with this serial (host:transport
// then the service request) and returns the raw stream. The stream closes
// when ctx ends. Services: "exec:CMD", "shell:CMD", "shell,v2,raw:CMD",
// "sync:", "localabstract:NAME", "tcp:PORT".
//
// A connection that breaks before the server took the transport is opened
// once more: nothing of the service reached the device yet, so this is
// safe for any service, an input too.
func (s Server) Open(ctx context.Context, serial, service string) (*Stream, error) {
	c, err := again(ctx, func() (*conn, error) { return s.request(ctx, "host:transport:"+serial) })
	if err != nil {
		return nil, s.classify(ctx, serial, err)
	}
	if err := c.send(service); err != nil {
		c.Close()
		return nil, s.classify(ctx, serial, err)
	}
	if err := c.status(service); err != nil {
		c.Close()
		return nil, s.classify(ctx, serial, err)
	}
	return &Stream{conn: c, service: service}, nil
}

// Stream is an open service stream on a device.
type Stream struct {
	*conn
	service string
	// idle bounds the wait for each read of a command's output (finite);
	// 0 for a stream that may rest (a video).
	idle time.Duration
}

// finite bounds each read of a command's stream (a shell command, a
// screencap) on another computer's server: a server or a phone that goes
// silent mid-command ends it within two patiences, rather than never.
// A local server's phone is left to its command's own time.
func (s Server) finite(st *Stream) *Stream {
	if s.remote() || s.Patience > 0 {
		st.idle = 2 * s.patience()
	}
	return st
}

// Read reads from the device; a read cut short by the context returns
// ctx.Err(), one the idle bound ended a *SilentError.
func (st *Stream) Read(p []byte) (int, error) {
	if st.idle > 0 {
		_ = st.SetReadDeadline(time.Now().Add(st.idle))
	}
	n, err := st.conn.Read(p)
	var ne net.Error
	switch {
	case err == nil || errors.Is(err, io.EOF):
	case st.idle > 0 && st.ctx.Err() == nil && errors.As(err, &ne) && ne.Timeout():
		err = &SilentError{Addr: st.addr, Request: st.service, After: st.idle}
	default:
		err = st.wrap(err)
	}
	return n, err
}

// Write writes to the device.
func (st *Stream) Write(p []byte) (int, error) {
	n, err := st.conn.Write(p)
	return n, st.wrap(err)
}

// State returns the device's state as the server sees it: "device",
// "offline", "unauthorized", ... A device the server does not know is
// reported as ErrGone.
func (s Server) State(ctx context.Context, serial string) (string, error) {
	st, err := s.Query(ctx, "host-serial:"+serial+":get-state")
	var fe *FailError
	if errors.As(err, &fe) && fe.gone() {
		return "", fmt.Errorf("%w: %s", device.ErrGone, fe.Msg)
	}
	return st, err
}

// Features returns the device's adb features (shell_v2, cmd, ...).
func (s Server) Features(ctx context.Context, serial string) ([]string, error) {
	f, err := s.Query(ctx, "host-serial:"+serial+":features")
	if err != nil {
		return nil, s.classify(ctx, serial, err)
	}
	return strings.Split(strings.TrimSpace(f), ","), nil
}

// Forward forwards local (e.g. "tcp:0", "tcp:27183") to remote on the device
// (e.g. "localabstract:scrcpy_0000abcd", "tcp:8080") and returns the local
// TCP port (useful with tcp:0).
func (s Server) Forward(ctx context.Context, serial, local, remote string) (int, error) {
	req := "host-serial:" + serial + ":forward:" + local + ";" + remote
	c, err := s.request(ctx, req)
	if err != nil {
		return 0, s.classify(ctx, serial, err)
	}
	defer c.Close()
	// The server answers OKAY for the host request, then OKAY (or FAIL)
	// for the forward itself, then the port when it picked one.
	if err := c.status(req); err != nil {
		return 0, s.classify(ctx, serial, err)
	}
	if p, ok := strings.CutPrefix(local, "tcp:"); ok && p != "0" {
		return strconv.Atoi(p)
	}
	port, err := c.readString()
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(port))
}

// KillForward removes the forward from local.
func (s Server) KillForward(ctx context.Context, serial, local string) error {
	c, err := s.request(ctx, "host-serial:"+serial+":killforward:"+local)
	if err != nil {
		return s.classify(ctx, serial, err)
	}
	return c.Close()
}

// classify turns a failure into ErrGone when the device is no longer there:
// the server said so, or the stream broke and the server no longer lists
// the device as online. A broken stream is confirmed by polling the state
// briefly, because the server updates it a moment after closing streams.
func (s Server) classify(ctx context.Context, serial string, err error) error {
	if err == nil || ctx.Err() != nil || errors.Is(err, device.ErrGone) || errors.Is(err, ErrNoServer) {
		return err
	}
	var fe *FailError
	if errors.As(err, &fe) {
		if fe.gone() {
			return fmt.Errorf("%w: %s", device.ErrGone, fe.Msg)
		}
		// A host request refused is final. A service refused ("closed")
		// may be the transport dying under it: check the state below.
		if strings.HasPrefix(fe.Request, "host") {
			return err
		}
	} else if !broken(err) {
		return err
	}
	pctx, cancel := context.WithTimeout(ctx, 600*time.Millisecond)
	defer cancel()
	for {
		st, serr := s.State(pctx, serial)
		switch {
		case errors.Is(serr, device.ErrGone):
			return fmt.Errorf("%w: %v", device.ErrGone, err)
		case serr == nil && st != "device":
			return fmt.Errorf("%w (%s): %v", device.ErrGone, st, err)
		case errors.Is(serr, ErrNoServer):
			return fmt.Errorf("%w: adb server stopped: %v", device.ErrGone, err)
		}
		select {
		case <-pctx.Done():
			return err
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// errStreamBroken marks a stream that ended before its protocol said it was done.
var errStreamBroken = errors.New("stream ended early")

// broken reports whether err means the connection to the device broke.
func broken(err error) bool {
	var ne net.Error
	return errors.Is(err, errStreamBroken) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.As(err, &ne)
}

// retryable reports whether err is the connection to the adb server
// breaking (reset, cut short) while the device is still there, rather than
// an answer: asking again is safe when nothing reached the device yet, or
// when the request only reads.
func retryable(ctx context.Context, err error) bool {
	var fe *FailError
	return err != nil && ctx.Err() == nil && !errors.As(err, &fe) &&
		!errors.Is(err, device.ErrGone) && !errors.Is(err, ErrNoServer) && broken(err)
}

// again runs read, and once more when its connection broke (retryable):
// one dropped connection must not end a run nobody watches. Only for what
// changes nothing on the phone: an input whose answer was lost may have
// landed, and is not repeated.
func again[T any](ctx context.Context, read func() (T, error)) (T, error) {
	v, err := read()
	if retryable(ctx, err) {
		return read()
	}
	return v, err
}
