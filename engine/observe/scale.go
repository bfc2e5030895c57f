package observe

import (
	"encoding/binary"
	"image"
)

// Why a box filter of our own: every planning step shrinks a phone-sized
// screenshot (1080×2400 → about 670×1500) before encoding it, and
// golang.org/x/image/draw's BiLinear widens its kernel to the whole
// downscale ratio, costing ~160 ms a frame — most of a step's engine time.
// Averaging each output pixel's exact source area is the right filter for
// shrinking (no aliasing on text, which the model must read) and touches
// every source pixel about twice: ~2.5 CPU-ms a frame on amd64, whose
// passes run in SSE2 (scale_amd64.s), ~9 in Go's lanes elsewhere
// (BenchmarkScaleArea), its bands of rows side by side.

// areaRows fills dst's output rows from first on, one a span of ys, in
// two passes whose channels ride in the lanes of 64-bit words (SWAR), one
// multiply for several of them. The row pass combines an output row's
// source rows (two or three at the phone's ratios, read side by side, no
// sums stored between them) two pixels a word: their even bytes (red and
// blue) in one word and their odd ones (green and alpha) in another, four
// 16-bit lanes each (a channel's weighted sum is at most 255×256, no lane
// carries into the next), each rounded to 8 bits and laid out as one
// pixel a word, its four channels in 16-bit lanes. The column pass then
// weighs a cell's three source pixels with three multiplies a pixel and
// rounds again. The integers are the ones a channel-by-channel filter
// computes rounding after each pass (TestAreaRowsIsTheChannelByChannelFilter):
// within a level of one that rounds once, at half the column pass's
// multiplies and none of its spreading (issue 48: 12.8 → 8.7 CPU-ms a
// 1080×2400 frame). On amd64 both passes take their pixels four or two at
// a time in SSE2 (rowsSIMD, columnsSIMD: the same words and bytes), and
// these lanes do the rest of a row.
func areaRows(dst *image.RGBA, pix []uint8, stride, sw int, ys []span, first int, yw []uint32, xs []span, xw []uint32) {
	db := dst.Bounds()
	dw := db.Dx()
	// One output row's source rows, combined: a pixel a word; two more
	// words, always 0, for a 3-tap read past the edge.
	px := make([]uint64, sw+2)
	var rb, ga []uint64 // the sums of a span of more than three rows
	taps := threeTaps(xs, xw)
	var ct columnTaps
	if taps != nil {
		ct = newColumnTaps(taps)
	}
	for i, sp := range ys {
		if sp.n <= 3 {
			rowsUpTo3(px[:sw], pix, stride, sp, yw)
		} else {
			if rb == nil {
				rb, ga = make([]uint64, (sw+1)/2), make([]uint64, (sw+1)/2)
			}
			clear(rb)
			clear(ga)
			for k := range sp.n {
				addRow(rb, ga, pix[(sp.first+k)*stride:][:sw*4], uint64(yw[sp.off+k]))
			}
			for x := range rb {
				p0, p1 := pixelsOf(rb[x], ga[x])
				px[2*x] = p0
				if 2*x+1 < sw {
					px[2*x+1] = p1
				}
			}
		}
		out := dst.Pix[dst.PixOffset(db.Min.X, db.Min.Y+first+i):]
		out = out[:dw*4]
		if taps != nil {
			done := columnsSIMD(out, px, ct) // an even number of cells, or none
			columns3(out[done*4:], px, taps[done:])
			continue
		}
		for ox, sx := range xs {
			s := uint64(half8)
			for k, w := range xw[sx.off : sx.off+sx.n] {
				s += px[sx.first+k] * uint64(w)
			}
			binary.LittleEndian.PutUint32(out[ox*4:], packPixel(s))
		}
	}
}

// rowsUpTo3 is the row pass of a span of one to three source rows into
// px, a pixel a word.
func rowsUpTo3(px []uint64, pix []uint8, stride int, sp span, yw []uint32) {
	sw := len(px)
	var r [3][]uint8
	var w [3]uint64
	for k := range 3 {
		r[k] = pix[sp.first*stride:][:sw*4] // a weight of 0 for a row the span does not cover
		if k < sp.n {
			r[k] = pix[(sp.first+k)*stride:][:sw*4]
			w[k] = uint64(yw[sp.off+k])
		}
	}
	done := rowsSIMD(px, r, w, sp.n <= 2) // a multiple of 4 pixels, or none
	n := (sw - done) / 2
	rest, r0, r1, r2 := px[done:], r[0][done*4:], r[1][done*4:], r[2][done*4:]
	if sp.n <= 2 {
		rows2(rest[:n*2], r0[:n*8], r1[:n*8], w[0], w[1])
	} else {
		rows3(rest[:n*2], r0[:n*8], r1[:n*8], r2[:n*8], w[0], w[1], w[2])
	}
	if sw%2 != 0 { // an odd width: its last pixel alone
		o := (sw - 1) * 4
		var rb, ga uint64
		for k := range 3 {
			v := uint64(binary.LittleEndian.Uint32(r[k][o:]))
			rb += (v & even8) * w[k]
			ga += (v >> 8 & even8) * w[k]
		}
		px[sw-1], _ = pixelsOf(rb, ga)
	}
}

// rows2 is the row pass of two rows, two pixels a word of each.
func rows2(px []uint64, r0, r1 []uint8, w0, w1 uint64) {
	for len(r0) >= 8 && len(r1) >= 8 && len(px) >= 2 {
		v0 := binary.LittleEndian.Uint64(r0)
		v1 := binary.LittleEndian.Uint64(r1)
		rb := (v0&even8)*w0 + (v1&even8)*w1
		ga := (v0>>8&even8)*w0 + (v1>>8&even8)*w1
		px[0], px[1] = pixelsOf(rb, ga)
		r0, r1, px = r0[8:], r1[8:], px[2:]
	}
}

// rows3 is the row pass of three rows, two pixels a word of each.
func rows3(px []uint64, r0, r1, r2 []uint8, w0, w1, w2 uint64) {
	for len(r0) >= 8 && len(r1) >= 8 && len(r2) >= 8 && len(px) >= 2 {
		v0 := binary.LittleEndian.Uint64(r0)
		v1 := binary.LittleEndian.Uint64(r1)
		v2 := binary.LittleEndian.Uint64(r2)
		rb := (v0&even8)*w0 + (v1&even8)*w1 + (v2&even8)*w2
		ga := (v0>>8&even8)*w0 + (v1>>8&even8)*w1 + (v2>>8&even8)*w2
		px[0], px[1] = pixelsOf(rb, ga)
		r0, r1, r2, px = r0[8:], r1[8:], r2[8:], px[2:]
	}
}

// pixelsOf takes the row sums of two pixels (×256; rb their red and blue,
// ga their green and alpha, in 16-bit lanes) to two words, one a pixel:
// its channels rounded to 8 bits in 16-bit lanes, in the order red, blue,
// green, alpha.
func pixelsOf(rb, ga uint64) (uint64, uint64) {
	rb = (rb + half8) >> 8 & even8
	ga = (ga + half8) >> 8 & even8
	return rb&low32 | ga<<32, rb>>32 | ga&^low32
}

// packPixel rounds a column sum (×256; red, blue, green and alpha in
// 16-bit lanes) to a pixel's four bytes, red first.
func packPixel(s uint64) uint32 {
	s >>= 8
	return uint32(s&0x00ff00ff | s>>24&0xff00ff00)
}

// tap3 is an output cell's three source cells from first (a weight of 0
// for a cell it does not cover).
type tap3 struct {
	first      int
	w0, w1, w2 uint64
}

// threeTaps is xs as three taps a cell, or nil when a cell covers more
// (a shrink by more than two).
func threeTaps(xs []span, xw []uint32) []tap3 {
	taps := make([]tap3, len(xs))
	for i, sx := range xs {
		if sx.n > 3 {
			return nil
		}
		var w [3]uint64
		for k := range sx.n {
			w[k] = uint64(xw[sx.off+k])
		}
		taps[i] = tap3{sx.first, w[0], w[1], w[2]}
	}
	return taps
}

// columns3 is the column pass with three taps a cell, unrolled: the
// phone's shrinks (by less than two) need no more. A cell's channels,
// each at most 255×256 with the half that rounds, share one word.
func columns3(out []uint8, px []uint64, taps []tap3) {
	for _, t := range taps {
		if len(out) < 4 {
			return
		}
		c := px[t.first : t.first+3 : t.first+3]
		s := c[0]*t.w0 + c[1]*t.w1 + c[2]*t.w2 + half8
		binary.LittleEndian.PutUint32(out, packPixel(s))
		out = out[4:]
	}
}

// addRow adds one source row, weighted by w, into the row sums rb and ga
// (two pixels a word: their even bytes in rb, their odd ones in ga).
func addRow(rb, ga []uint64, line []uint8, w uint64) {
	n := len(line) / 8
	line8 := line[:n*8]
	rb, ga = rb[:n], ga[:n]
	for x := range rb {
		v := binary.LittleEndian.Uint64(line8[x*8:])
		rb[x] += (v & even8) * w
		ga[x] += (v >> 8 & even8) * w
	}
	if len(line)%8 != 0 { // an odd width: its last pixel alone
		v := uint64(binary.LittleEndian.Uint32(line[n*8:]))
		rb = rb[:n+1]
		ga = ga[:n+1]
		rb[n] += (v & even8) * w
		ga[n] += (v >> 8 & even8) * w
	}
}

// spread takes the two 16-bit lanes at the foot of v into two 32-bit lanes.
func spread(v uint64) uint64 {
	v &= 0xffffffff
	return (v | v<<16) & lanes32
}

// even8 keeps a word's even bytes, each in a 16-bit lane; lanes32 keeps
// the 16-bit lanes 0 and 2, each in a 32-bit lane; half8 is a half in
// each 16-bit lane at ×256, to round.
const (
	even8   = 0x00ff00ff00ff00ff
	lanes32 = 0x0000ffff0000ffff
	half8   = 0x0080008000800080
	low32   = 0xffffffff
)

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
