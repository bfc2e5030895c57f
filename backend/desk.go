package backend

import (
	"context"
	"errors"
	"sync"
	"time"

	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/mirror"
	"tandem/mirror/stream"
)

// A desk is one device as the person has it in front of them: its frame
// feed, kept fresh while anyone watches (the main window's mirror, a
// pop-out, a tile, a benchmark), and the live connection the person's
// input takes. There is one desk per device and any number of viewers per
// desk: a pop-out of phone A keeps its stream and its touches while the
// main window shows phone B.
//
// A phone gets a live H.264 stream when it can (stream.Open: scrcpy, then
// screenrecord), which runs whether or not the agent drives, beside the
// agent's own lossless screenshots. Otherwise, and for the desktop, stills:
// while the agent drives, the engine's own screenshots reach the mirror
// (publishing); the feed only polls when they do not flow: no run, or the
// run waits for the person or is driven by them.
type desk struct {
	id      string
	dev     device.Device
	cancel  context.CancelFunc
	poke    chan struct{}
	done    chan struct{}
	viewers map[string]bool
	// src is the live video, when there is one (the feed's loop sets it).
	srcMu sync.Mutex
	src   stream.Source
}

// desks holds the desk of every device someone watches.
type desks struct {
	devices *Devices
	hub     *mirror.Hub
	// agentBusy reports whether a run on the device is producing frames.
	agentBusy func(id string) bool
	// scrcpyJar overrides the search for scrcpy-server's jar
	// (TANDEM_SCRCPY_SERVER); settingJar is the file chosen in Settings,
	// used when there is no override (nil: none).
	scrcpyJar  string
	settingJar func() string
	// versions remembers each jar's release; jarPaths are where an
	// installed scrcpy keeps it (stream.JarPaths; tests set their own).
	versions stream.JarVersions
	jarPaths []string
	// noScreenrecord skips the screenrecord path (benchmarks of polling).
	noScreenrecord bool

	// opening serializes making desks (opening a device takes a while),
	// so two viewers of one device never open it twice.
	opening sync.Mutex
	mu      sync.Mutex
	byID    map[string]*desk
	watches map[string]string // viewer -> the device it watches
}

func newDesks(devices *Devices, hub *mirror.Hub, agentBusy func(string) bool) *desks {
	return &desks{devices: devices, hub: hub, agentBusy: agentBusy, byID: map[string]*desk{}, watches: map[string]string{}, jarPaths: stream.JarPaths}
}

// pollEvery is the gap between captures: a phone's screencap already takes
// a few hundred ms; the desktop captures fast.
func pollEvery(k device.Kind) time.Duration {
	if k == device.Desktop {
		return 50 * time.Millisecond
	}
	return 150 * time.Millisecond
}

// Watch makes viewer watch device id (one device per viewer: the main
// window's mirror moves from device to device, a pop-out stays on its
// own). The device's desk starts with its first viewer and stops with its
// last; other viewers' desks are left as they are.
func (f *desks) Watch(ctx context.Context, viewer, id string) error {
	f.mu.Lock()
	if d := f.byID[id]; d != nil && f.watches[viewer] == id {
		f.mu.Unlock()
		f.Poke(id)
		return nil
	}
	f.mu.Unlock()
	if err := f.open(ctx, id); err != nil {
		return err
	}
	f.mu.Lock()
	d := f.byID[id]
	if d == nil { // stopped meanwhile by its last viewer leaving: rare; ask again
		f.mu.Unlock()
		return errors.New("the device's screen closed while it opened: try again")
	}
	old := f.watches[viewer]
	f.watches[viewer] = id
	d.viewers[viewer] = true
	var gone *desk
	if old != "" && old != id {
		gone = f.leaveLocked(viewer, old)
	}
	f.mu.Unlock()
	if gone != nil {
		gone.stop()
	}
	return nil
}

// Unwatch ends viewer's watch; the desk stops when it was the last.
func (f *desks) Unwatch(viewer string) {
	f.mu.Lock()
	old := f.watches[viewer]
	delete(f.watches, viewer)
	gone := f.leaveLocked(viewer, old)
	f.mu.Unlock()
	if gone != nil {
		gone.stop()
		f.hub.SettleLater(old) // no one watches: its last picture need not stay raw
	}
}

// leaveLocked takes viewer off device id's desk and returns the desk when
// it has no viewer left (removed; the caller stops it outside the lock).
func (f *desks) leaveLocked(viewer, id string) *desk {
	d := f.byID[id]
	if d == nil {
		return nil
	}
	delete(d.viewers, viewer)
	if len(d.viewers) > 0 {
		return nil
	}
	delete(f.byID, id)
	return d
}

// open makes device id's desk and starts its feed, unless it has one.
func (f *desks) open(ctx context.Context, id string) error {
	f.opening.Lock()
	defer f.opening.Unlock()
	f.mu.Lock()
	exists := f.byID[id] != nil
	f.mu.Unlock()
	if exists {
		return nil
	}
	dev, err := f.devices.Open(ctx, id)
	if err != nil {
		return err
	}
	info, err := dev.Info(ctx)
	if err != nil {
		dev.Close()
		return err
	}
	// The loop outlives this call: the desk's last viewer ends it.
	loopCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	d := &desk{id: id, dev: dev, cancel: cancel, poke: make(chan struct{}, 1), done: make(chan struct{}), viewers: map[string]bool{}}
	f.mu.Lock()
	f.byID[id] = d
	f.mu.Unlock()
	if info.Kind == device.Phone {
		go f.phoneLoop(loopCtx, id, dev, info, d.poke, d.done)
		return nil
	}
	go f.desktopLoop(loopCtx, id, dev, d.poke, d.done)
	return nil
}

// stop ends the desk's feed and closes its device handle.
func (d *desk) stop() {
	d.cancel()
	<-d.done
	d.dev.Close()
}

// stopAll ends every desk (the backend is shutting down).
func (f *desks) stopAll() {
	f.mu.Lock()
	all := make([]*desk, 0, len(f.byID))
	for id, d := range f.byID {
		all = append(all, d)
		delete(f.byID, id)
	}
	f.watches = map[string]string{}
	f.mu.Unlock()
	for _, d := range all {
		d.stop()
	}
}

// get is device id's desk, nil when nobody watches it.
func (f *desks) get(id string) *desk {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.byID[id]
}

// setSource records device id's live video (nil: none now).
func (f *desks) setSource(id string, src stream.Source) {
	if d := f.get(id); d != nil {
		d.srcMu.Lock()
		d.src = src
		d.srcMu.Unlock()
	}
}

// ErrNoLiveInput means the mirror's path takes no live touches (not scrcpy).
var ErrNoLiveInput = errors.New("this mirror takes no live touches; send the gesture instead")

// Touch sends one pointer phase ("down", "move", "up", "cancel") at device
// pixels live to phone id, when its mirror runs over scrcpy.
func (f *desks) Touch(ctx context.Context, id, phase string, x, y int) error {
	t, ok := f.liveTo(id)
	if !ok {
		return ErrNoLiveInput
	}
	return stream.TouchPhase(ctx, t, phase, x, y)
}

// liveTo is the live connection to device id, when its mirror runs over
// one. Each desk keeps its own, so no device's input can take another's.
func (f *desks) liveTo(id string) (stream.Toucher, bool) {
	d := f.get(id)
	if d == nil {
		return nil, false
	}
	d.srcMu.Lock()
	defer d.srcMu.Unlock()
	t, ok := d.src.(stream.Toucher)
	return t, ok
}

// Poke asks device id's feed for a capture now (after the person acted).
func (f *desks) Poke(id string) {
	if d := f.get(id); d != nil {
		select {
		case d.poke <- struct{}{}:
		default:
		}
	}
}

// Do performs the person's input on device id, which has no run.
func (f *desks) Do(ctx context.Context, id string, a action.Action) error {
	d := f.get(id)
	if d == nil {
		return errors.New("that device's screen is not open: select it first")
	}
	info, err := d.dev.Info(ctx)
	if err != nil {
		return err
	}
	if err := a.Validate(info.Screen); err != nil {
		return err
	}
	err = f.personDo(ctx, id, d.dev, a)
	f.Poke(id)
	return err
}

// personDoer is a desktop driver, which makes the person's input through
// Tandem while they drive though a take-over halted the agent's.
type personDoer interface {
	PersonDo(ctx context.Context, a action.Action) error
}

// personDo is the one path of the person's input to device id, with or
// without a run (the run's Config.PersonInput): over the live mirror's
// scrcpy connection, text goes by clipboard paste (any script, no ADB
// Keyboard) and keys by the control socket; everything else, and every
// input when the mirror is not live, through dev.
func (f *desks) personDo(ctx context.Context, id string, dev device.Device, a action.Action) error {
	if d, ok := dev.(personDoer); ok { // this computer: the person's input though the agent is halted
		return d.PersonDo(ctx, a)
	}
	if t, live := f.liveTo(id); live {
		if handled, err := stream.Do(ctx, t, a); handled {
			return err
		}
	}
	return dev.Do(ctx, a)
}
