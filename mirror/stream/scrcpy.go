package stream

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"tandem/devices/adb"
	"tandem/internal/scrcpy"
)

// JarPaths are where scrcpy installations keep the server jar, searched in
// order after the TANDEM_SCRCPY_SERVER override.
var JarPaths = []string{
	"/usr/share/scrcpy/scrcpy-server",
	"/usr/local/share/scrcpy/scrcpy-server",
	"/opt/homebrew/share/scrcpy/scrcpy-server",
	"/snap/scrcpy/current/usr/share/scrcpy/scrcpy-server",
}

// FindJar returns the scrcpy-server jar to use: override when set (it must
// exist), else the first of JarPaths that exists, else "".
func FindJar(override string) (string, error) { return FindJarIn(override, JarPaths) }

// FindJarIn is FindJar searching paths instead of JarPaths.
func FindJarIn(override string, paths []string) (string, error) {
	if override != "" {
		if _, err := os.Stat(override); err != nil {
			return "", fmt.Errorf("scrcpy-server at %s: %w", override, err)
		}
		return override, nil
	}
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", nil
}

// ServerError is the scrcpy server exiting before it served video: its own
// words (for example "The server version (3.1) does not match the client").
type ServerError struct{ Output string }

func (e *ServerError) Error() string {
	if e.Output == "" {
		return "scrcpy-server exited without a word"
	}
	return "scrcpy-server: " + e.Output
}

// Scrcpy is the scrcpy-server path: the pushed jar runs under app_process,
// listens on scrcpy_<scid>; the video socket brings framed H.264 and the
// control socket takes touches, keys and clipboard pastes.
type Scrcpy struct {
	o       Options
	version string // the release spoken
	proto   scrcpy.Proto
	cancel  context.CancelFunc
	done    chan struct{}
	shell   *adb.Stream
	video   *adb.Stream
	ctl     *adb.Stream

	wmu sync.Mutex // one control message at a time

	mu     sync.Mutex
	err    error
	vw, vh int // current video size (touch coordinates)
	name   string
	out    bytes.Buffer // the server's output
}

// connectTimeout bounds the wait for the server's socket.
const connectTimeout = 10 * time.Second

// maxJar bounds the jar read (scrcpy-server is under 100 KiB).
const maxJar = 32 << 20

// StartScrcpy pushes the jar, starts the server in the protocol of the
// jar's release and connects. The release is read from the jar (cached per
// file in o.Versions); a jar that hides it is started as the pinned
// version, and the server's refusal, which names its own version, decides
// the one retry. A 1.x or 4.x server is an error wrapping scrcpy.ErrTooOld
// or ErrTooNew. ctx bounds the stream's life.
func StartScrcpy(ctx context.Context, o Options, emit func(Packet)) (*Scrcpy, error) {
	o.defaults()
	jar, err := readJar(o.ScrcpyJar)
	if err != nil {
		return nil, err
	}
	version, known := o.Versions.lookup(o.ScrcpyJar, jar)
	if known {
		if _, err := scrcpy.ProtoOf(version); err != nil {
			return nil, err
		}
	} else {
		version = scrcpy.Version
	}
	if err := o.Server.Push(ctx, o.Serial, jar, scrcpy.DeviceJarPath, 0o644); err != nil {
		return nil, err
	}
	s, err := startServer(ctx, o, version, emit)
	var se *ServerError
	if known || !errors.As(err, &se) {
		return s, err
	}
	theirs, ok := scrcpy.RefusedBy(se.Output)
	if !ok || theirs == version {
		return nil, err
	}
	o.Versions.remember(o.ScrcpyJar, theirs)
	if _, perr := scrcpy.ProtoOf(theirs); perr != nil {
		return nil, perr
	}
	return startServer(ctx, o, theirs, emit)
}

func readJar(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read the scrcpy-server jar: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxJar+1))
	if err != nil {
		return nil, fmt.Errorf("read the scrcpy-server jar: %w", err)
	}
	if len(b) > maxJar {
		return nil, fmt.Errorf("%s is not a scrcpy-server jar (larger than %d MiB)", path, maxJar>>20)
	}
	return b, nil
}

// startServer runs the pushed jar as release version and connects.
func startServer(ctx context.Context, o Options, version string, emit func(Packet)) (*Scrcpy, error) {
	var rb [4]byte
	if _, err := rand.Read(rb[:]); err != nil {
		return nil, err
	}
	opts := scrcpy.Options{SCID: binary.BigEndian.Uint32(rb[:]) & 0x7fffffff, MaxSize: o.MaxSide, MaxFPS: o.MaxFPS, BitRate: o.BitRate, Control: true, Version: version}
	proto, err := scrcpy.ProtoOf(version)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &Scrcpy{o: o, cancel: cancel, done: make(chan struct{}), version: version, proto: proto}
	fail := func(err error) (*Scrcpy, error) {
		cancel()
		s.closeStreams()
		return nil, err
	}
	s.shell, err = o.Server.Open(ctx, o.Serial, "shell:"+opts.Command())
	if err != nil {
		return fail(err)
	}
	exited := make(chan struct{})
	go s.keepOutput(exited)
	socket := "localabstract:" + scrcpy.SocketName(opts.SCID)
	if s.video, err = s.connect(ctx, socket, exited); err != nil {
		return fail(err)
	}
	if s.ctl, err = o.Server.Open(ctx, o.Serial, socket); err != nil {
		return fail(fmt.Errorf("scrcpy control socket: %w", err))
	}
	h, err := proto.ReadVideoHeader(s.video)
	if err != nil {
		return fail(fmt.Errorf("scrcpy video header: %w", err))
	}
	if h.Codec != scrcpy.CodecH264 {
		return fail(fmt.Errorf("scrcpy-server sends codec %08x, not H.264", h.Codec))
	}
	s.vw, s.vh, s.name = h.Width, h.Height, h.DeviceName
	if proto.Sessions { // 4.x: the size comes with the first session
		first, err := proto.ReadPacket(s.video)
		if err != nil || !first.Session {
			return fail(fmt.Errorf("scrcpy video: no session packet first (%v)", err))
		}
		s.vw, s.vh = first.Width, first.Height
	}
	go func() { _ = scrcpy.DrainDeviceMessages(s.ctl) }()
	go s.read(ctx, emit, exited)
	return s, nil
}

// keepOutput keeps the first 8 KiB the server prints (its errors) and
// closes exited when the server's shell ends.
func (s *Scrcpy) keepOutput(exited chan<- struct{}) {
	defer close(exited)
	buf := make([]byte, 4096)
	for {
		n, err := s.shell.Read(buf)
		s.mu.Lock()
		if s.out.Len() < 8192 {
			s.out.Write(buf[:n])
		}
		s.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// connect opens the video socket: the server listens only once it runs, so
// it retries until the server's dummy byte arrives, the server exits, or
// connectTimeout passes.
func (s *Scrcpy) connect(ctx context.Context, socket string, exited <-chan struct{}) (*adb.Stream, error) {
	deadline := time.Now().Add(connectTimeout)
	// The sockets live while the server does: an attempt ends when the
	// server exits (a refusal: the open of a socket nobody will listen on
	// need not run its course), and so does a stream it served.
	actx, cancel := context.WithCancel(ctx)
	go func() {
		defer cancel()
		select {
		case <-exited:
		case <-ctx.Done():
		}
	}()
	for {
		st, err := s.o.Server.Open(actx, s.o.Serial, socket)
		if err == nil {
			var b [1]byte
			if _, err = io.ReadFull(st, b[:]); err == nil {
				return st, nil
			}
			st.Close()
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		select {
		case <-exited:
			return nil, &ServerError{Output: s.output()}
		default:
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("scrcpy-server did not listen within %v: %s", connectTimeout, s.output())
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-exited:
		case <-time.After(30 * time.Millisecond):
		}
	}
}

func (s *Scrcpy) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.TrimSpace(strings.ToValidUTF8(s.out.String(), "?"))
}

func (s *Scrcpy) read(ctx context.Context, emit func(Packet), exited <-chan struct{}) {
	defer close(s.done)
	defer s.closeStreams()
	for {
		p, err := s.proto.ReadPacket(s.video)
		if err != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
			} else if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				err = fmt.Errorf("scrcpy video ended: %w (%s)", err, s.output())
			}
			s.mu.Lock()
			s.err = err
			s.mu.Unlock()
			return
		}
		if p.Session { // 4.x: a new capture session, at this size
			s.mu.Lock()
			s.vw, s.vh = p.Width, p.Height
			s.mu.Unlock()
			continue
		}
		pk := Packet{Config: p.Config, Key: p.Key, Data: p.Data, At: time.Now()}
		s.mu.Lock()
		if p.Config && !s.proto.Sessions {
			if i := startCodeLen(p.Data); i > 0 && len(p.Data) > i && p.Data[i]&0x1f == nalSPS {
				if w, h, err := spsSize(p.Data[i:]); err == nil {
					s.vw, s.vh = w, h
				}
			}
		}
		pk.Width, pk.Height = s.vw, s.vh
		s.mu.Unlock()
		emit(pk)
	}
}

func (s *Scrcpy) closeStreams() {
	for _, st := range []*adb.Stream{s.video, s.ctl, s.shell} {
		if st != nil {
			st.Close()
		}
	}
}

// Version is the scrcpy-server release this stream speaks.
func (s *Scrcpy) Version() string { return s.version }

// Path is PathScrcpy.
func (s *Scrcpy) Path() Path { return PathScrcpy }

// Done is closed when the stream ended.
func (s *Scrcpy) Done() <-chan struct{} { return s.done }

// Err says why the stream ended.
func (s *Scrcpy) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close stops the server (closing its sockets ends it) and waits.
func (s *Scrcpy) Close() error {
	s.cancel()
	<-s.done
	return nil
}

// VideoSize is the current video size.
func (s *Scrcpy) VideoSize() (int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.vw, s.vh
}

func (s *Scrcpy) send(ctx context.Context, m scrcpy.Msg) error {
	b, err := m.Marshal()
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if dl, ok := ctx.Deadline(); ok {
		_ = s.ctl.SetWriteDeadline(dl)
		defer s.ctl.SetWriteDeadline(time.Time{})
	}
	_, err = s.ctl.Write(b)
	return err
}

// Touch sends a finger event at screen pixel (x, y), mapped to the video's
// size (the server ignores events for another size).
func (s *Scrcpy) Touch(ctx context.Context, action byte, x, y int) error {
	s.mu.Lock()
	vw, vh := s.vw, s.vh
	s.mu.Unlock()
	sw, sh := s.o.Screen[0], s.o.Screen[1]
	// A rotated phone: the video is landscape while Screen was portrait.
	if (vw > vh) != (sw > sh) {
		sw, sh = sh, sw
	}
	if sw <= 0 || sh <= 0 {
		sw, sh = vw, vh
	}
	vx := int32(int64(x) * int64(vw) / int64(sw))
	vy := int32(int64(y) * int64(vh) / int64(sh))
	pressure := uint16(0xffff)
	if action == scrcpy.ActionUp {
		pressure = 0
	}
	return s.send(ctx, scrcpy.Msg{Type: scrcpy.TypeInjectTouch, Touch: &scrcpy.Touch{Action: action, PointerID: scrcpy.PointerFinger,
		X: vx, Y: vy, Width: uint16(vw), Height: uint16(vh), Pressure: pressure}})
}

// Key presses and releases an Android key code.
func (s *Scrcpy) Key(ctx context.Context, code int) error {
	for _, a := range []byte{scrcpy.ActionDown, scrcpy.ActionUp} {
		if err := s.send(ctx, scrcpy.Msg{Type: scrcpy.TypeInjectKeycode, Key: &scrcpy.Key{Action: a, Code: uint32(code)}}); err != nil {
			return err
		}
	}
	return nil
}

// Paste types text of any script: the phone's clipboard is set and pasted.
func (s *Scrcpy) Paste(ctx context.Context, text string) error {
	return s.send(ctx, scrcpy.Msg{Type: scrcpy.TypeSetClipboard, Clipboard: &scrcpy.Clipboard{Paste: true, Text: text}})
}
