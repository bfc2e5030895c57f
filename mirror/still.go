package mirror

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"sync"

	"golang.org/x/image/draw"
)

// Work only for those who watch. A still published raw (Hub.Publish: the
// engine's every capture, a feed's poll) is kept as the picture it was,
// not as JPEG: the hub holds a reference to the newest one per device and
// nothing more. The stream goroutine of the first viewer that is to be
// sent it scales and encodes it, once; every other viewer of the same
// frame shares those bytes. So a headless run (tandem run, no window, no
// viewer) publishes every capture and encodes none, and the engine's
// capture and its stability wait never wait on a viewer's picture (issue
// 48: the encode was about 41 % of a run's CPU).

// still is a picture published raw and, once a viewer asked, its JPEG.
type still struct {
	once sync.Once
	img  image.Image // as captured; never changed after Publish (nil once encoded)
	data []byte
	err  error
}

// stillBytes returns f's JPEG: its Data, or for a still published raw the
// bytes encoded by the first viewer that needed them (on the caller's
// goroutine, never the publisher's).
func (h *Hub) stillBytes(f *Frame) ([]byte, error) {
	s := f.still
	if s == nil {
		return f.Data, nil
	}
	s.once.Do(func() {
		h.encodes.Add(1)
		s.data, s.err = encodeStill(s.img, h.MaxSide, h.Quality)
		s.img = nil // the bytes are all a viewer needs now
	})
	return s.data, s.err
}

// Encodes is how many stills the hub has scaled and encoded for viewers,
// for the tests and benchmarks that check none is made for no viewer.
func (h *Hub) Encodes() int64 { return h.encodes.Load() }

// encodeStill shrinks img to at most maxSide on its longer side (0: its
// own size) and encodes it as JPEG at quality.
func encodeStill(img image.Image, maxSide, quality int) ([]byte, error) {
	b := img.Bounds()
	src := img
	if m := maxSide; m > 0 && (b.Dx() > m || b.Dy() > m) {
		w, hh := b.Dx(), b.Dy()
		if w >= hh {
			hh, w = hh*m/w, m
		} else {
			w, hh = w*m/hh, m
		}
		dst := image.NewRGBA(image.Rect(0, 0, max(w, 1), max(hh, 1)))
		draw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
		src = dst
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, src, &jpeg.Options{Quality: quality}); err != nil {
		return nil, fmt.Errorf("encode mirror frame: %w", err)
	}
	return buf.Bytes(), nil
}
