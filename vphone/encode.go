package vphone

import (
	"context"
	"errors"
	"sync"
	"time"

	"tandem/internal/h264enc"
	"tandem/vphone/render"
)

// The phone's video encoder, behind both `screenrecord` and the scrcpy
// endpoint: Debian's ffmpeg through h264enc.
//
// Frames are produced like a real display's: a 60 Hz "vsync" looks at what
// the screen shows and hands a frame to the encoder only when the picture
// changed (an input, an animation step, the secure switch). A static screen
// sends nothing, as on a phone; the first frame is sent at once.

// ErrNoEncoder means ffmpeg is not installed.
var ErrNoEncoder = h264enc.ErrNoFFmpeg

// vsync is the display's refresh period.
const vsync = time.Second / 60

// encodeOptions configure one encoding session.
type encodeOptions struct {
	Width, Height int           // output size, even; 0 = the screen's
	BitRate       int           // bits per second
	MaxFPS        int           // 0 = the display's rate
	GOP           int           // frames between key frames
	Limit         time.Duration // from the first packet out; 0 = until ctx ends
	// Letterbox keeps the video size when the display turns, fitting the
	// turned picture in black bars (screenrecord); otherwise a turn ends
	// the session with errRotated (scrcpy restarts its encoder).
	Letterbox bool
}

// errRotated ends an encoding session whose display turned.
var errRotated = errors.New("vphone: the display rotated")

// h264Packet is one encoder output unit, Annex-B.
type h264Packet = h264enc.Packet

// screenKey identifies what the screen shows now.
func (p *Phone) screenKey() shotKey {
	p.mu.Lock()
	defer p.mu.Unlock()
	return shotKey{version: p.m.version, frame: p.m.frame(p.now()), secure: p.faults.secure, rotation: p.rotation}
}

// encodeScreen streams the screen as H.264 packets to emit until ctx ends,
// the time limit passes, or emit fails.
func (p *Phone) encodeScreen(ctx context.Context, o encodeOptions, emit func(h264Packet) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p.mu.Lock()
	srcW, srcH := p.displaySize()
	p.mu.Unlock()
	// The time limit counts from the encoder's first output, as AOSP's
	// screenrecord counts from when its encoder runs: a slow start (an
	// encoder warming up on a busy machine) never eats the recording.
	limit := time.AfterFunc(time.Hour, cancel)
	limit.Stop()
	defer limit.Stop()
	var armed sync.Once
	enc, err := h264enc.Start(ctx, h264enc.Options{SrcW: srcW, SrcH: srcH, Width: o.Width, Height: o.Height,
		BitRate: o.BitRate, GOP: o.GOP}, func(pk h264Packet) error {
		if o.Limit > 0 {
			armed.Do(func() { limit.Reset(o.Limit) })
		}
		if err := emit(pk); err != nil {
			cancel() // the client is gone
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	// max_fps spaces frames at least this far apart; half a vsync of slack
	// keeps ticker jitter from dropping every other frame at 60.
	minGap := time.Duration(0)
	if o.MaxFPS > 0 {
		minGap = time.Second/time.Duration(o.MaxFPS) - vsync/2
	}
	tick := time.NewTicker(vsync)
	defer tick.Stop()
	var last shotKey
	var lastAt time.Time
	first := true
	rotated := false
	for ctx.Err() == nil {
		key := p.screenKey()
		if (first || key != last) && time.Since(lastAt) >= minGap {
			at := time.Now()
			img := p.Screenshot()
			if b := img.Bounds(); b.Dx() != srcW || b.Dy() != srcH {
				if !o.Letterbox {
					rotated = true
					break
				}
				img = render.Letterbox(img, srcW, srcH)
			}
			if err := enc.Encode(img.Pix, at); err != nil {
				break
			}
			last, lastAt, first = key, at, false
		}
		select {
		case <-ctx.Done():
		case <-enc.Done():
			cancel()
		case <-tick.C:
		}
	}
	err = enc.Close()
	if rotated {
		return errRotated
	}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return nil // the session ended (time limit, client gone): not an error
	}
	return err
}
