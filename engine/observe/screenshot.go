package observe

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"image"
	"image/jpeg"
	"math"
	"strings"
	"sync"

	"golang.org/x/image/draw"

	"tandem/internal/encoded"
)

// ImageSpec says how to prepare a screenshot (a dialect's image budget).
type ImageSpec struct {
	// MaxPixels and MinPixels bound the area; zero means no bound.
	MaxPixels, MinPixels int
	// Factor, when non-zero, resizes with SmartResize to multiples of it.
	Factor int
	// Format is "jpeg", "png", or "" to choose: PNG for small images (up to
	// 512x512, where its lossless text beats JPEG's size), JPEG otherwise.
	Format string
	// Quality is the JPEG quality (default 85: UI text stays legible).
	Quality int
}

// Shot is a screenshot ready to send.
type Shot struct {
	Data []byte
	MIME string
	W, H int
}

// FitSize returns the size a w x h screenshot is sent at under spec: the
// SmartResize size when Factor is set, else scaled down (never up) to
// MaxPixels keeping the aspect ratio.
func FitSize(w, h int, spec ImageSpec) (int, int, error) {
	if w <= 0 || h <= 0 {
		return 0, 0, fmt.Errorf("screenshot size %dx%d: not positive", w, h)
	}
	if spec.Factor > 0 {
		rh, rw, err := SmartResize(h, w, spec.Factor, spec.MinPixels, spec.MaxPixels)
		return rw, rh, err
	}
	if spec.MaxPixels > 0 && w*h > spec.MaxPixels {
		s := math.Sqrt(float64(spec.MaxPixels) / float64(w*h))
		return max(1, int(float64(w)*s)), max(1, int(float64(h)*s)), nil
	}
	return w, h, nil
}

// PrepareScreenshot resizes img to spec and encodes it. A picture the
// device sent already encoded as spec asks, at the size spec sends it,
// goes out as the device's bytes.
func PrepareScreenshot(img image.Image, spec ImageSpec) (Shot, error) {
	return new(Preparer).Prepare(img, spec)
}

// Preparer is PrepareScreenshot keeping the shrunk picture a JPEG is
// encoded from for the next screenshot of its size: a planner prepares
// one a step, and the 4 MB it would allocate and zero each time cost more
// than the shrink into it (issue 48). Calls may overlap: one that finds
// the picture taken shrinks into a new one.
type Preparer struct {
	mu    sync.Mutex
	spare *image.RGBA // a picture no call is using
}

// Prepare is PrepareScreenshot.
func (p *Preparer) Prepare(img image.Image, spec ImageSpec) (Shot, error) {
	if s, ok := asSent(img, spec); ok {
		return s, nil
	}
	img = encoded.Pixels(img)
	if s, ok, err := p.shrinkToJPEG(img, spec); ok {
		return s, err
	}
	out, err := resize(img, spec)
	if err != nil {
		return Shot{}, err
	}
	return encode(out, spec)
}

// asSent is img as the device sent it, when that is what spec sends:
// the same size and format.
func asSent(img image.Image, spec ImageSpec) (Shot, bool) {
	data, mime, ok := encoded.Bytes(img)
	if !ok {
		return Shot{}, false
	}
	b := img.Bounds()
	w, h, err := FitSize(b.Dx(), b.Dy(), spec)
	if err != nil || w != b.Dx() || h != b.Dy() || mime != "image/"+formatOf(spec, w, h) {
		return Shot{}, false
	}
	return Shot{Data: data, MIME: mime, W: w, H: h}, true
}

// resize returns img at the size spec sends it (img itself when that is
// its size already).
func resize(img image.Image, spec ImageSpec) (image.Image, error) {
	if img == nil {
		return nil, fmt.Errorf("prepare screenshot: no image")
	}
	b := img.Bounds()
	w, h, err := FitSize(b.Dx(), b.Dy(), spec)
	if err != nil {
		return nil, fmt.Errorf("prepare screenshot: %w", err)
	}
	if w == b.Dx() && h == b.Dy() {
		return img, nil
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	if !scaleArea(dst, img) {
		draw.BiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	}
	return dst, nil
}

// shrinkToJPEG shrinks and encodes img as a JPEG band by band, each band's
// shrink and encoding in one goroutine (no wait for the whole shrink
// between them); false when spec asks for no shrink or no JPEG, or img is
// of a kind scaleArea does not take.
func (p *Preparer) shrinkToJPEG(img image.Image, spec ImageSpec) (Shot, bool, error) {
	if img == nil {
		return Shot{}, false, nil
	}
	b := img.Bounds()
	w, h, err := FitSize(b.Dx(), b.Dy(), spec)
	if err != nil || w == b.Dx() && h == b.Dy() || formatOf(spec, w, h) != "jpeg" {
		return Shot{}, false, nil
	}
	dst := p.take(w, h)
	defer p.give(dst) // the JPEG's bytes are copies: nothing keeps dst
	sc, ok := newAreaScaler(dst, img)
	if !ok {
		return Shot{}, false, nil
	}
	data, err := fillJPEG(dst, jpegQuality(spec), defaultBands(), sc.rows)
	return Shot{Data: data, MIME: "image/jpeg", W: w, H: h}, true, err
}

// take returns the spare picture when it is w×h (the shrink writes every
// pixel of it), else a new one; it leaves no spare.
func (p *Preparer) take(w, h int) *image.RGBA {
	p.mu.Lock()
	s := p.spare
	p.spare = nil
	p.mu.Unlock()
	if s == nil || s.Rect != image.Rect(0, 0, w, h) {
		s = image.NewRGBA(image.Rect(0, 0, w, h))
	}
	return s
}

// give makes dst, which no one uses, the spare.
func (p *Preparer) give(dst *image.RGBA) {
	p.mu.Lock()
	p.spare = dst
	p.mu.Unlock()
}

// formatOf is the format spec sends a w×h picture in.
func formatOf(spec ImageSpec, w, h int) string {
	format := strings.ToLower(spec.Format)
	switch format {
	case "", "auto":
		if w*h <= 512*512 {
			return "png"
		}
		return "jpeg"
	case "jpg":
		return "jpeg"
	}
	return format
}

// jpegQuality is spec's JPEG quality (85 unless set: UI text stays legible).
func jpegQuality(spec ImageSpec) int {
	if q := spec.Quality; q > 0 && q <= 100 {
		return q
	}
	return 85
}

// encode encodes an image prepared for the model in spec's format.
func encode(out image.Image, spec ImageSpec) (Shot, error) {
	w, h := out.Bounds().Dx(), out.Bounds().Dy()
	switch formatOf(spec, w, h) {
	case "png":
		data, err := encodePNG(out, defaultBands())
		return Shot{Data: data, MIME: "image/png", W: w, H: h}, err
	case "jpeg":
		if rgba, ok := out.(*image.RGBA); ok {
			data, err := encodeJPEG(rgba, jpegQuality(spec), defaultBands())
			return Shot{Data: data, MIME: "image/jpeg", W: w, H: h}, err
		}
		var buf bytes.Buffer
		err := jpeg.Encode(&buf, out, &jpeg.Options{Quality: jpegQuality(spec)})
		return Shot{Data: buf.Bytes(), MIME: "image/jpeg", W: w, H: h}, err
	}
	return Shot{}, fmt.Errorf("prepare screenshot: unknown format %q", spec.Format)
}

// KeepLast returns the last k items (all when k <= 0 or k >= len).
func KeepLast[T any](items []T, k int) []T {
	if k <= 0 || k >= len(items) {
		return items
	}
	return items[len(items)-k:]
}

// PixelSum is a 64-bit sum of img's size and pixels under seed, for a
// decoded RGBA or NRGBA frame (a phone's; false for other kinds): equal
// sums mean the same picture. It reads a 1080x2400 screen's 10 MB in
// about a millisecond, a sixtieth of shrinking and encoding it.
func PixelSum(img image.Image, seed maphash.Seed) (uint64, bool) {
	var pix []byte
	var stride int
	var kind byte
	switch m := encoded.Pixels(img).(type) {
	case *image.RGBA:
		pix, stride, kind = m.Pix, m.Stride, 1
	case *image.NRGBA:
		pix, stride, kind = m.Pix, m.Stride, 2
	default:
		return 0, false
	}
	b := img.Bounds()
	var head [17]byte
	head[0] = kind
	binary.LittleEndian.PutUint32(head[1:], uint32(b.Min.X))
	binary.LittleEndian.PutUint32(head[5:], uint32(b.Min.Y))
	binary.LittleEndian.PutUint32(head[9:], uint32(b.Dx()))
	binary.LittleEndian.PutUint32(head[13:], uint32(stride))
	var h maphash.Hash
	h.SetSeed(seed)
	_, _ = h.Write(head[:])
	_, _ = h.Write(pix)
	return h.Sum64(), true
}
