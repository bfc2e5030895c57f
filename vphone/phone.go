package vphone

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"log/slog"
	"math/rand"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
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
	FontPath      string        // a CJK font; DefaultFontPath
	CaptchaCode   string        // the login code; random when empty
	Logger        *slog.Logger
	Now           func() time.Time // clock; time.Now
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

// WithCaptcha fixes the login screen's code.
func WithCaptcha(code string) Option { return func(o *Options) { o.CaptchaCode = code } }

// WithLogger sets the logger for protocol diagnostics.
func WithLogger(l *slog.Logger) Option { return func(o *Options) { o.Logger = l } }

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
	if o.AnimationFor == 0 {
		o.AnimationFor = 1500 * time.Millisecond
	}
	if o.FontPath == "" {
		o.FontPath = DefaultFontPath
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
	Foreground   string // package in front
	Activity     string // its activity class
	Recents      bool   // the recent-apps screen is open
	Counter      int
	Note         string
	Form         FormState
	ListScroll   int // pixels the list is scrolled by
	ListSelected int // the tapped list item (1-based), 0 = none
	DialogOpen   bool
	WiFi         bool // the Settings toggle
	Bluetooth    bool
	Paid         bool
	Username     string
	LoggedIn     bool
	Animating    bool
	AnimTaps     int
	GameScore    int
	ChatSent     []string // messages sent in the open or last chat
	Focus        string   // resource id of the focused field
	IME          string   // the current input method
	IMEs         []string // enabled input methods
	Version      uint64   // bumped on every visible change
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
	injectDenied  bool
	secure        bool
	dropScreencap bool
}

// Phone is one virtual Android phone.
type Phone struct {
	opts  Options
	log   *slog.Logger
	now   func() time.Time
	fonts *fontSet
	fs    *memFS

	mu       sync.Mutex // guards everything below until netMu
	m        *model
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
	clipboard      string
	rotation       int // display rotation 0..3 (rotation.go)

	rmu   sync.Mutex // guards the screenshot cache
	cache shotCache

	netMu      sync.Mutex
	ln         net.Listener
	transports map[*transport]bool
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
		fonts:      &fontSet{path: o.FontPath, log: o.Logger},
		fs:         newMemFS(o.Now),
		m:          newModel(&o, o.Now),
		ime:        IMELatin,
		imes:       map[string]bool{IMELatin: true},
		settings:   map[string]string{},
		transports: map[*transport]bool{},
		handlers:   map[string]SocketHandler{},
		cmds:       commands(),
		ctx:        ctx, cancel: cancel,
	}
	p.settings["secure/default_input_method"] = IMELatin
	p.settings["secure/enabled_input_methods"] = IMELatin
	p.settings["system/screen_brightness"] = "102"
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
		t := newTransport(p.ctx, p, conn)
		p.transports[t] = true
		p.netMu.Unlock()
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			t.serve()
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
	ts := make([]*transport, 0, len(p.transports))
	for t := range p.transports {
		ts = append(ts, t)
	}
	p.netMu.Unlock()
	for _, t := range ts {
		t.kill()
	}
}

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

// ---- failure switches ----

// SetLatency delays every shell and exec command by d.
func (p *Phone) SetLatency(d time.Duration) { p.withFaults(func(f *faults) { f.latency = d }) }

// SetIdleError makes `uiautomator dump` fail with "ERROR: could not get
// idle state." as it does while an app animates without end.
func (p *Phone) SetIdleError(on bool) { p.withFaults(func(f *faults) { f.idleError = on }) }

// SetInjectDenied makes input injection fail as on Xiaomi/MIUI without
// "USB debugging (Security settings)".
func (p *Phone) SetInjectDenied(on bool) { p.withFaults(func(f *faults) { f.injectDenied = on }) }

// SetSecure makes screenshots all black, as for a FLAG_SECURE window.
func (p *Phone) SetSecure(on bool) { p.withFaults(func(f *faults) { f.secure = on }) }

// SetDropMidScreencap makes every screencap send half its data and then
// drop the connection, as a pulled cable would.
func (p *Phone) SetDropMidScreencap(on bool) { p.withFaults(func(f *faults) { f.dropScreencap = on }) }

func (p *Phone) withFaults(fn func(*faults)) {
	p.mu.Lock()
	fn(&p.faults)
	p.mu.Unlock()
}

func (p *Phone) faultsNow() faults {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.faults
}

// SetOffline drops every connection and refuses new ones while on; the
// adb server sees the phone go offline, and reconnects by itself after
// SetOffline(false).
func (p *Phone) SetOffline(on bool) {
	p.netMu.Lock()
	p.offline = on
	p.netMu.Unlock()
	if on {
		p.dropAll()
	}
}

// Disconnect drops every connection once; the adb server reconnects.
func (p *Phone) Disconnect() { p.dropAll() }

// HandleSocket serves device sockets ("tcp:8080", "localabstract:name") for
// forwards. A name ending in "*" matches every name with that prefix
// (for example "localabstract:scrcpy_*"). A nil handler removes it.
func (p *Phone) HandleSocket(name string, h SocketHandler) {
	p.netMu.Lock()
	defer p.netMu.Unlock()
	if h == nil {
		delete(p.handlers, name)
		return
	}
	p.handlers[name] = h
}

func (p *Phone) socketHandler(service string) SocketHandler {
	p.netMu.Lock()
	defer p.netMu.Unlock()
	if h, ok := p.handlers[service]; ok {
		return h
	}
	var best string
	for k := range p.handlers {
		if pre, ok := strings.CutSuffix(k, "*"); ok && strings.HasPrefix(service, pre) && len(k) > len(best) {
			best = k
		}
	}
	if best == "" {
		return nil
	}
	return p.handlers[best]
}

// ---- state API ----

// State returns a snapshot of the phone's state.
func (p *Phone) State() State {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.m
	act := m.activity()
	st := State{
		Foreground: m.fg, Activity: act.Activity, Recents: m.screen == scrRecents,
		Counter: m.counter, Note: m.note, Form: m.form,
		ListScroll: int(float64(m.listScroll) * m.scale), ListSelected: m.listSelected,
		DialogOpen: m.fg == PkgDialog && m.dialogOpen, WiFi: m.wifi, Bluetooth: m.bluetooth, Paid: m.paid,
		Username: m.username, LoggedIn: m.loggedIn, Animating: m.animating(p.now()), AnimTaps: m.animTaps,
		GameScore: m.gameScore, Focus: m.focus, IME: p.ime, Version: m.version,
	}
	if m.chatOpen >= 0 {
		st.ChatSent = append([]string(nil), m.chatSent[m.chatOpen]...)
	}
	for k := range p.imes {
		st.IMEs = append(st.IMEs, k)
	}
	sort.Strings(st.IMEs)
	return st
}

// Events returns the inputs received so far, oldest first.
func (p *Phone) Events() []Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Event(nil), p.events...)
}

// CaptchaCode is the code the login screen's picture shows.
func (p *Phone) CaptchaCode() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m.captcha
}

// Size is the screen size in pixels.
func (p *Phone) Size() (w, h int) { return p.opts.Width, p.opts.Height }

// Bounds returns the bounds of the first node with the resource id (either
// "pkg:id/name" or just "name") on the current screen.
func (p *Phone) Bounds(id string) (image.Rectangle, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	win := p.m.window()
	n := win.find(id)
	if n == nil && !strings.Contains(id, ":id/") {
		win.walk(func(c *node) {
			if n == nil && strings.HasSuffix(c.id, ":id/"+id) {
				n = c
			}
		})
	}
	if n == nil {
		return image.Rectangle{}, false
	}
	return n.bounds, true
}

// BoundsOfText returns the bounds of the first node showing text or
// content-desc s on the current screen.
func (p *Phone) BoundsOfText(s string) (image.Rectangle, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var found *node
	p.m.window().walk(func(c *node) {
		if found == nil && (c.text == s || c.desc == s) {
			found = c
		}
	})
	if found == nil {
		return image.Rectangle{}, false
	}
	return found.bounds, true
}

// Launch brings an app to the front, as tapping its icon would.
func (p *Phone) Launch(pkg string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.m.launch(pkg) {
		return fmt.Errorf("vphone: no app %q", pkg)
	}
	return nil
}

// Tap taps at (x, y) as `input tap` would, without going through adb (for
// tests of the model itself).
func (p *Phone) Tap(x, y int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.record("tap", []string{strconv.Itoa(x), strconv.Itoa(y)}, x, y)
	p.m.tap(x, y)
}

// Swipe swipes from (x1, y1) to (x2, y2) as `input swipe` would (without
// taking the gesture's time).
func (p *Phone) Swipe(x1, y1, x2, y2 int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.record("swipe", []string{strconv.Itoa(x1), strconv.Itoa(y1), strconv.Itoa(x2), strconv.Itoa(y2)}, x1, y1)
	p.m.swipe(x1, y1, x2, y2)
}

// Key presses an Android key code (KEYCODE_BACK = 4, HOME = 3, ...).
func (p *Phone) Key(code int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.record("key", []string{strconv.Itoa(code)}, 0, 0)
	p.key(code)
}

// TypeText types s into the focused field, any Unicode, as a keyboard
// would.
func (p *Phone) TypeText(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.record("text", []string{s}, 0, 0)
	p.m.typeText(s)
}

// Apps lists the launcher's apps.
func (p *Phone) Apps() []App {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]App(nil), p.m.apps...)
}

// UIDump returns what `uiautomator dump` would write now.
func (p *Phone) UIDump() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dumpLocked()
}

func (p *Phone) dumpLocked() []byte {
	pkg := p.m.fg
	if p.m.screen == scrRecents {
		pkg = PkgLauncher
	}
	return dumpXML(p.m.window(), pkg, p.rotation, p.opts.Width, p.opts.Height)
}

func (p *Phone) record(kind string, args []string, x, y int) {
	p.events = append(p.events, Event{Kind: kind, Args: append([]string(nil), args...), X: x, Y: y, At: p.now()})
}

// Screenshot renders the screen (black while secure).
func (p *Phone) Screenshot() *image.RGBA {
	img, _ := p.shot(false)
	return img
}

// ScreenshotPNG returns the screen as PNG bytes (cached per state).
func (p *Phone) ScreenshotPNG() ([]byte, error) {
	_, b := p.shot(true)
	if b == nil {
		return nil, errors.New("vphone: png encoding failed")
	}
	return b, nil
}

// shot returns the current picture and, if wantPNG, its PNG encoding; both
// are cached for the state they show.
func (p *Phone) shot(wantPNG bool) (*image.RGBA, []byte) {
	p.rmu.Lock()
	defer p.rmu.Unlock()
	p.mu.Lock()
	now := p.now()
	key := shotKey{version: p.m.version, frame: p.m.frame(now), secure: p.faults.secure, rotation: p.rotation}
	c := &p.cache
	if !c.hasImg || c.imgKey != key {
		if key.secure {
			dw, dh := p.displaySize()
			c.img = image.NewRGBA(image.Rect(0, 0, dw, dh))
			for i := 3; i < len(c.img.Pix); i += 4 {
				c.img.Pix[i] = 0xff
			}
		} else {
			c.img = rotateImage(render(p.m, p.fonts), key.rotation)
		}
		c.imgKey, c.hasImg = key, true
	}
	p.mu.Unlock()
	if !wantPNG {
		return c.img, nil
	}
	if !c.hasPNG || c.pngKey != key {
		var buf bytes.Buffer
		buf.Grow(len(c.img.Pix) / 16)
		if err := encodePNG(&buf, c.img); err != nil {
			p.log.Error("vphone: png", "err", err)
			return c.img, nil
		}
		c.png, c.pngKey, c.hasPNG = buf.Bytes(), key, true
	}
	return c.img, c.png
}
