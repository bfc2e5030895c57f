//go:build windows

package win

import (
	"context"
	"fmt"
	"image"
	"sync"
	"time"

	"github.com/kbinani/screenshot"

	"tandem/devices/desktop"
	"tandem/engine/action"
	"tandem/engine/device"
)

// Options configure a driver; the fields mean what desktop.Options' do
// (Display, PasteKeys: unused on Windows). The zero value is usable.
type Options = desktop.Options

// Displays lists this computer's monitors as devices in Windows' order;
// "desktop:N" opens monitor N.
func Displays(ctx context.Context) ([]device.Info, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ms := monitors()
	if len(ms) == 0 {
		return nil, fmt.Errorf("%w: Windows reports no active display", device.ErrGone)
	}
	out := make([]device.Info, len(ms))
	for i, m := range ms {
		out[i] = infoFor(i, m)
	}
	return out, nil
}

func monitors() []monitor {
	dpiAware()
	n := screenshot.NumActiveDisplays()
	ms := make([]monitor, 0, n)
	for i := 0; i < n; i++ {
		m := monitor{Bounds: screenshot.GetDisplayBounds(i)}
		describeMonitor(&m)
		ms = append(ms, m)
	}
	return ms
}

// Driver operates one monitor. It is safe for concurrent use; actions run
// one at a time.
type Driver struct {
	opts   Options
	bounds image.Rectangle
	info   device.Info
	caps   device.Capabilities
	stop   desktop.Chord

	inj  injector
	in   *inputThread
	hand handQueue
	acts chan action.Action

	takeover chan struct{}
	stopped  chan struct{}
	quit     chan struct{}
	wg       sync.WaitGroup
	closeMu  sync.Once
}

// Open opens monitor id ("desktop:N") and registers the stop hotkey. The
// takeover watcher starts with the first action.
func Open(ctx context.Context, id string, opts Options) (*Driver, error) {
	index, err := desktop.ParseID(id)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts.StopHotkey == "" {
		opts.StopHotkey = DefaultStopHotkey
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 25 * time.Millisecond
	}
	if opts.ScrollClicks <= 0 {
		opts.ScrollClicks = 5
	}
	stop, err := desktop.ParseChord([]string{opts.StopHotkey})
	if err != nil {
		return nil, fmt.Errorf("stop hotkey: %w", err)
	}
	ms := monitors()
	if index >= len(ms) {
		return nil, fmt.Errorf("%w: %s (this computer has %d)", desktop.ErrNoDisplay, id, len(ms))
	}
	d := &Driver{
		opts:     opts,
		bounds:   ms[index].Bounds,
		info:     infoFor(index, ms[index]),
		caps:     capabilities(),
		stop:     stop,
		hand:     handQueue{wake: make(chan struct{}, 1)},
		acts:     make(chan action.Action),
		takeover: make(chan struct{}, 1),
		stopped:  make(chan struct{}, 1),
		quit:     make(chan struct{}),
	}
	d.inj.init()
	d.inj.took = d.tookLocked
	target := &hookTarget{person: d.inj.person, epoch: &d.inj.epoch, reported: &d.inj.reported, watching: &d.inj.watching,
		hand: func(e desktop.HandEvent) { d.hand.push(handItem{ev: e, epoch: d.inj.epoch.Load()}) }}
	fire := d.stopPressed
	if opts.StopKeys != nil {
		fire = func() { opts.StopKeys.Fire(d.stopKey()) }
	}
	if d.in, err = startInput(stop, target, fire, opts.StopKeys == nil); err != nil {
		return nil, err
	}
	if opts.StopKeys != nil {
		if err := opts.StopKeys.Join(d.stopKey(), winStop{d}); err != nil {
			d.in.close()
			return nil, err
		}
	}
	d.wg.Add(2)
	go d.watch()
	go d.handLoop()
	return d, nil
}

// winStop is a driver as a member of a desktop.StopKeys: the drivers of one
// process share the stop hotkey, so a second monitor can be driven at once
// (Windows lets a hotkey be registered once; issue 27).
type winStop struct{ d *Driver }

func (m winStop) GrabStop() error { return m.d.in.grab() }
func (m winStop) StopPressed()    { m.d.stopPressed() }

// stopKey names the hotkey among a StopKeys' hotkeys (one desktop session).
func (d *Driver) stopKey() string { return "windows|" + d.stop.String() }

func capabilities() device.Capabilities {
	return device.Capabilities{
		Actions: []action.Type{action.Tap, action.DoubleTap, action.LongPress, action.Drag,
			action.RightClick, action.Scroll, action.TypeText, action.Key, action.Hotkey, action.Wait},
	}
}

// Info describes the monitor.
func (d *Driver) Info(ctx context.Context) (device.Info, error) {
	if err := ctx.Err(); err != nil {
		return device.Info{}, err
	}
	return d.info, nil
}

// Capabilities says what a desktop can do: no launch, no swipe, no UI tree.
func (d *Driver) Capabilities() device.Capabilities { return d.caps }

// Bounds is the monitor's rectangle on the virtual screen.
func (d *Driver) Bounds() image.Rectangle { return d.bounds }

// Screenshot captures the monitor, in the coordinate space of actions;
// Tandem's own windows are painted over (own_windows.go).
func (d *Driver) Screenshot(ctx context.Context) (image.Image, error) {
	return d.ScreenshotInto(ctx, nil)
}

// ScreenshotInto is Screenshot; dst is not reused (GDI capture allocates).
func (d *Driver) ScreenshotInto(ctx context.Context, _ *image.RGBA) (*image.RGBA, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case <-d.quit:
		return nil, desktop.ErrClosed
	default:
	}
	img, err := screenshot.CaptureRect(d.bounds)
	if err != nil {
		return nil, fmt.Errorf("%w: capture %v: %v", device.ErrGone, d.bounds, err)
	}
	d.maskOwn(img)
	return img, nil
}

// Takeover fires when the person moves the mouse, clicks or types while the
// agent drives. One pending signal is kept.
func (d *Driver) Takeover() <-chan struct{} { return d.takeover }

// PersonDrives halts the agent as the person's hand does, without the
// Takeover signal: the person took over through Tandem, and from now until
// Resume their own input is reported on PersonActs.
func (d *Driver) PersonDrives() {
	d.inj.mu.Lock()
	defer d.inj.mu.Unlock()
	if d.inj.haltLocked(desktop.ErrTakenOver) {
		d.inj.driving = true
		d.inj.watch()
	}
}

// StopHotkey fires when the person presses the stop hotkey.
func (d *Driver) StopHotkey() <-chan struct{} { return d.stopped }

// StopChord is the stop hotkey in use, e.g. "ctrl+alt+esc".
func (d *Driver) StopChord() string { return d.stop.String() }

// Resume lets the agent drive again after a takeover or stop; the person's
// acts are no longer reported, and any not taken are dropped.
func (d *Driver) Resume() {
	d.inj.resume()
	d.hand.push(handItem{reset: true})
}

func (d *Driver) stopPressed() {
	d.inj.mu.Lock()
	d.inj.haltLocked(desktop.ErrStopped)
	d.inj.mu.Unlock()
	signal(d.stopped)
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Close releases held buttons and the hotkey.
func (d *Driver) Close() error {
	d.closeMu.Do(func() {
		close(d.quit)
		d.inj.mu.Lock()
		if !d.inj.haltLocked(desktop.ErrClosed) {
			d.inj.halt = desktop.ErrClosed
		}
		d.inj.mu.Unlock()
		d.inj.releaseAll()
		d.in.close()
		d.wg.Wait()
		if d.opts.StopKeys != nil {
			d.opts.StopKeys.Leave(d.stopKey(), winStop{d})
		}
	})
	return nil
}

var _ device.Device = (*Driver)(nil)
