package mirror

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/jpeg"
	"sync"
	"time"

	"golang.org/x/image/draw"

	"tandem/internal/fastjpeg"
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

// still is a picture published raw and its JPEGs, one for each size a
// viewer asked for (viewers of one size share it).
type still struct {
	img image.Image // as captured; never changed after Publish
	mu  sync.Mutex
	enc map[image.Point]*encoding
}

// encoding is one size's JPEG of a still, made once.
type encoding struct {
	once sync.Once
	data []byte
	err  error
}

// stillBytes returns f's JPEG: its Data, or for a still published raw the
// bytes scaled to fit box (the viewer's; zero: no box said) and encoded by
// the first viewer that needed that size (on the caller's goroutine, never
// the publisher's).
func (h *Hub) stillBytes(f *Frame, box image.Point) ([]byte, error) {
	s := f.still
	if s == nil {
		return f.Data, nil
	}
	size := fitBox(s.img.Bounds().Size(), box, h.MaxSide)
	s.mu.Lock()
	if s.enc == nil {
		s.enc = map[image.Point]*encoding{}
	}
	e := s.enc[size]
	if e == nil {
		e = &encoding{}
		s.enc[size] = e
	}
	s.mu.Unlock()
	e.once.Do(func() {
		h.encodes.Add(1)
		e.data, e.err = encodeStill(s.img, size, h.Quality)
	})
	return e.data, e.err
}

// Encodes is how many stills the hub has scaled and encoded for viewers,
// for the tests and benchmarks that check none is made for no viewer.
func (h *Hub) Encodes() int64 { return h.encodes.Load() }

// fitBox is the size a picture of size src is sent at to a viewer that
// shows it in box (a side of 0: no bound): as large as fits in box and
// within maxSide on its longer side (0: no bound), at src's aspect, never
// larger than src.
func fitBox(src, box image.Point, maxSide int) image.Point {
	scale := 1.0
	if box.X > 0 {
		scale = min(scale, float64(box.X)/float64(src.X))
	}
	if box.Y > 0 {
		scale = min(scale, float64(box.Y)/float64(src.Y))
	}
	if maxSide > 0 {
		scale = min(scale, float64(maxSide)/float64(max(src.X, src.Y)))
	}
	if scale >= 1 {
		return src
	}
	return image.Pt(max(int(float64(src.X)*scale+0.5), 1), max(int(float64(src.Y)*scale+0.5), 1))
}

// encodeStill scales img to size and encodes it as JPEG at quality.
func encodeStill(img image.Image, size image.Point, quality int) ([]byte, error) {
	src := img
	if b := img.Bounds(); b.Size() != size {
		src = scale(img, size)
	}
	if rgba, ok := src.(*image.RGBA); ok {
		data, err := fastjpeg.Encode(rgba, quality)
		if err != nil {
			return nil, fmt.Errorf("encode mirror frame: %w", err)
		}
		return data, nil
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, src, &jpeg.Options{Quality: quality}); err != nil {
		return nil, fmt.Errorf("encode mirror frame: %w", err)
	}
	return buf.Bytes(), nil
}

// scale shrinks img to size: halved by averaging 2x2 blocks while it stays
// at least twice size, then bilinear the rest of the way, so a tile's
// quarter-size picture averages every pixel instead of sampling one in
// four (text stays legible, nothing shimmers).
func scale(img image.Image, size image.Point) *image.RGBA {
	for {
		rgba, ok := img.(*image.RGBA)
		b := img.Bounds()
		if !ok || b.Dx() < 2*size.X || b.Dy() < 2*size.Y {
			break
		}
		img = halve(rgba)
	}
	dst := image.NewRGBA(image.Rectangle{Max: size})
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, img.Bounds(), draw.Src, nil)
	return dst
}

// halve averages each 2x2 block of src into one pixel, rounding half up
// (an odd last row or column is dropped). A pixel's four channels ride in
// two words, two 16-bit lanes each (red and blue, green and alpha), so the
// four pixels of a block are summed with two adds a pixel, not eight.
func halve(src *image.RGBA) *image.RGBA {
	b := src.Bounds()
	w, h := b.Dx()/2, b.Dy()/2
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	const lanes, round = 0x00ff00ff, 0x00020002
	for y := range h {
		r0 := src.Pix[(2*y)*src.Stride:][:4*2*w]
		r1 := src.Pix[(2*y+1)*src.Stride:][:4*2*w]
		out := dst.Pix[y*dst.Stride:][:w*4]
		for x := range w {
			a := binary.LittleEndian.Uint32(r0[8*x:])
			c := binary.LittleEndian.Uint32(r0[8*x+4:])
			d := binary.LittleEndian.Uint32(r1[8*x:])
			e := binary.LittleEndian.Uint32(r1[8*x+4:])
			rb := a&lanes + c&lanes + d&lanes + e&lanes + round
			ga := a>>8&lanes + c>>8&lanes + d>>8&lanes + e>>8&lanes + round
			binary.LittleEndian.PutUint32(out[4*x:], rb>>2&lanes|(ga>>2&lanes)<<8)
		}
	}
	return dst
}

// SettleLater settles the device's newest still (Settle) after the hub's
// SettleAfter (10 s unless set): a timer, no goroutine of its own. A
// viewer who comes back within it is sent the raw picture at its own size.
func (h *Hub) SettleLater(device string) {
	d := h.SettleAfter
	if d <= 0 {
		d = 10 * time.Second
	}
	time.AfterFunc(d, func() { h.Settle(device) })
}

// Settle trades the device's newest still, when it is kept raw, for its
// JPEG at the hub's size (one a viewer had made already, or made now):
// a phone's raw capture is 10 MB, kept only for a viewer who may come,
// and after its run a device may stay idle for hours. A viewer who joins
// later gets that JPEG, whatever its box, until the next picture; the
// frame's Seq stays, so no viewer is sent it again. Called once a run has
// been over a while (backend), never on a capture's path.
func (h *Hub) Settle(device string) {
	h.mu.Lock()
	s, ok := h.slots[device]
	var f *Frame
	if ok {
		f = s.frame
	}
	h.mu.Unlock()
	if f == nil || f.still == nil {
		return
	}
	data, err := h.stillBytes(f, image.Point{})
	if err != nil {
		return // kept raw: a viewer's encode will say what is wrong
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if s.frame != f {
		return // a newer picture came meanwhile
	}
	settled := *f
	settled.still, settled.Data = nil, data
	s.frame = &settled
}
