package desktop

import (
	"context"
	"errors"
	"fmt"
	"image"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jezek/xgb"

	"tandem/engine/action"
	"tandem/engine/device"
)

// Typed errors of this driver. ErrOwnWindow wraps device.ErrPermission.
var (
	ErrTakenOver = errors.New("the person took over the mouse or keyboard")
	ErrStopped   = errors.New("stop hotkey pressed")
	ErrOwnWindow = fmt.Errorf("%w: point is on Tandem's own window", device.ErrPermission)
	ErrNoDisplay = errors.New("no such display")
	// ErrHotkeyTaken: another X client (or another open driver) holds the stop
	// hotkey's grab and this X server has no RECORD to share it by; choose
	// another with Options.StopHotkey.
	ErrHotkeyTaken = errors.New("stop hotkey is taken by another program")
	// ErrClosed wraps device.ErrGone for actions after Close.
	ErrClosed = fmt.Errorf("%w: desktop driver closed", device.ErrGone)
)

// IDPrefix starts every desktop device ID: "desktop:0" is the first display.
const IDPrefix = "desktop:"

// Options configure a driver. The zero value is usable.
type Options struct {
	// Display is the X display (":0"); "" means $DISPLAY.
	Display string
	// StopHotkey is the global stop chord, e.g. "ctrl+shift+escape" (default).
	StopHotkey string
	// ExcludePIDs are processes whose windows the agent must not act on
	// (Tandem's own PID).
	ExcludePIDs []int
	// ExcludeRects are root-window rectangles the agent must not act on.
	ExcludeRects []image.Rectangle
	// PollInterval is how often the takeover watcher samples input (25 ms)
	// on an X server without RECORD.
	PollInterval time.Duration
	// PasteKeys paste the clipboard in the focused app (default ctrl+v; a
	// terminal wants ctrl+shift+v).
	PasteKeys []string
	// ScrollClicks is wheel notches per scroll action (5).
	ScrollClicks int
	// StopKeys shares the stop hotkey with the process's other drivers
	// (several displays at once); nil: this driver grabs it alone.
	StopKeys *StopKeys

	// noRecord makes the first driver of an X server do without RECORD, as
	// on a server that lacks it (tests of the fallback: Xvfb cannot drop
	// RECORD alone).
	noRecord bool
}

// DefaultStopHotkey is the stop chord when Options.StopHotkey is empty.
const DefaultStopHotkey = "ctrl+shift+escape"

// Displays lists this computer's displays on $DISPLAY as devices, in the
// X server's order; ID "desktop:N" opens display N. `tandem devices` shows
// them as "This computer".
func Displays(ctx context.Context) ([]device.Info, error) {
	return DisplaysOn(ctx, "")
}

// DisplaysOn is Displays for a given X display name.
func DisplaysOn(ctx context.Context, display string) ([]device.Info, error) {
	c, err := dial(ctx, display)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	ms, err := monitors(c)
	if err != nil {
		return nil, err
	}
	scale := hidpiScale(c)
	out := make([]device.Info, len(ms))
	for i, m := range ms {
		out[i] = infoFor(i, m, scale)
	}
	return out, nil
}

func infoFor(i int, m monitor, scale float64) device.Info {
	name := "Display " + strconv.Itoa(i+1)
	var notes []string
	if m.Name != "" {
		notes = append(notes, m.Name)
	}
	if m.Primary {
		notes = append(notes, "primary")
	}
	if m.Bounds.Min != (image.Point{}) {
		notes = append(notes, fmt.Sprintf("at %d,%d", m.Bounds.Min.X, m.Bounds.Min.Y))
	}
	if len(notes) > 0 {
		name += " (" + strings.Join(notes, ", ") + ")"
	}
	return device.Info{
		ID:     IDPrefix + strconv.Itoa(i),
		Name:   name,
		Kind:   device.Desktop,
		Screen: action.Size{W: m.Bounds.Dx(), H: m.Bounds.Dy()},
		Scale:  scale,
	}
}

// ParseID returns N of "desktop:N".
func ParseID(id string) (int, error) {
	rest, ok := strings.CutPrefix(id, IDPrefix)
	n, err := strconv.Atoi(rest)
	if !ok || err != nil || n < 0 {
		return 0, fmt.Errorf("%w: %q is not a desktop id (want %sN)", ErrNoDisplay, id, IDPrefix)
	}
	return n, nil
}

// Driver operates one display. It is safe for concurrent use; actions run
// one at a time, with those of the other displays of its X server.
type Driver struct {
	opts   Options
	index  int
	bounds image.Rectangle // the monitor in root coordinates
	info   device.Info
	caps   device.Capabilities

	cap     *capturer
	pids    pidCache  // for maskOwn
	ctl     *xgb.Conn // the hotkey grab's, the clipboard's and window lookups
	clip    *clipboard
	stop    chord
	keyMu   sync.Mutex // guards stopKey: a StopKeys may hand the grab over
	stopKey grabbed
	// stopHeard: another program holds the chord's grab; the driver
	// hears it in the stream (hearStop).
	stopHeard bool

	atomsOnce sync.Once
	atoms     titleAtoms

	inj  injector
	hand handQueue
	acts chan action.Action

	takeover chan struct{}
	stopped  chan struct{}
	quit     chan struct{}
	wg       sync.WaitGroup
	closeMu  sync.Once
}

// Open connects to display id ("desktop:N") and arms the stop hotkey. The
// takeover watcher starts with the first action.
func Open(ctx context.Context, id string, opts Options) (*Driver, error) {
	index, err := ParseID(id)
	if err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	stop, err := parseChord([]string{opts.StopHotkey})
	if err != nil {
		return nil, fmt.Errorf("stop hotkey: %w", err)
	}
	paste, err := parseChord(opts.PasteKeys)
	if err != nil {
		return nil, fmt.Errorf("paste keys: %w", err)
	}
	capConn, m, err := openMonitor(ctx, id, index, opts.Display)
	if err != nil {
		return nil, err
	}
	ctl, err := dial(ctx, opts.Display)
	if err != nil {
		capConn.Close()
		return nil, err
	}
	d := &Driver{
		opts:     opts,
		index:    index,
		bounds:   m.Bounds,
		info:     infoFor(index, m, hidpiScale(capConn)),
		caps:     capabilities(),
		cap:      newCapturer(capConn),
		ctl:      ctl,
		stop:     stop,
		hand:     handQueue{wake: make(chan struct{}, 1)},
		acts:     make(chan action.Action),
		takeover: make(chan struct{}, 1),
		stopped:  make(chan struct{}, 1),
		quit:     make(chan struct{}),
	}
	s, err := joinServer(ctx, opts.Display, !opts.noRecord, d)
	if err != nil {
		d.closeConns()
		return nil, err
	}
	d.inj.init(s, paste)
	d.inj.took = d.tookLocked
	if err := d.ready(); err != nil {
		d.closeConns()
		s.leave(d)
		return nil, err
	}
	d.wg.Add(2)
	go d.events()
	go d.handLoop()
	d.wg.Add(1)
	if s.rec == nil {
		go d.watch()
	} else {
		go d.flushStream()
	}
	return d, nil
}

func (o Options) withDefaults() Options {
	if o.StopHotkey == "" {
		o.StopHotkey = DefaultStopHotkey
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 25 * time.Millisecond
	}
	if len(o.PasteKeys) == 0 {
		o.PasteKeys = []string{"ctrl", "v"}
	}
	if o.ScrollClicks <= 0 {
		o.ScrollClicks = 5
	}
	return o
}

// openMonitor connects to the display for capture and finds monitor index
// on it.
func openMonitor(ctx context.Context, id string, index int, display string) (*xgb.Conn, monitor, error) {
	capConn, err := dial(ctx, display)
	if err != nil {
		return nil, monitor{}, err
	}
	ms, err := monitors(capConn)
	if err != nil {
		capConn.Close()
		return nil, monitor{}, err
	}
	if index >= len(ms) {
		capConn.Close()
		return nil, monitor{}, fmt.Errorf("%w: %s (this computer has %d)", ErrNoDisplay, id, len(ms))
	}
	return capConn, ms[index], nil
}

// ready readies the clipboard and the stop hotkey.
func (d *Driver) ready() error {
	var err error
	if d.clip, err = newClipboard(d.ctl); err != nil {
		return err
	}
	grab := d.grabStop
	if d.opts.StopKeys != nil {
		grab = func() error { return d.opts.StopKeys.Join(stopKeyName(d), x11Stop{d}) }
	}
	return grab()
}

func capabilities() device.Capabilities {
	return device.Capabilities{
		Actions: []action.Type{action.Tap, action.DoubleTap, action.LongPress, action.Drag,
			action.RightClick, action.Scroll, action.TypeText, action.Key, action.Hotkey, action.Wait},
		UITree: false,
	}
}

// Info describes the display.
func (d *Driver) Info(ctx context.Context) (device.Info, error) {
	if err := ctx.Err(); err != nil {
		return device.Info{}, err
	}
	return d.info, nil
}

// Capabilities says what a desktop can do: no launch, no swipe, no UI tree.
func (d *Driver) Capabilities() device.Capabilities { return d.caps }

// Bounds is the display's rectangle in root-window (screen) coordinates.
func (d *Driver) Bounds() image.Rectangle { return d.bounds }

// Screenshot captures the display, in the coordinate space of actions.
// Tandem's own windows are painted over (see maskOwn).
func (d *Driver) Screenshot(ctx context.Context) (image.Image, error) {
	img, err := d.cap.capture(ctx, d.bounds)
	if err != nil {
		return nil, err
	}
	d.maskOwn(img)
	return img, nil
}

// ScreenshotInto is Screenshot reusing dst's pixels when it has the display's
// size (the frame is overwritten: the caller must be done with it).
func (d *Driver) ScreenshotInto(ctx context.Context, dst *image.RGBA) (*image.RGBA, error) {
	img, err := d.cap.captureInto(ctx, d.bounds, dst)
	if err != nil {
		return nil, err
	}
	d.maskOwn(img)
	return img, nil
}

// Takeover fires when the person moves the mouse, clicks or types while the
// agent drives. One pending signal is kept; later ones merge into it.
func (d *Driver) Takeover() <-chan struct{} { return d.takeover }

// PersonDrives halts the agent as the person's hand does, without the
// Takeover signal: the person took over through Tandem (the mirror, the T
// key, the model asked them to), and from now until Resume what they do
// with their own mouse and keyboard is reported on PersonActs.
func (d *Driver) PersonDrives() {
	s := d.inj.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if d.inj.haltLocked(fmt.Errorf("%w: through Tandem", ErrTakenOver)) {
		d.inj.person = true
	}
}

// StopHotkey fires when the person presses the stop hotkey, whichever window
// has the focus.
func (d *Driver) StopHotkey() <-chan struct{} { return d.stopped }

// Resume lets the agent drive again after a takeover or stop (the person
// handed control back); the person's acts are no longer reported, and any
// not taken from PersonActs or FlushActs are dropped. The guard arms again
// with the next action, from the pointer's place then.
func (d *Driver) Resume() {
	d.inj.resume()
	d.hand.push(handItem{reset: true})
}

// toScreen maps a screenshot point to the root window.
func (d *Driver) toScreen(x, y int) image.Point {
	return toScreen(d.bounds, d.info.Screen, x, y)
}

// toScreen maps (x, y) in a shot of size shot to the monitor rectangle b. On
// X11 the shot is the monitor's own size, so this adds the origin; a scaled
// shot (shot != b's size) is mapped proportionally to the nearest pixel.
func toScreen(b image.Rectangle, shot action.Size, x, y int) image.Point {
	if shot.W == b.Dx() && shot.H == b.Dy() {
		return image.Pt(b.Min.X+x, b.Min.Y+y)
	}
	sx := b.Min.X + (2*x*b.Dx()+shot.W)/(2*shot.W)
	sy := b.Min.Y + (2*y*b.Dy()+shot.H)/(2*shot.H)
	return image.Pt(min(sx, b.Max.X-1), min(sy, b.Max.Y-1))
}

// Close releases the hotkey grab and the X connections.
func (d *Driver) Close() error {
	d.closeMu.Do(func() {
		close(d.quit)
		d.inj.s.mu.Lock()
		if !d.inj.haltLocked(ErrClosed) {
			d.inj.halt = ErrClosed // closed outranks a takeover or stop
		}
		d.inj.s.mu.Unlock()
		d.inj.releaseAll()
		// Bounded, and long enough for a busy machine to start xclip.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		d.clip.handOff(ctx, d.opts.Display)
		cancel()
		d.closeConns()
		d.wg.Wait()
		d.inj.s.leave(d)
		if d.opts.StopKeys != nil {
			d.opts.StopKeys.Leave(stopKeyName(d), x11Stop{d})
		}
	})
	return nil
}

func (d *Driver) closeConns() {
	d.cap.close()
	d.ctl.Close()
}

var _ device.Device = (*Driver)(nil)
