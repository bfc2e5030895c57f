package vphone

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"tandem/internal/scrcpy"

	"tandem/vphone/encode"
	"tandem/vphone/shell"
)

// The scrcpy-compatible endpoint. A client pushes its server jar and runs
// `CLASSPATH=/data/local/tmp/scrcpy-server.jar app_process / <class>
// <version> scid=... tunnel_forward=true ...`; the phone then listens on the
// abstract socket scrcpy_<scid>, accepts the video connection (dummy byte,
// device name, codec meta, framed H.264) and the control connection, and
// applies touches, keys, text and clipboard pastes to the model. Like the
// real server it refuses a client of another version (in that release's
// own words), and it needs the jar to have been pushed. It plays the
// release the pushed jar names (its BuildConfig, scrcpy.JarVersion), else
// the one a test set with SetScrcpyVersion, else the pinned scrcpy.Version;
// each release from 2.0 is played as its own Java code reads options and
// control messages (scrcpy.Proto).

// SetScrcpyVersion makes the phone's scrcpy endpoint play another server
// version when the pushed jar does not name one.
func (p *Phone) SetScrcpyVersion(v string) {
	p.mu.Lock()
	p.scrcpyVersion = v
	p.mu.Unlock()
}

// ScrcpySessions counts the scrcpy server sessions that reached streaming.
func (p *Phone) ScrcpySessions() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.scrcpySessions
}

// ScrcpyRefusals counts the clients the scrcpy endpoint refused for their
// version.
func (p *Phone) ScrcpyRefusals() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.scrcpyRefused
}

func (p *Phone) serverVersion() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.scrcpyVersion == "" {
		return scrcpy.Version
	}
	return p.scrcpyVersion
}

// cmdAppProcess runs a Java class; the only one on this phone is the scrcpy
// server, found through CLASSPATH.
func cmdAppProcess(p *Phone, c *shell.IO, args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(c.Err, "Usage: app_process [java-options] cmd-dir start-class-name [options]")
		return 1
	}
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		args = args[1:]
	}
	if len(args) < 2 {
		fmt.Fprintln(c.Err, "Usage: app_process [java-options] cmd-dir start-class-name [options]")
		return 1
	}
	class := args[1]
	cp := c.Env["CLASSPATH"]
	if _, err := p.fs.stat(cp); err != nil || cp == "" || class != scrcpy.ServerClass {
		fmt.Fprintf(c.Err, "Error: Could not find class '%s' (CLASSPATH=%s)\n", class, cp)
		return 1
	}
	if len(args) < 3 {
		fmt.Fprintln(c.Err, "[server] ERROR: Missing client version")
		return 1
	}
	proto, ok := p.scrcpyRelease(c, cp, args[2])
	if !ok {
		return 1
	}
	if args[2] != proto.Version { // checked before any option is read
		p.mu.Lock()
		p.scrcpyRefused++
		p.mu.Unlock()
		fmt.Fprint(c.Err, proto.Refusal(args[2]))
		return 1
	}
	a, err := scrcpy.ParseServerArgs(proto, args[2:])
	if err != nil {
		fmt.Fprintf(c.Err, "[server] ERROR: %v\n", err)
		return 1
	}
	for _, k := range a.Unknown {
		fmt.Fprintf(c.Err, "[server] WARN: Unknown server option: %s\n", k)
	}
	switch {
	case a.VideoCodec != "h264":
		fmt.Fprintf(c.Err, "[server] ERROR: Video encoder for %q not supported by the virtual phone (h264 only)\n", a.VideoCodec)
		return 1
	case !a.TunnelForward:
		fmt.Fprintln(c.Err, "[server] ERROR: The virtual phone supports tunnel_forward=true only (no adb reverse)")
		return 1
	case a.Audio:
		fmt.Fprintln(c.Err, "[server] WARN: Audio disabled: the virtual phone has no audio")
	}
	name := "localabstract:scrcpy"
	if a.HasSCID {
		name = "localabstract:" + scrcpy.SocketName(a.SCID)
	}
	fmt.Fprintf(c.Out, "[server] INFO: Device: [%s] %s %s (Android %s)\n", p.props["ro.product.manufacturer"], p.props["ro.product.brand"], p.opts.Model, p.props["ro.build.version.release"])
	if err := p.serveScrcpy(c.Ctx, name, proto, a); err != nil {
		fmt.Fprintf(c.Err, "[server] ERROR: %v\n", err)
		return 1
	}
	return 0
}

// scrcpyRelease is the release the jar at path plays. A 1.x jar refuses
// every client of 2.0 and later in its own words (v1.25 Server.java: the
// uncaught handler's line on stdout, the stack trace on stderr) before the
// fake would have to speak 1.x; a release the fake cannot play says so.
func (p *Phone) scrcpyRelease(c *shell.IO, path, client string) (scrcpy.Proto, bool) {
	v := p.serverVersion()
	if jar, err := p.fs.read(path); err == nil {
		if jv, err := scrcpy.JarVersion(jar); err == nil {
			v = jv
		}
	}
	proto, err := scrcpy.ProtoOf(v)
	if err == nil {
		return proto, true
	}
	if errors.Is(err, scrcpy.ErrTooOld) {
		p.mu.Lock()
		p.scrcpyRefused++
		p.mu.Unlock()
		fmt.Fprintln(c.Out, "[server] ERROR: Exception on thread Thread[main,5,main]")
		fmt.Fprintf(c.Err, "java.lang.IllegalArgumentException: The server version (%s) does not match the client (%s)\n", v, client)
		return proto, false
	}
	fmt.Fprintf(c.Err, "[server] ERROR: the virtual phone does not play scrcpy-server %s\n", v)
	return proto, false
}

// scrcpyConn is one accepted connection; closing done ends its handler.
type scrcpyConn struct {
	rw   io.ReadWriteCloser
	done chan struct{}
}

// serveScrcpy listens on name, accepts the sockets and streams until a
// socket closes or ctx ends.
func (p *Phone) serveScrcpy(ctx context.Context, name string, proto scrcpy.Proto, a scrcpy.ServerArgs) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	l := p.listenScrcpy(ctx, cancel, name)
	defer l.close()
	video, err := l.accept(ctx)
	if err != nil {
		return nil // the client gave up before connecting
	}
	p.mu.Lock()
	dw, dh := p.displaySize()
	p.mu.Unlock()
	w, h := scrcpySize(dw, dh, a.MaxSize)
	size := &videoSize{w: w, h: h}
	if a.SendMeta {
		err = proto.WriteVideoHeader(video.rw, scrcpy.VideoHeader{DeviceName: p.opts.Model, Codec: scrcpy.CodecH264, Width: w, Height: h}, a.SendDummyByte)
	} else if a.SendDummyByte {
		_, err = video.rw.Write([]byte{0})
	}
	if err != nil {
		return nil
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	if a.Control {
		control, err := l.accept(ctx)
		if err != nil {
			return nil
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer cancel()
			p.scrcpyControl(ctx, proto, control.rw, size)
		}()
	}
	l.unlisten()
	p.mu.Lock()
	p.scrcpySessions++
	p.mu.Unlock()
	err = p.streamScrcpy(ctx, video.rw, proto, a, size)
	cancel()
	if errors.Is(err, encode.ErrNoEncoder) {
		return err
	}
	return nil
}

// scrcpyListener hands the sockets the client opens on the server's name
// to the session, in order (video, then control).
type scrcpyListener struct {
	p         *Phone
	name      string
	accepted  chan scrcpyConn
	conns     []scrcpyConn
	listening bool
}

// listenScrcpy listens on name; a socket the client closes ends the
// session (cancel).
func (p *Phone) listenScrcpy(ctx context.Context, cancel context.CancelFunc, name string) *scrcpyListener {
	l := &scrcpyListener{p: p, name: name, accepted: make(chan scrcpyConn), listening: true}
	p.HandleSocket(name, func(hctx context.Context, rw io.ReadWriteCloser) error {
		c := scrcpyConn{rw: rw, done: make(chan struct{})}
		select {
		case l.accepted <- c:
		case <-hctx.Done():
			return nil
		case <-ctx.Done():
			return nil
		}
		select {
		case <-c.done:
		case <-hctx.Done():
			cancel() // the client closed a socket: the session ends
		}
		return nil
	})
	return l
}

func (l *scrcpyListener) accept(ctx context.Context) (scrcpyConn, error) {
	select {
	case c := <-l.accepted:
		l.conns = append(l.conns, c)
		return c, nil
	case <-ctx.Done():
		return scrcpyConn{}, ctx.Err()
	}
}

// unlisten stops taking sockets: the real server listens for its sockets
// only until they are open.
func (l *scrcpyListener) unlisten() {
	if l.listening {
		l.p.HandleSocket(l.name, nil)
		l.listening = false
	}
}

// close stops listening and lets the sockets' handlers return.
func (l *scrcpyListener) close() {
	l.unlisten()
	for _, c := range l.conns {
		close(c.done)
	}
}

// streamScrcpy sends the screen as H.264 on video until ctx ends or the
// stream fails. When the display turns, the encoder restarts at the new
// size: a new config packet and key frame follow, as from the real server.
func (p *Phone) streamScrcpy(ctx context.Context, video io.Writer, proto scrcpy.Proto, a scrcpy.ServerArgs, size *videoSize) error {
	start := time.Now()
	for {
		w, h := size.get()
		if proto.Sessions && a.SendMeta { // 4.x: each capture session starts with its size
			if err := proto.WritePacket(video, scrcpy.Packet{Session: true, Width: w, Height: h}); err != nil {
				return err
			}
		}
		err := encode.Stream(ctx, screen{p}, encode.Options{Width: w, Height: h, BitRate: a.BitRate, MaxFPS: a.MaxFPS, GOP: 600,
			RepeatAfter: 100 * time.Millisecond}, p.heldPictures(ctx, func(pk encode.Packet) error {
			sp := scrcpy.Packet{Config: pk.Config, Key: pk.Key, Data: pk.Data}
			if !pk.Config {
				sp.PTS = uint64(pk.At.Sub(start).Microseconds())
			}
			if a.SendMeta {
				return proto.WritePacket(video, sp)
			}
			_, err := video.Write(pk.Data)
			return err
		}))
		if !errors.Is(err, encode.ErrRotated) || ctx.Err() != nil {
			return err
		}
		p.mu.Lock()
		dw, dh := p.displaySize()
		p.mu.Unlock()
		size.set(scrcpySize(dw, dh, a.MaxSize))
	}
}

// videoSize is the session's current video size, shared with the control
// reader (touches refer to it).
type videoSize struct {
	mu   sync.Mutex
	w, h int
}

func (v *videoSize) set(w, h int) {
	v.mu.Lock()
	v.w, v.h = w, h
	v.mu.Unlock()
}

func (v *videoSize) get() (int, int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.w, v.h
}

// scrcpySize is the video size for max_size: the longer side at most
// maxSize, both sides multiples of 8, as the server rounds for encoders.
func scrcpySize(w, h, maxSize int) (int, int) {
	if maxSize > 0 && max(w, h) > maxSize {
		if w >= h {
			h, w = h*maxSize/w, maxSize
		} else {
			w, h = w*maxSize/h, maxSize
		}
	}
	return w &^ 7, h &^ 7
}

// scrcpyControl applies the client's control messages until the socket
// ends. Touch coordinates are in video pixels (vw x vh); an event for
// another size is ignored, as the real server does after a rotation.
func (p *Phone) scrcpyControl(ctx context.Context, proto scrcpy.Proto, rw io.ReadWriter, size *videoSize) {
	for ctx.Err() == nil {
		m, err := scrcpy.ReadMsgOf(proto, rw)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				p.log.Debug("vphone: scrcpy control", "err", err)
			}
			return
		}
		vw, vh := size.get()
		switch m.Type {
		case scrcpy.TypeInjectTouch:
			p.scrcpyTouch(m.Touch, vw, vh)
		case scrcpy.TypeInjectKeycode:
			if m.Key.Action == scrcpy.ActionDown {
				p.scrcpyKey(int(m.Key.Code))
			}
		case scrcpy.TypeBackOrScreenOn:
			if m.Action == scrcpy.ActionDown {
				p.scrcpyKey(4) // BACK
			}
		case scrcpy.TypeInjectText:
			p.scrcpyText(m.Text)
		case scrcpy.TypeSetClipboard:
			if err := p.scrcpyClipboard(rw, m.Clipboard); err != nil {
				return
			}
		case scrcpy.TypeInjectScroll:
			p.scrcpyScroll(m.Scroll, vw, vh)
		}
	}
}

// scrcpyTouch is one touch event in video pixels (vw x vh).
func (p *Phone) scrcpyTouch(t *scrcpy.Touch, vw, vh int) {
	if int(t.Width) != vw || int(t.Height) != vh {
		p.log.Debug("vphone: scrcpy touch for another video size ignored", "w", t.Width, "h", t.Height)
		return
	}
	kind, action := "", ""
	switch t.Action {
	case scrcpy.ActionDown:
		kind, action = "touch_down", "DOWN"
	case scrcpy.ActionMove:
		kind, action = "touch_move", "MOVE"
	case scrcpy.ActionUp:
		kind, action = "touch_up", "UP"
	case scrcpy.ActionCancel:
		kind, action = "touch_cancel", "CANCEL"
	default:
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	x, y := p.fromVideo(t.X, t.Y, vw, vh)
	p.record(kind, []string{strconv.Itoa(x), strconv.Itoa(y)}, x, y)
	mx, my := p.toModel(x, y)
	p.motion(action, mx, my)
}

// fromVideo maps a point in video pixels (vw x vh) to the display's
// (p.mu held).
func (p *Phone) fromVideo(vx, vy int32, vw, vh int) (x, y int) {
	dw, dh := p.displaySize()
	return int(int64(vx) * int64(dw) / int64(vw)), int(int64(vy) * int64(dh) / int64(vh))
}

func (p *Phone) scrcpyKey(code int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.record("key", []string{strconv.Itoa(code)}, 0, 0)
	p.key(code)
}

// scrcpyText types text through the key map: only what a keyboard can
// type (the server logs "Could not inject char" for others).
func (p *Phone) scrcpyText(text string) {
	var typed []rune
	for _, r := range text {
		if r >= 0x20 && r < 0x7f || r == '\n' {
			typed = append(typed, r)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.record("text", []string{string(typed)}, 0, 0)
	p.m.TypeText(string(typed))
}

// scrcpyClipboard sets the clipboard (and pastes it when asked), then
// acknowledges it when the client asked for that.
func (p *Phone) scrcpyClipboard(w io.Writer, cb *scrcpy.Clipboard) error {
	p.mu.Lock()
	p.clipboard = cb.Text
	p.record("clipboard", []string{cb.Text}, 0, 0)
	if cb.Paste {
		p.record("paste", []string{cb.Text}, 0, 0)
		p.m.TypeText(cb.Text)
	}
	p.mu.Unlock()
	if cb.Sequence != 0 {
		return scrcpy.WriteAckClipboard(w, cb.Sequence)
	}
	return nil
}

// scrcpyScroll scrolls at a point in video pixels (vw x vh).
func (p *Phone) scrcpyScroll(s *scrcpy.Scroll, vw, vh int) {
	if int(s.Width) != vw || int(s.Height) != vh {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	x, y := p.fromVideo(s.X, s.Y, vw, vh)
	dy := int(float64(s.V) / 0x7fff * float64(p.opts.Height) / 10)
	p.record("scroll", []string{strconv.Itoa(x), strconv.Itoa(y), strconv.Itoa(int(s.V))}, x, y)
	mx, my := p.toModel(x, y)
	p.m.Swipe(mx, my, mx, my+dy)
}
