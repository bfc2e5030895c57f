// Package encode is the virtual phone's video encoder, behind both its
// `screenrecord` and its scrcpy endpoint: Debian's ffmpeg through h264enc.
// It is apart from the phone because it knows no screen or app: it asks a
// Screen what it shows, when that changed and what it looks like.
//
// Frames are produced like a real display's: a 60 Hz "vsync" looks at what
// the screen shows and hands a frame to the encoder only when the picture
// changed (an input, an animation step, the secure switch). A static screen
// sends nothing, as on a phone; the first frame is sent at once.
package encode

import (
	"context"
	"errors"
	"image"
	"sync"
	"time"

	"tandem/internal/h264enc"
	"tandem/vphone/render"
)

// ErrNoEncoder means ffmpeg is not installed.
var ErrNoEncoder = h264enc.ErrNoFFmpeg

// vsync is the display's refresh period.
const vsync = time.Second / 60

// Options configure one encoding session.
type Options struct {
	Width, Height int           // output size, even; 0 = the screen's
	BitRate       int           // bits per second
	MaxFPS        int           // 0 = the display's rate
	GOP           int           // frames between key frames
	Limit         time.Duration // from the first packet out; 0 = until ctx ends
	// Letterbox keeps the video size when the display turns, fitting the
	// turned picture in black bars (screenrecord); otherwise a turn ends
	// the session with ErrRotated (scrcpy restarts its encoder).
	Letterbox bool
	// RepeatAfter, when set, encodes the last picture once more when the
	// screen has not changed for this long, as scrcpy-server asks of its
	// encoder (KEY_REPEAT_PREVIOUS_FRAME_AFTER, 100 ms, "repeated
	// (once)"): a client whose decoder holds a frame back still shows it.
	RepeatAfter time.Duration
}

// ErrRotated ends an encoding session whose display turned.
var ErrRotated = errors.New("vphone: the display rotated")

// Packet is one encoder output unit, Annex-B.
type Packet = h264enc.Packet

// Screen is what is encoded. K names what the screen shows: it changes
// whenever the picture does.
type Screen[K comparable] interface {
	// Size is the display's size now, in pixels.
	Size() (w, h int)
	// Key names what the screen shows now.
	Key() K
	// Picture is what the screen shows now.
	Picture() *image.RGBA
}

// Stream sends the screen as H.264 packets to emit until ctx ends, the time
// limit passes, or emit fails.
func Stream[K comparable](ctx context.Context, s Screen[K], o Options, emit func(Packet) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srcW, srcH := s.Size()
	// The time limit counts from the encoder's first output, as AOSP's
	// screenrecord counts from when its encoder runs: a slow start (an
	// encoder warming up on a busy machine) never eats the recording.
	limit := time.AfterFunc(time.Hour, cancel)
	limit.Stop()
	defer limit.Stop()
	var armed sync.Once
	enc, err := h264enc.Start(ctx, h264enc.Options{SrcW: srcW, SrcH: srcH, Width: o.Width, Height: o.Height,
		BitRate: o.BitRate, GOP: o.GOP}, func(pk Packet) error {
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
	var last K
	var lastAt time.Time
	first := true
	rotated := false
	repeated := true // nothing to repeat before the first picture
	for ctx.Err() == nil {
		key := s.Key()
		repeat := !repeated && o.RepeatAfter > 0 && key == last && time.Since(lastAt) >= o.RepeatAfter
		if repeat || (first || key != last) && time.Since(lastAt) >= minGap {
			at := time.Now()
			img := s.Picture()
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
			last, lastAt, first, repeated = key, at, false, repeat
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
		return ErrRotated
	}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return nil // the session ended (time limit, client gone): not an error
	}
	return err
}
