package observe

import (
	"image"
)

// Why a box filter of our own: every planning step shrinks a phone-sized
// screenshot (1080×2400 → about 670×1500) before encoding it, and
// golang.org/x/image/draw's BiLinear widens its kernel to the whole
// downscale ratio, costing ~160 ms a frame — most of a step's engine time.
// Averaging each output pixel's exact source area is the right filter for
// shrinking (no aliasing on text, which the model must read) and touches
// every source pixel about twice: ~25 ms on one core, ~12 on two (its bands
// of rows run side by side).

// areaRows fills dst's output rows from first on, one a span of ys.
func areaRows(dst *image.RGBA, pix []uint8, stride, sw int, ys []span, first int, yw []uint32, xs []span, xw []uint32) {
	db := dst.Bounds()
	dw := db.Dx()
	col := make([]uint32, sw*4) // one output row's source rows, combined (×256)
	for i, sp := range ys {
		oy := first + i
		clear(col)
		for k := range sp.n {
			w := yw[sp.off+k]
			line := pix[(sp.first+k)*stride:]
			line = line[:sw*4]
			for i, v := range line {
				col[i] += uint32(v) * w
			}
		}
		out := dst.Pix[dst.PixOffset(db.Min.X, db.Min.Y+oy):]
		out = out[:dw*4]
		for ox, sx := range xs {
			var r, g, b, a uint32
			c := col[sx.first*4 : (sx.first+sx.n)*4]
			for k := range sx.n {
				w := xw[sx.off+k]
				p := c[k*4 : k*4+4 : k*4+4]
				r += p[0] * w
				g += p[1] * w
				b += p[2] * w
				a += p[3] * w
			}
			o := out[ox*4 : ox*4+4 : ox*4+4]
			o[0], o[1], o[2], o[3] = uint8((r+1<<15)>>16), uint8((g+1<<15)>>16), uint8((b+1<<15)>>16), uint8((a+1<<15)>>16)
		}
	}
}

// span is the source cells one output cell covers: from first, with
// weights (in 1/256ths, summing to 256) in w[off:off+n].
type span struct{ first, off, n int }

// areaSpans returns, for each of n output cells over m source cells
// (n <= m), the source cells it covers with their shares of its area.
func areaSpans(m, n int) ([]span, []uint32) {
	spans := make([]span, n)
	var ws []uint32
	scale := float64(m) / float64(n)
	for o := range n {
		lo, hi := float64(o)*scale, float64(o+1)*scale
		sp := span{first: int(lo), off: len(ws)}
		left := uint32(256)
		for i := int(lo); i < m && float64(i) < hi; i++ {
			cov := min(hi, float64(i+1)) - max(lo, float64(i))
			w := min(uint32(cov/scale*256+0.5), left)
			if float64(i+1) >= hi || i == m-1 {
				w = left // the last cell takes the rounding rest
			}
			ws = append(ws, w)
			left -= w
			sp.n++
		}
		spans[o] = sp
	}
	return spans, ws
}

// scaleArea shrinks src into dst by area averaging. It handles *image.RGBA
// and *image.NRGBA sources no smaller than dst on either side and reports
// false for anything else (the caller then uses a general scaler). Rows are
// combined first (contiguous memory), then columns, in integers; bands of
// output rows go side by side, one a core: the shrink is on a step's
// critical path (issue 31), between the capture and the call.
func scaleArea(dst *image.RGBA, src image.Image) bool {
	sc, ok := newAreaScaler(dst, src)
	if !ok {
		return false
	}
	dh := dst.Bounds().Dy()
	bands := min(defaultBands(), dh)
	inBands(bands, func(b int) { sc.rows(dh*b/bands, dh*(b+1)/bands) })
	return true
}

// areaScaler shrinks one source into one destination, a band of output
// rows at a time (rows may run side by side for different bands).
type areaScaler struct {
	dst    *image.RGBA
	pix    []uint8
	stride int
	sw     int
	xs, ys []span
	xw, yw []uint32
	nrgba  bool
}

func newAreaScaler(dst *image.RGBA, src image.Image) (*areaScaler, bool) {
	sc := &areaScaler{dst: dst}
	sb := src.Bounds()
	switch s := src.(type) {
	case *image.RGBA:
		sc.pix, sc.stride = s.Pix[s.PixOffset(sb.Min.X, sb.Min.Y):], s.Stride
	case *image.NRGBA:
		sc.pix, sc.stride, sc.nrgba = s.Pix[s.PixOffset(sb.Min.X, sb.Min.Y):], s.Stride, true
	default:
		return nil, false
	}
	sw, sh := sb.Dx(), sb.Dy()
	db := dst.Bounds()
	dw, dh := db.Dx(), db.Dy()
	if dw <= 0 || dh <= 0 || dw > sw || dh > sh {
		return nil, false
	}
	sc.sw = sw
	sc.xs, sc.xw = areaSpans(sw, dw)
	sc.ys, sc.yw = areaSpans(sh, dh)
	return sc, true
}

// rows fills output rows y0..y1 (relative to dst's top).
func (sc *areaScaler) rows(y0, y1 int) {
	areaRows(sc.dst, sc.pix, sc.stride, sc.sw, sc.ys[y0:y1], y0, sc.yw, sc.xs, sc.xw)
	if !sc.nrgba {
		return
	}
	// Screenshots are opaque; a translucent NRGBA source is premultiplied
	// here so dst stays a valid RGBA image.
	d := sc.dst
	lo, hi := d.PixOffset(d.Rect.Min.X, d.Rect.Min.Y+y0), d.PixOffset(d.Rect.Min.X, d.Rect.Min.Y+y1)
	for i := lo; i+3 < hi; i += 4 {
		if a := d.Pix[i+3]; a != 0xff {
			for c := range 3 {
				d.Pix[i+c] = uint8(uint32(d.Pix[i+c]) * uint32(a) / 0xff)
			}
		}
	}
}
