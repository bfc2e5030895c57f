package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"sync"
	"time"

	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/internal/h264enc"
	"tandem/mirror"
	"tandem/mirror/stream"
)

// feed keeps the mirror of one device (the one the person is looking at)
// fresh. A phone gets a live H.264 stream when it can (stream.Open: scrcpy,
// then screenrecord), which runs whether or not the agent drives, beside the
// agent's own lossless screenshots. Otherwise, and for the desktop, stills:
// while the agent drives, the engine's own screenshots reach the mirror
// (publishing); the feed only polls when they do not flow: no run, or the run
// waits for the person or is driven by them. It also carries the person's
// input to a device that has no run, and live touches over scrcpy.
type feed struct {
	devices *Devices
	hub     *mirror.Hub
	// agentBusy reports whether a run on the device is producing frames.
	agentBusy func(id string) bool
	// scrcpyJar overrides the search for scrcpy-server's jar.
	scrcpyJar string
	// noScreenrecord skips the screenrecord path (benchmarks of polling).
	noScreenrecord bool

	mu     sync.Mutex
	id     string
	dev    device.Device
	cancel context.CancelFunc
	poke   chan struct{}
	done   chan struct{}
	// srcMu guards src apart from mu: Stop holds mu while it waits for the
	// loop, which sets src. Take mu first when both are needed.
	srcMu sync.Mutex
	src   stream.Source // the live video, when there is one
}

func newFeed(devices *Devices, hub *mirror.Hub, agentBusy func(string) bool) *feed {
	return &feed{devices: devices, hub: hub, agentBusy: agentBusy}
}

// pollEvery is the gap between captures: a phone's screencap already takes
// a few hundred ms; the desktop captures fast.
func pollEvery(k device.Kind) time.Duration {
	if k == device.Desktop {
		return 50 * time.Millisecond
	}
	return 150 * time.Millisecond
}

// Watch makes id the device the feed keeps fresh (stopping the previous one).
func (f *feed) Watch(ctx context.Context, id string) error {
	f.mu.Lock()
	if f.id == id && f.dev != nil {
		f.mu.Unlock()
		f.Poke()
		return nil
	}
	f.stopLocked()
	f.mu.Unlock()

	dev, err := f.devices.Open(ctx, id)
	if err != nil {
		return err
	}
	info, err := dev.Info(ctx)
	if err != nil {
		dev.Close()
		return err
	}
	// The loop outlives this call: Stop or the next Watch ends it.
	loopCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	f.mu.Lock()
	f.stopLocked()
	f.id, f.dev, f.cancel = id, dev, cancel
	f.poke, f.done = make(chan struct{}, 1), make(chan struct{})
	poke, done := f.poke, f.done
	f.mu.Unlock()
	if info.Kind == device.Phone {
		go f.phoneLoop(loopCtx, id, dev, info, poke, done)
		return nil
	}
	go f.desktopLoop(loopCtx, id, dev, poke, done)
	return nil
}

// shooterInto is a driver that captures into a caller's buffer.
type shooterInto interface {
	ScreenshotInto(ctx context.Context, dst *image.RGBA) (*image.RGBA, error)
}

// desktopLoop mirrors a display as H.264: it captures at the display's pace
// (60 Hz), compares each picture with the last one and encodes only
// changes; ffmpeg scales them down to the mirror's size (the hub's MaxSide)
// before encoding. Capturing the next picture overlaps with ffmpeg encoding
// the last. Without ffmpeg it falls back to JPEG stills.
//
// A screen that has not changed for desktopIdleAfter is looked at
// desktopIdleRate times a second instead (an agent's action pokes the loop
// at once, so the mirror still shows it without delay): a static 1920x1080
// display cost a fifth of a core at 60 Hz (BenchmarkMirrorDesktopIdle).
func (f *feed) desktopLoop(ctx context.Context, id string, dev device.Device, poke <-chan struct{}, done chan struct{}) {
	into, ok := dev.(shooterInto)
	if !ok {
		f.hub.SetPath(id, mirror.Path{Path: "desktop", Reason: "screen capture of this computer, as pictures", Code: "desktop_pictures"})
		f.loop(ctx, id, dev, pollEvery(device.Desktop), poke, done)
		return
	}
	defer close(done)
	defer f.hub.EndVideo(id)
	d := &desktopFeed{f: f, id: id, changed: time.Now()}
	defer d.stopEncoder()
	next := time.NewTimer(0)
	defer next.Stop()
	for ctx.Err() == nil {
		at := time.Now()
		img, err := into.ScreenshotInto(ctx, d.buf)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			d.failures++
		default:
			d.failures = 0
			d.buf = img
			if !d.show(ctx, img, at) {
				// No ffmpeg: JPEG stills (loop closes its own channel;
				// ours is closed by the defer when it returns).
				f.loop(ctx, id, dev, pollEvery(device.Desktop), poke, make(chan struct{}))
				return
			}
		}
		next.Reset(time.Until(at.Add(d.pace(at))))
		select {
		case <-ctx.Done():
			return
		case <-poke:
		case <-next.C:
		}
	}
}

// desktopFeed is the state of one desktop mirror: the H.264 encoder (nil:
// none yet, or pictures), the last screen sent, when it last changed.
type desktopFeed struct {
	f        *feed
	id       string
	enc      *h264enc.Encoder
	buf      *image.RGBA
	prev     []byte
	failures int
	changed  time.Time
}

func (d *desktopFeed) stopEncoder() {
	if d.enc != nil {
		d.enc.Close()
		d.enc = nil
	}
}

// show sends a screen that changed, as video or, to a window that cannot
// decode H.264, as a picture; false when no encoder can start (the caller
// falls back to pictures).
func (d *desktopFeed) show(ctx context.Context, img *image.RGBA, at time.Time) bool {
	hub := d.f.hub
	if hub.StillsOnly(d.id) {
		// A window without an H.264 decoder watches: pictures.
		if d.enc != nil || d.prev == nil {
			d.stopEncoder()
			hub.EndVideo(d.id)
			hub.SetPath(d.id, mirror.Path{Path: "desktop", Reason: "this window cannot decode H.264 (install gstreamer1.0-libav): pictures instead of video", Code: "no_decoder"})
			d.prev = []byte{} // differs from any picture: the next one is sent
		}
		if !bytes.Equal(d.prev, img.Pix) {
			_ = hub.Publish(d.id, img, at)
			d.prev = append(d.prev[:0], img.Pix...)
			d.changed = at
		}
		return true
	}
	if d.enc == nil || len(d.prev) != len(img.Pix) {
		if err := d.startEncoder(ctx, img.Bounds().Dx(), img.Bounds().Dy()); err != nil {
			hub.EndVideo(d.id)
			hub.SetPath(d.id, mirror.Path{Path: "desktop", Reason: err.Error() + "; pictures instead of video", Code: "desktop_encoder_failed"})
			return false
		}
	}
	if !bytes.Equal(d.prev, img.Pix) {
		if err := d.enc.Encode(img.Pix, at); err != nil {
			d.stopEncoder() // started again with the next screen
			return true
		}
		d.prev = append(d.prev[:0], img.Pix...)
		d.changed = at
	}
	return true
}

// startEncoder (re)starts the encoder for a w x h screen.
func (d *desktopFeed) startEncoder(ctx context.Context, w, h int) error {
	d.stopEncoder()
	hub := d.f.hub
	vw, vh := fitSide(w, h, hub.MaxSide)
	enc, err := h264enc.Start(ctx, h264enc.Options{SrcW: w, SrcH: h, Width: vw, Height: vh}, func(p h264enc.Packet) error {
		hub.PublishVideo(d.id, mirror.Frame{Config: p.Config, Key: p.Key, Width: w, Height: h, At: p.At, Data: p.Data})
		return nil
	})
	if err != nil {
		return err
	}
	d.enc = enc
	hub.SetPath(d.id, mirror.Path{Path: "desktop", Reason: fmt.Sprintf("this computer's screen as H.264 video (%dx%d, only when it changes)", vw, vh), Code: "desktop_video"})
	d.prev = nil
	return nil
}

// pace is how long to wait before the next look: 60 times a second, 10
// once the screen has not changed for a second, backing off while capture
// fails.
func (d *desktopFeed) pace(at time.Time) time.Duration {
	switch {
	case d.failures > 0:
		return min(50*time.Millisecond*time.Duration(1<<min(d.failures, 6)), 5*time.Second)
	case at.Sub(d.changed) > desktopIdleAfter:
		return time.Second / desktopIdleRate
	}
	return time.Second / 60
}

// The desktop mirror's idle pace (see desktopLoop).
const (
	desktopIdleAfter = time.Second
	desktopIdleRate  = 10
)

// fitSide fits w x h within maxSide on the longer side (0 = no limit).
func fitSide(w, h, maxSide int) (int, int) {
	if maxSide <= 0 || max(w, h) <= maxSide {
		return w, h
	}
	if w >= h {
		return maxSide, max(h*maxSide/w, 2)
	}
	return max(w*maxSide/h, 2), maxSide
}

// phoneLoop streams video while a path works and polls screencap otherwise.
// A stream that ends is reopened; after three quick failures in a row the
// feed settles for polling.
func (f *feed) phoneLoop(ctx context.Context, id string, dev device.Device, info device.Info, poke <-chan struct{}, done chan struct{}) {
	jar, err := stream.FindJar(f.scrcpyJar)
	reason := ""
	if err != nil {
		reason = err.Error() + "; "
	}
	o := stream.Options{Server: f.devices.ADB(), Serial: id, Screen: [2]int{info.Screen.W, info.Screen.H}, ScrcpyJar: jar, NoScreenrecord: f.noScreenrecord}
	sw, sh := info.Screen.W, info.Screen.H
	publish := func(p stream.Packet) {
		w, h := sw, sh
		if p.Width > 0 && (p.Width > p.Height) != (w > h) {
			w, h = h, w // the phone turned
		}
		f.hub.PublishVideo(id, mirror.Frame{Config: p.Config, Key: p.Key, Width: w, Height: h, At: p.At, Data: p.Data})
	}
	for fails := 0; fails < 3 && ctx.Err() == nil; {
		if f.hub.StillsOnly(id) {
			f.pollWhileStillsOnly(ctx, id, dev, poke)
			continue
		}
		started := time.Now()
		src, why, err := stream.Open(ctx, o, publish)
		if err != nil {
			if ctx.Err() != nil {
				close(done)
				return
			}
			reason += why
			break
		}
		f.setSource(src)
		f.hub.SetPath(id, mirror.Path{Path: string(src.Path()), Reason: reason + why, Code: pathCode(src.Path(), jar)})
		// Run until the stream ends, or a window that cannot decode video
		// starts watching (the channel is taken before the check, so no
		// change is missed).
		for stop := false; !stop; {
			changed := f.hub.Changed(id)
			if f.hub.StillsOnly(id) {
				break
			}
			select {
			case <-ctx.Done():
				stop = true
			case <-src.Done():
				stop = true
			case <-changed:
			}
		}
		src.Close()
		f.setSource(nil)
		f.hub.EndVideo(id)
		if ctx.Err() != nil {
			close(done)
			return
		}
		if f.hub.StillsOnly(id) {
			continue
		}
		reason = fmt.Sprintf("the %s stream ended (%v); ", src.Path(), src.Err())
		if time.Since(started) < 10*time.Second {
			fails++
		} else {
			fails = 0
		}
	}
	f.hub.SetPath(id, mirror.Path{Path: string(stream.PathScreencap), Reason: reason, Code: "screencap"})
	f.loop(ctx, id, dev, pollEvery(device.Phone), poke, done)
}

// pathCode names why a phone's video took the path it did.
func pathCode(p stream.Path, jar string) string {
	switch {
	case p == stream.PathScrcpy:
		return "scrcpy"
	case jar == "":
		return "screenrecord_no_jar"
	}
	return "screenrecord_scrcpy_failed"
}

// pollWhileStillsOnly polls screencap while a client that cannot decode
// video watches the phone.
func (f *feed) pollWhileStillsOnly(ctx context.Context, id string, dev device.Device, poke <-chan struct{}) {
	f.hub.SetPath(id, mirror.Path{Path: string(stream.PathScreencap), Reason: "this window cannot decode H.264 (install gstreamer1.0-libav): pictures instead of video", Code: "no_decoder"})
	lctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go f.loop(lctx, id, dev, pollEvery(device.Phone), poke, done)
	for ctx.Err() == nil {
		changed := f.hub.Changed(id)
		if !f.hub.StillsOnly(id) {
			break
		}
		select {
		case <-ctx.Done():
		case <-changed:
		}
	}
	cancel()
	<-done
}

func (f *feed) setSource(src stream.Source) {
	f.srcMu.Lock()
	f.src = src
	f.srcMu.Unlock()
}

// ErrNoLiveInput means the mirror's path takes no live touches (not scrcpy).
var ErrNoLiveInput = errors.New("this mirror takes no live touches; send the gesture instead")

// Touch sends one pointer phase ("down", "move", "up", "cancel") at device
// pixels live to the watched phone, when its mirror runs over scrcpy.
func (f *feed) Touch(ctx context.Context, id, phase string, x, y int) error {
	t, ok := f.liveTo(id)
	if !ok {
		return ErrNoLiveInput
	}
	return stream.TouchPhase(ctx, t, phase, x, y)
}

// liveTo is the live connection to device id, when its mirror runs over
// one. The watched device and its source are read together: a Watch in
// between must not hand one device's input to another's connection.
func (f *feed) liveTo(id string) (stream.Toucher, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.srcMu.Lock()
	defer f.srcMu.Unlock()
	t, ok := f.src.(stream.Toucher)
	return t, ok && f.id == id
}

// Poke asks for a capture now (after the person acted).
func (f *feed) Poke() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.poke != nil {
		select {
		case f.poke <- struct{}{}:
		default:
		}
	}
}

func (f *feed) loop(ctx context.Context, id string, dev device.Device, every time.Duration, poke <-chan struct{}, done chan struct{}) {
	defer close(done)
	failures := 0
	for {
		if !f.agentBusy(id) {
			at := time.Now() // the frame's time is when its capture began
			img, err := dev.Screenshot(ctx)
			switch {
			case ctx.Err() != nil:
				return
			case err == nil:
				failures = 0
				_ = f.hub.Publish(id, img, at)
			default:
				failures++ // a secure screen or a hiccup: keep the last frame, back off
			}
		}
		wait := every
		if failures > 0 {
			wait = min(every*time.Duration(1<<min(failures, 5)), 5*time.Second)
		}
		select {
		case <-ctx.Done():
			return
		case <-poke:
		case <-time.After(wait):
		}
	}
}

// Do performs the person's input on the watched device (no run on it).
func (f *feed) Do(ctx context.Context, id string, a action.Action) error {
	f.mu.Lock()
	dev := f.dev
	if f.id != id {
		dev = nil
	}
	f.mu.Unlock()
	if dev == nil {
		return errors.New("that device's screen is not open: select it first")
	}
	info, err := dev.Info(ctx)
	if err != nil {
		return err
	}
	if err := a.Validate(info.Screen); err != nil {
		return err
	}
	err = f.personDo(ctx, id, dev, a)
	f.Poke()
	return err
}

// personDo is the one path of the person's input to device id, with or
// without a run (the run's Config.PersonInput): over the live mirror's
// scrcpy connection, text goes by clipboard paste (any script, no ADB
// Keyboard) and keys by the control socket; everything else, and every
// input when the mirror is not live, through dev.
func (f *feed) personDo(ctx context.Context, id string, dev device.Device, a action.Action) error {
	if t, live := f.liveTo(id); live {
		if handled, err := stream.Do(ctx, t, a); handled {
			return err
		}
	}
	return dev.Do(ctx, a)
}

// Stop ends the feed and closes its device handle.
func (f *feed) Stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopLocked()
}

func (f *feed) stopLocked() {
	if f.cancel != nil {
		f.cancel()
		<-f.done
	}
	if f.dev != nil {
		f.dev.Close()
	}
	f.id, f.dev, f.cancel, f.poke, f.done = "", nil, nil, nil, nil
}
