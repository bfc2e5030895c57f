package backend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"sync"
	"time"

	"tandem/engine/device"
	"tandem/internal/h264enc"
	"tandem/internal/scrcpy"
	"tandem/mirror"
	"tandem/mirror/stream"
)

// shooterInto is a driver that captures into a caller's buffer.
type shooterInto interface {
	ScreenshotInto(ctx context.Context, dst *image.RGBA) (*image.RGBA, error)
}

// desktopLoop mirrors a display as H.264: it captures at the display's pace
// (60 Hz), compares each picture with the last one and encodes only
// changes; ffmpeg scales them down to the size its largest viewer shows
// (mirror.Hub.VideoSide, within the hub's MaxSide) before encoding, and is
// started again at a new size when that changes. Capturing the next
// picture overlaps with ffmpeg encoding the last. Without ffmpeg it falls
// back to JPEG stills.
//
// A screen that has not changed for desktopIdleAfter is looked at
// desktopIdleRate times a second instead (an agent's action pokes the loop
// at once, so the mirror still shows it without delay): a static 1920x1080
// display cost a fifth of a core at 60 Hz (BenchmarkMirrorDesktopIdle).
func (f *desks) desktopLoop(ctx context.Context, id string, dev device.Device, poke <-chan struct{}, done chan struct{}) {
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
	f        *desks
	id       string
	enc      *h264enc.Encoder
	side     int // the longer side enc was started for (VideoSide)
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
			// A copy: the hub keeps the picture for its viewers to encode,
			// and the next capture overwrites img.
			hub.Publish(d.id, &image.RGBA{Pix: bytes.Clone(img.Pix), Stride: img.Stride, Rect: img.Rect}, at)
			d.prev = append(d.prev[:0], img.Pix...)
			d.changed = at
		}
		return true
	}
	side := hub.VideoSide(d.id, img.Bounds().Size())
	if side == 0 {
		side = hub.MaxSide // no viewer yet: the bound
	}
	if d.enc == nil || len(d.prev) != len(img.Pix) || side != d.side {
		if err := d.startEncoder(ctx, img.Bounds().Dx(), img.Bounds().Dy(), side); err != nil {
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

// startEncoder (re)starts the encoder for a w x h screen, its video within
// side on its longer side (0: the screen's size).
func (d *desktopFeed) startEncoder(ctx context.Context, w, h, side int) error {
	d.stopEncoder()
	hub := d.f.hub
	vw, vh := fitSide(w, h, side)
	enc, err := h264enc.Start(ctx, h264enc.Options{SrcW: w, SrcH: h, Width: vw, Height: vh}, func(p h264enc.Packet) error {
		hub.PublishVideo(d.id, mirror.Frame{Config: p.Config, Key: p.Key, Width: w, Height: h, At: p.At, Data: p.Data})
		return nil
	})
	if err != nil {
		return err
	}
	d.enc, d.side = enc, side
	hub.MadeAt(d.id, image.Pt(w, h), side)
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
func (f *desks) phoneLoop(ctx context.Context, id string, dev device.Device, info device.Info, poke <-chan struct{}, done chan struct{}) {
	override := f.scrcpyJar
	if override == "" && f.settingJar != nil {
		override = f.settingJar()
	}
	jar, err := stream.FindJarIn(override, f.jarPaths)
	reason := ""
	if err != nil {
		reason = err.Error() + "; "
	}
	srv, serial, _, err := f.devices.Phone(id)
	if err != nil {
		reason += err.Error() + "; "
	}
	o := stream.Options{Server: srv, Serial: serial, Screen: [2]int{info.Screen.W, info.Screen.H}, ScrcpyJar: jar,
		Versions: &f.versions, NoScreenrecord: f.noScreenrecord}
	sw, sh := info.Screen.W, info.Screen.H
	held := &heldPackets{send: func(p stream.Packet) {
		w, h := sw, sh
		if p.Width > 0 && (p.Width > p.Height) != (w > h) {
			w, h = h, w // the phone turned
		}
		f.hub.PublishVideo(id, mirror.Frame{Config: p.Config, Key: p.Key, Width: w, Height: h, At: p.At, Data: p.Data})
	}}
	publish := held.publish
	screen := image.Pt(sw, sh)
	for fails := 0; fails < 3 && ctx.Err() == nil; {
		if f.hub.StillsOnly(id) {
			f.pollWhileStillsOnly(ctx, id, dev, poke)
			continue
		}
		o.MaxSide = f.videoSide(ctx, id, screen)
		started := time.Now()
		src, why, err := stream.OpenWhy(ctx, o, publish)
		if err != nil {
			if ctx.Err() != nil {
				close(done)
				return
			}
			reason += why.Text
			break
		}
		f.setSource(id, src)
		f.hub.MadeAt(id, screen, o.MaxSide)
		f.hub.SetPath(id, mirror.Path{Path: string(src.Path()), Reason: reason + why.Text, Code: pathCode(src.Path(), jar, why.ScrcpyErr), Version: why.Scrcpy})
		held.named(true)
		resized := f.streamUntil(ctx, id, src, screen, o.MaxSide)
		src.Close()
		held.named(false)
		f.setSource(id, nil)
		if resized && ctx.Err() == nil {
			continue // the same path at the size its viewers show; the last picture stays meanwhile
		}
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

// firstLook bounds the wait of a phone's new desk for its first viewer's
// size (the viewer's socket comes just after the desk opens), after which
// its video starts at the full size.
const firstLook = 2 * time.Second

// videoSide is the longer side device id's video is to have
// (mirror.Hub.VideoSide): as soon as someone watches, within firstLook;
// then the hub's bound. 0 lets the stream choose.
func (f *desks) videoSide(ctx context.Context, id string, screen image.Point) int {
	deadline := time.NewTimer(firstLook)
	defer deadline.Stop()
	for {
		changed := f.hub.Changed(id)
		if side := f.hub.VideoSide(id, screen); side > 0 {
			return side
		}
		select {
		case <-ctx.Done():
			return 0
		case <-deadline.C:
			return f.hub.MaxSide
		case <-changed:
		}
	}
}

// streamUntil waits while src streams device id at side: until it ends, a
// window that cannot decode video starts watching, or those who watch want
// another size (then true). The channel is taken before each check, so no
// change is missed.
func (f *desks) streamUntil(ctx context.Context, id string, src stream.Source, screen image.Point, side int) (resized bool) {
	for {
		changed := f.hub.Changed(id)
		if f.hub.StillsOnly(id) {
			return false
		}
		if remake(side, f.hub.VideoSide(id, screen), screen) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-src.Done():
			return false
		case <-changed:
		}
	}
}

// remake reports whether a stream made at side (0: the screen's own) is
// made again for the side its viewers want (0: not told): at once when
// they need more pixels (a larger box, a recording's full size), for
// fewer only when that saves a third of the side or more. Each new start
// stops the picture and the person's live input for a moment, and a box
// that settles by a step (640 to 480 as the window lays out; it went back
// and forth in the mirror's e2e test) is not worth it.
func remake(side, want int, screen image.Point) bool {
	if side <= 0 {
		side = max(screen.X, screen.Y)
	}
	return want > 0 && (want > side || want*3 <= side*2)
}

// heldPackets keeps the packets that come while a stream opens until the
// hub names its path, so a viewer never gets frames under the path ""
// (issue 30).
type heldPackets struct {
	mu    sync.Mutex
	on    bool
	early []stream.Packet
	send  func(stream.Packet)
}

func (h *heldPackets) publish(p stream.Packet) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.on {
		h.early = append(h.early, p)
		return
	}
	h.send(p)
}

// named lets packets through (on, after those held) or holds them again.
func (h *heldPackets) named(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.on = on
	if on {
		for _, p := range h.early {
			h.send(p)
		}
	}
	h.early = nil
}

// pathCode names why a phone's video took the path it did.
func pathCode(p stream.Path, jar string, scrcpyErr error) string {
	switch {
	case p == stream.PathScrcpy:
		return "scrcpy"
	case jar == "":
		return "screenrecord_no_jar"
	case errors.Is(scrcpyErr, scrcpy.ErrTooOld):
		return "screenrecord_scrcpy_too_old"
	case errors.Is(scrcpyErr, scrcpy.ErrTooNew):
		return "screenrecord_scrcpy_too_new"
	}
	return "screenrecord_scrcpy_failed"
}

// pollWhileStillsOnly polls screencap while a client that cannot decode
// video watches the phone.
func (f *desks) pollWhileStillsOnly(ctx context.Context, id string, dev device.Device, poke <-chan struct{}) {
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

func (f *desks) loop(ctx context.Context, id string, dev device.Device, every time.Duration, poke <-chan struct{}, done chan struct{}) {
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
				f.hub.Publish(id, img, at)
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
