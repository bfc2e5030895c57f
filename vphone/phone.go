package vphone

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"log/slog"
	"math/rand"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"tandem/vphone/render"
	"tandem/vphone/screens"
	"tandem/vphone/transport"
	"time"
)

// Options configure a Phone. Use the With* functions; zero values mean the
// defaults below.
type Options struct {
	Width, Height int    // screen pixels; 1080x2400
	Density       int    // dpi; 420
	Product       string // ro.product.name; "tandem_vphone"
	Model         string // ro.product.model; "Tandem Virtual Phone"
	Device        string // ro.product.device; "vphone"
	Features      []string
	featuresSet   bool
	NoADBKeyboard bool          // ADB Keyboard is not installed
	AnimationFor  time.Duration // how long the Animation app moves after a tap; 1.5 s
	FontPath      string        // a CJK font; render.DefaultFontPath
	CaptchaCode   string        // the login code; random when empty
	CounterText   int           // the Counter's digits, in design units (1080 wide); 160
	// RawFormat is the pixel format of the raw screencap (without -p), as
	// Android numbers them: 1 (RGBA_8888, the default), 4 (RGB_565, two
	// bytes a pixel, as some older phones send it), 3 (RGB_888); any other
	// number labels four-byte pixels with a format no driver knows (a
	// vendor's), which a driver meets by asking for PNG.
	RawFormat uint32
	Logger    *slog.Logger
	Now       func() time.Time // clock; time.Now
	// EventLog, when set, gets each input as it arrives (Events' entries),
	// one JSON line each, written before the input takes effect: the
	// phone's own log, for a test in another process.
	EventLog io.Writer
}

// Option changes Options.
type Option func(*Options)

// WithSize sets the screen size in pixels.
func WithSize(w, h int) Option { return func(o *Options) { o.Width, o.Height = w, h } }

// WithDensity sets the screen density in dpi.
func WithDensity(dpi int) Option { return func(o *Options) { o.Density = dpi } }

// WithProduct sets ro.product.name/model/device, shown by `adb devices -l`.
func WithProduct(name, model, dev string) Option {
	return func(o *Options) { o.Product, o.Model, o.Device = name, model, dev }
}

// WithFeatures sets the transport features in the banner; none at all makes
// adb fall back to shell v1 (no exit codes).
func WithFeatures(f ...string) Option {
	return func(o *Options) { o.Features, o.featuresSet = f, true }
}

// WithoutADBKeyboard leaves ADB Keyboard uninstalled.
func WithoutADBKeyboard() Option { return func(o *Options) { o.NoADBKeyboard = true } }

// WithAnimation sets how long the Animation app moves after each tap.
func WithAnimation(d time.Duration) Option { return func(o *Options) { o.AnimationFor = d } }

// WithFont sets the font file (a .ttc collection or a single font).
func WithFont(path string) Option { return func(o *Options) { o.FontPath = path } }

// WithRawFormat sets the raw screencap's pixel format (Options.RawFormat).
func WithRawFormat(f uint32) Option { return func(o *Options) { o.RawFormat = f } }

// WithCaptcha fixes the login screen's code.
func WithCaptcha(code string) Option { return func(o *Options) { o.CaptchaCode = code } }

// WithCounterText sets the height of the Counter app's digits in design
// units (the screen is 1080 wide): small digits change only a few pixels
// when the count goes up.
func WithCounterText(size int) Option { return func(o *Options) { o.CounterText = size } }

// WithLogger sets the logger for protocol diagnostics.
func WithLogger(l *slog.Logger) Option { return func(o *Options) { o.Logger = l } }

// WithEventLog writes each input the phone receives to w as it arrives,
// one JSON line each ({"kind","args","x","y","at"}).
func WithEventLog(w io.Writer) Option { return func(o *Options) { o.EventLog = w } }

// WithClock sets the clock (events' times and animations).
func WithClock(now func() time.Time) Option { return func(o *Options) { o.Now = now } }

func (o *Options) defaults() error {
	if o.Width == 0 && o.Height == 0 {
		o.Width, o.Height = 1080, 2400
	}
	if o.Width < 240 || o.Height < 320 || o.Width > 4096 || o.Height > 8192 {
		return fmt.Errorf("vphone: screen %dx%d out of range (240x320 to 4096x8192)", o.Width, o.Height)
	}
	if o.Density == 0 {
		o.Density = 420
	}
	if o.Product == "" {
		o.Product = "tandem_vphone"
	}
	if o.Model == "" {
		o.Model = "Tandem Virtual Phone"
	}
	if o.Device == "" {
		o.Device = "vphone"
	}
	if !o.featuresSet {
		o.Features = []string{"shell_v2", "cmd"}
	}
	if o.RawFormat == 0 {
		o.RawFormat = 1
	}
	if o.CounterText <= 0 {
		o.CounterText = 160
	}
	if o.AnimationFor == 0 {
		o.AnimationFor = 1500 * time.Millisecond
	}
	if o.FontPath == "" {
		o.FontPath = render.DefaultFontPath
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.CaptchaCode == "" {
		const letters = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
		b := make([]byte, 5)
		for i := range b {
			b[i] = letters[rand.Intn(len(letters))]
		}
		o.CaptchaCode = string(b)
	}
	for _, r := range o.CaptchaCode {
		if r < '!' || r > '~' {
			return fmt.Errorf("vphone: captcha code %q must be printable ASCII", o.CaptchaCode)
		}
	}
	return nil
}

// Event is one input the phone received.
type Event struct {
	// Kind is the input: tap, swipe, draganddrop, text, key (Args[0] is the
	// key code), broadcast, launch (am start, monkey), force_stop,
	// motion_down/motion_move/motion_up, press, roll. A long press arrives
	// as a swipe that stays in place.
	Kind string
	Args []string // the command's arguments as received
	X, Y int      // where a tap, long press or swipe started; 0 otherwise
	At   time.Time
}

// State is a snapshot of what the phone shows and holds.
type State struct {
	screens.State
	IME  string   // the current input method
	IMEs []string // enabled input methods
}

// SocketHandler serves one connection to a device socket opened through a
// forward (`adb forward tcp:N localabstract:NAME`). conn reads what the
// host sends and writes back lock-step; Close ends the stream.
type SocketHandler func(ctx context.Context, conn io.ReadWriteCloser) error

// ErrClosed is returned by methods of a closed Phone.
var ErrClosed = errors.New("vphone: phone closed")

// faults are the failure switches.
type faults struct {
	latency       time.Duration
	idleError     bool
	windowDenied  bool // `dumpsys window` refused (SetWindowDumpDenied)
	injectDenied  bool
	secure        bool
	dropScreencap bool
	claimed       [2]int // the screen size the phone lies about (faults_screen.go); zero: none
	// dropScreencapAt counts down to the screencap that drops
	// (DropScreencap; 0: none).
	dropScreencapAt int
	// holdScreencapAt counts down to the screencap that waits for
	// holdUntil before it captures (HoldScreencap; 0: none).
	holdScreencapAt int
	holdUntil       <-chan struct{}
	// holdVideo, while open, keeps every video stream (screenrecord,
	// scrcpy's) from sending its first picture (HoldVideo; nil: none).
	holdVideo <-chan struct{}
}

// Phone is one virtual Android phone.
type Phone struct {
	opts Options
	// screencaps counts the screencap commands served (Screencaps).
	screencaps atomic.Int64
	// checksums counts the cksum commands served (Checksums).
	checksums atomic.Int64
	log       *slog.Logger
	now       func() time.Time
	fonts     *render.Fonts
	fs        *memFS

	mu       sync.Mutex // guards everything below until netMu
	m        *screens.Model
	events   []Event
	faults   faults
	ime      string
	imes     map[string]bool // enabled input methods
	settings map[string]string
	props    map[string]string
	cmds     map[string]command
	down     [2]int // where a motionevent DOWN was
	downAt   time.Time
	isDown   bool
	dragging bool   // the pointer moved beyond the tap slop since DOWN
	last     [2]int // the pointer's last position while down
	// scrcpy endpoint
	scrcpyVersion  string // "" = scrcpy.Version
	scrcpySessions int
	scrcpyRefused  int // clients refused for their version
	clipboard      string
	rotation       int // display rotation 0..3 (rotation.go)

	rmu   sync.Mutex // guards the screenshot cache
	cache shotCache

	netMu      sync.Mutex
	ln         net.Listener
	transports map[*transport.Conn]bool
	handlers   map[string]SocketHandler
	offline    bool
	closed     bool
	ctx        context.Context
	cancel     context.CancelFunc
	wg         sync.WaitGroup
}

type shotKey struct {
	version  uint64
	frame    int64
	secure   bool
	rotation int
}

type shotCache struct {
	imgKey, pngKey shotKey
	img            *image.RGBA
	png            []byte
	hasImg, hasPNG bool
}

// New makes a phone showing the launcher. It does not listen yet.
func New(opts ...Option) (*Phone, error) {
	var o Options
	for _, f := range opts {
		f(&o)
	}
	if err := o.defaults(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Phone{
		opts: o, log: o.Logger, now: o.Now,
		fonts:      render.NewFonts(o.FontPath, o.Logger),
		fs:         newMemFS(o.Now),
		ime:        IMELatin,
		imes:       map[string]bool{IMELatin: true},
		settings:   map[string]string{},
		transports: map[*transport.Conn]bool{},
		handlers:   map[string]SocketHandler{},
		cmds:       commands(),
		ctx:        ctx, cancel: cancel,
	}
	p.settings["secure/default_input_method"] = IMELatin
	p.settings["secure/enabled_input_methods"] = IMELatin
	p.m = screens.New(screens.Config{Width: o.Width, Height: o.Height, AnimationFor: o.AnimationFor, CounterText: o.CounterText,
		CaptchaCode: o.CaptchaCode, Settings: p.settings}, o.Now)
	p.settings["global/adb_enabled"] = "1"
	p.props = map[string]string{
		"ro.product.name":                 o.Product,
		"ro.product.model":                o.Model,
		"ro.product.device":               o.Device,
		"ro.product.brand":                "Tandem",
		"ro.product.manufacturer":         "Tandem",
		"ro.build.version.sdk":            "34",
		"ro.build.version.release":        "14",
		"ro.build.display.id":             "tandem-vphone-1",
		"ro.build.type":                   "user",
		"ro.build.characteristics":        "default",
		"ro.product.cpu.abi":              "arm64-v8a",
		"ro.sf.lcd_density":               fmt.Sprint(o.Density),
		"ro.serialno":                     "VPHONE0001",
		"ro.secure":                       "1",
		"ro.debuggable":                   "0",
		"persist.sys.locale":              "zh-CN",
		"sys.boot_completed":              "1",
		"ro.product.locale":               "zh-CN",
		"persist.sys.timezone":            "Asia/Shanghai",
		"ro.build.version.security_patch": "2024-06-05",
	}
	return p, nil
}

// Start makes a phone and listens on addr ("" = 127.0.0.1:0) until ctx
// ends or Close.
func Start(ctx context.Context, addr string, opts ...Option) (*Phone, error) {
	p, err := New(opts...)
	if err != nil {
		return nil, err
	}
	if err := p.Listen(addr); err != nil {
		return nil, err
	}
	go func() {
		select {
		case <-ctx.Done():
			p.Close()
		case <-p.ctx.Done():
		}
	}()
	return p, nil
}

// Listen accepts adb server connections on addr ("" = 127.0.0.1:0). Use
// a port outside 5555-5585: adb servers probe those on start.
func (p *Phone) Listen(addr string) error {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(p.ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("vphone: listen: %w", err)
	}
	p.netMu.Lock()
	if p.closed {
		p.netMu.Unlock()
		ln.Close()
		return ErrClosed
	}
	if p.ln != nil {
		p.netMu.Unlock()
		ln.Close()
		return errors.New("vphone: already listening")
	}
	p.ln = ln
	p.netMu.Unlock()
	p.wg.Add(1)
	go p.accept(ln)
	return nil
}

// Addr is the listening address ("127.0.0.1:PORT"), "" before Listen.
func (p *Phone) Addr() string {
	p.netMu.Lock()
	defer p.netMu.Unlock()
	if p.ln == nil {
		return ""
	}
	return p.ln.Addr().String()
}

func (p *Phone) accept(ln net.Listener) {
	defer p.wg.Done()
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		p.netMu.Lock()
		if p.offline || p.closed {
			p.netMu.Unlock()
			conn.Close()
			continue
		}
		t := transport.New(p.ctx, conn, adbDevice{p}, p.log)
		p.transports[t] = true
		p.netMu.Unlock()
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			t.Serve()
			p.netMu.Lock()
			delete(p.transports, t)
			p.netMu.Unlock()
		}()
	}
}

// Close stops listening, drops every connection and waits for the
// services to end.
func (p *Phone) Close() error {
	p.netMu.Lock()
	if p.closed {
		p.netMu.Unlock()
		return nil
	}
	p.closed = true
	ln := p.ln
	p.netMu.Unlock()
	p.cancel()
	if ln != nil {
		ln.Close()
	}
	p.dropAll()
	p.wg.Wait()
	return nil
}

func (p *Phone) dropAll() {
	p.netMu.Lock()
	ts := make([]*transport.Conn, 0, len(p.transports))
	for t := range p.transports {
		ts = append(ts, t)
	}
	p.netMu.Unlock()
	for _, t := range ts {
		t.Kill()
	}
}

// adbDevice is the phone as its ADB connections see it.
type adbDevice struct{ p *Phone }

func (d adbDevice) Banner() string { return d.p.banner() }

func (d adbDevice) Service(name string) (transport.Service, error) { return d.p.service(name) }

func (p *Phone) banner() string {
	return fmt.Sprintf("device::ro.product.name=%s;ro.product.model=%s;ro.product.device=%s;features=%s",
		p.opts.Product, p.opts.Model, p.opts.Device, strings.Join(p.opts.Features, ","))
}

func (p *Phone) hasFeature(f string) bool {
	for _, x := range p.opts.Features {
		if x == f {
			return true
		}
	}
	return false
}
