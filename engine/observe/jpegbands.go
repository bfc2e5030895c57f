package observe

import (
	"encoding/binary"
	"errors"
	"image"
	"runtime"
	"sync"

	"tandem/internal/fastjpeg"
)

// Why a JPEG of bands: the picture a step sends is encoded between the
// capture and the model call (issue 31), and image/jpeg encodes on one
// core (~18 ms for a phone's shrunk screenshot; libjpeg-turbo, through
// internal/fastjpeg where the build has it, takes about a seventh of
// that). A baseline JPEG may be cut
// by restart markers (ITU T.81 §B.2.4.4, DRI): after each, the DC
// predictions start again from zero, exactly as at the start of a scan.
// So bands of whole MCU rows encoded as JPEGs of their own, side by side,
// are the entropy-coded segments of one JPEG with a restart interval of a
// band: their headers are the same (the quantization and Huffman tables
// depend on the quality alone, whichever encoder of internal/fastjpeg), the first band's lend the file its
// header (its height made the whole image's), and each band's scan data,
// byte-aligned and padded with ones as T.81 asks before a marker, follows
// the one before it after an RSTn marker. Decoded, it is the same picture
// as the one-piece encoding, pixel for pixel (jpegbands_test.go).

// mcu is the side of a 4:2:0 MCU, image/jpeg's layout for colour images.
const mcu = 16

// encodeJPEG encodes img at quality q, its bands side by side on up to
// bands cores (image/jpeg's own encoder when bands < 2 or img is small).
func encodeJPEG(img *image.RGBA, q, bands int) ([]byte, error) {
	return fillJPEG(img, q, bands, nil)
}

// fillJPEG is encodeJPEG that first paints each band's rows of img with
// fill (rows y0..y1 from img's top), in the band's own goroutine: a shrink
// and its encoding run band by band with no wait between them.
func fillJPEG(img *image.RGBA, q, bands int, fill func(y0, y1 int)) ([]byte, error) {
	b := img.Bounds()
	rows := (b.Dy() + mcu - 1) / mcu
	per := (rows + bands - 1) / max(bands, 1)
	interval := (b.Dx() + mcu - 1) / mcu * per
	if bands < 2 || rows < 2*bands || interval > 0xffff {
		if fill != nil {
			fill(0, b.Dy())
		}
		return fastjpeg.Encode(img, q)
	}
	n := (rows + per - 1) / per
	parts := make([][]byte, n)
	errs := make([]error, n)
	inBands(n, func(k int) {
		y0, y1 := k*per*mcu, min((k+1)*per*mcu, b.Dy())
		if fill != nil {
			fill(y0, y1)
		}
		r := image.Rect(b.Min.X, b.Min.Y+y0, b.Max.X, b.Min.Y+y1)
		parts[k], errs[k] = fastjpeg.Encode(img.SubImage(r).(*image.RGBA), q)
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return joinBands(parts, b.Dy(), interval)
}

// inBands runs f for bands 0..n-1 side by side and returns once all are
// done (the shrink's and both encoders' bands).
func inBands(n int, f func(k int)) {
	var wg sync.WaitGroup
	for k := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(k)
		}()
	}
	wg.Wait()
}

// defaultBands is how many bands encodeJPEG cuts a picture into here.
func defaultBands() int { return min(runtime.GOMAXPROCS(0), 4) }

var errBandLayout = errors.New("jpeg bands: unexpected layout")

// joinBands makes one JPEG of height h from the band JPEGs parts, each
// interval MCUs but the last.
func joinBands(parts [][]byte, h, interval int) ([]byte, error) {
	head, sos, _, err := splitJPEG(parts[0])
	if err != nil {
		return nil, err
	}
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	sof := segment(head, 0xc0)
	if sof < 0 || sof+7 > len(head) {
		return nil, errBandLayout
	}
	out := make([]byte, 0, size+16)
	out = append(out, head...)
	// The first band's frame header names its own height: make it the
	// whole picture's.
	binary.BigEndian.PutUint16(out[sof+5:], uint16(h))
	out = append(out, 0xff, 0xdd, 0, 4, byte(interval>>8), byte(interval)) // DRI
	out = append(out, sos...)
	for k, p := range parts {
		_, _, data, err := splitJPEG(p)
		if err != nil {
			return nil, err
		}
		if k > 0 {
			out = append(out, 0xff, 0xd0+byte((k-1)%8)) // RSTn
		}
		out = append(out, data...)
	}
	out = append(out, 0xff, 0xd9) // EOI
	return out, nil
}

// segment returns where the marker segment m starts in head (SOI, then
// whole segments), or -1.
func segment(head []byte, m byte) int {
	for i := 2; i+4 <= len(head); i += 2 + int(binary.BigEndian.Uint16(head[i+2:])) {
		if head[i] == 0xff && head[i+1] == m {
			return i
		}
	}
	return -1
}

// splitJPEG cuts one of image/jpeg's files into its headers before the
// scan, the scan header, and the scan's entropy-coded data.
func splitJPEG(p []byte) (head, sos, data []byte, err error) {
	if len(p) < 4 || p[0] != 0xff || p[1] != 0xd8 || p[len(p)-2] != 0xff || p[len(p)-1] != 0xd9 {
		return nil, nil, nil, errBandLayout
	}
	i := 2
	for i+4 <= len(p) {
		if p[i] != 0xff {
			return nil, nil, nil, errBandLayout
		}
		n := int(binary.BigEndian.Uint16(p[i+2:]))
		end := i + 2 + n
		if end > len(p)-2 {
			return nil, nil, nil, errBandLayout
		}
		if p[i+1] == 0xda { // SOS: the data follows its header
			return p[:i], p[i:end], p[end : len(p)-2], nil
		}
		i = end
	}
	return nil, nil, nil, errBandLayout
}
