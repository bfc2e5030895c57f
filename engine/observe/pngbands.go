package observe

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/adler32"
	"hash/crc32"
	"image"
	"image/png"
)

// Why a PNG of bands: the dialects that send PNG (AutoGLM sends the phone's
// full screen, 1080×2400) encode it between the capture and the model call
// (issue 31), and image/png does it on one core (~30 ms at BestSpeed). A
// PNG's pixels are one zlib stream cut into IDAT chunks as the encoder
// likes (PNG spec §10–11), and a deflate stream may be made of pieces
// compressed apart, each but the last ended by a flush to a byte boundary
// (RFC 1951 §3.2.4: an empty stored block, BFINAL unset); the zlib
// trailer's Adler-32 of the whole is made from the pieces' (adler32Combine,
// as zlib's adler32_combine does it). So bands of rows are filtered and
// compressed side by side, each its own IDAT. The filters are PNG's five,
// chosen a row at a time as image/png and libpng choose (the smallest sum
// of absolute differences); each band's first row is filtered against the
// last row of the band above, as in one pass. Decoded, it is the very
// picture (pngbands_test.go).

// encodePNG encodes img, an opaque RGBA or NRGBA picture, on up to bands
// cores; anything else (or a small picture) goes to image/png.
func encodePNG(img image.Image, bands int) ([]byte, error) {
	pix, stride, w, h, ok := opaqueRGB(img)
	if !ok || bands < 2 || h < 2*bands {
		var buf bytes.Buffer
		err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img)
		return buf.Bytes(), err
	}
	type part struct {
		data []byte
		sum  uint32
		n    int
		err  error
	}
	parts := make([]part, bands)
	inBands(bands, func(k int) {
		y0, y1 := h*k/bands, h*(k+1)/bands
		rows := filterRows(pix, stride, w, y0, y1)
		var buf bytes.Buffer
		fw, err := flate.NewWriter(&buf, flate.BestSpeed)
		if err == nil {
			_, err = fw.Write(rows)
		}
		if err == nil && k < bands-1 {
			err = fw.Flush()
		} else if err == nil {
			err = fw.Close()
		}
		parts[k] = part{data: buf.Bytes(), sum: adler32.Checksum(rows), n: len(rows), err: err}
	})
	out := make([]byte, 0, 64+w*h/2)
	out = append(out, "\x89PNG\r\n\x1a\n"...)
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr, uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, 2 // 8 bits a sample, truecolour
	out = chunk(out, "IHDR", ihdr)
	sum := uint32(1)
	for k, p := range parts {
		if p.err != nil {
			return nil, p.err
		}
		sum = adler32Combine(sum, p.sum, p.n)
		data := p.data
		if k == 0 {
			data = append([]byte{0x78, 0x01}, data...) // zlib: deflate, 32 KiB window, fastest
		}
		if k == bands-1 {
			data = binary.BigEndian.AppendUint32(data, sum)
		}
		out = chunk(out, "IDAT", data)
	}
	return chunk(out, "IEND", nil), nil
}

// opaqueRGB returns img's pixels when it is an opaque RGBA or NRGBA
// picture (a screenshot), whose PNG is then truecolour without alpha.
func opaqueRGB(img image.Image) (pix []uint8, stride, w, h int, ok bool) {
	b := img.Bounds()
	switch m := img.(type) {
	case *image.RGBA:
		if !m.Opaque() {
			return nil, 0, 0, 0, false
		}
		pix, stride = m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], m.Stride
	case *image.NRGBA:
		if !m.Opaque() {
			return nil, 0, 0, 0, false
		}
		pix, stride = m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], m.Stride
	default:
		return nil, 0, 0, 0, false
	}
	return pix, stride, b.Dx(), b.Dy(), true
}

// filterRows returns rows y0..y1 of the picture as PNG's filtered
// scanlines (a filter byte, then RGB samples), each filtered against the
// row above it (none above row 0).
func filterRows(pix []uint8, stride, w, y0, y1 int) []byte {
	n := w * 3
	out := make([]byte, 0, (n+1)*(y1-y0))
	prev, cur := make([]byte, n), make([]byte, n)
	if y0 > 0 {
		rgb(prev, pix[(y0-1)*stride:], w)
	}
	var try [5][]byte
	for f := range try {
		try[f] = make([]byte, n)
	}
	for y := y0; y < y1; y++ {
		rgb(cur, pix[y*stride:], w)
		f := bestFilter(&try, cur, prev)
		out = append(out, byte(f))
		out = append(out, try[f]...)
		prev, cur = cur, prev
	}
	return out
}

// rgb copies a row of RGBA pixels' colour samples into dst.
func rgb(dst, src []uint8, w int) {
	for x := range w {
		s := src[x*4 : x*4+3 : x*4+3]
		d := dst[x*3 : x*3+3 : x*3+3]
		d[0], d[1], d[2] = s[0], s[1], s[2]
	}
}

// bestFilter filters cur (prev above it) all five ways into try and
// returns the filter whose output has the smallest sum of absolute values
// (as signed bytes). A filter is given up as soon as its sum passes the
// best so far (its output is then not the one used).
func bestFilter(try *[5][]byte, cur, prev []byte) int {
	best, bestSum := 0, int(^uint(0)>>1)
	for f := range 5 {
		if sum := filterRow(f, try[f], cur, prev, bestSum); sum < bestSum {
			best, bestSum = f, sum
		}
	}
	return best
}

// filterRow writes PNG filter f of cur into d and returns the sum of its
// absolute values, stopping once it reaches limit.
func filterRow(f int, d, cur, prev []byte, limit int) int {
	const bpp = 3
	sum := 0
	switch f {
	case 0:
		for i, x := range cur {
			d[i] = x
			sum += abs8(x)
		}
	case 1:
		copy(d[:bpp], cur[:bpp])
		sum = abs8(cur[0]) + abs8(cur[1]) + abs8(cur[2])
		for i := bpp; i < len(cur) && sum < limit; i++ {
			d[i] = cur[i] - cur[i-bpp]
			sum += abs8(d[i])
		}
	case 2:
		for i := 0; i < len(cur) && sum < limit; i++ {
			d[i] = cur[i] - prev[i]
			sum += abs8(d[i])
		}
	case 3:
		for i := 0; i < bpp; i++ {
			d[i] = cur[i] - prev[i]/2
			sum += abs8(d[i])
		}
		for i := bpp; i < len(cur) && sum < limit; i++ {
			d[i] = cur[i] - byte((int(cur[i-bpp])+int(prev[i]))/2)
			sum += abs8(d[i])
		}
	case 4:
		for i := 0; i < bpp; i++ {
			d[i] = cur[i] - prev[i] // Paeth with nothing left is Up
			sum += abs8(d[i])
		}
		for i := bpp; i < len(cur) && sum < limit; i++ {
			d[i] = cur[i] - paeth(cur[i-bpp], prev[i], prev[i-bpp])
			sum += abs8(d[i])
		}
	}
	return sum
}

func abs8(v byte) int {
	if int8(v) < 0 {
		return -int(int8(v))
	}
	return int(v)
}

// paeth is PNG's Paeth predictor.
func paeth(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	pa, pb, pc := absInt(p-int(a)), absInt(p-int(b)), absInt(p-int(c))
	switch {
	case pa <= pb && pa <= pc:
		return a
	case pb <= pc:
		return b
	}
	return c
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// chunk appends a PNG chunk of type t.
func chunk(out []byte, t string, data []byte) []byte {
	out = binary.BigEndian.AppendUint32(out, uint32(len(data)))
	start := len(out)
	out = append(out, t...)
	out = append(out, data...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
}

// adler32Combine is the Adler-32 of two pieces joined, from each's and the
// second's length (zlib's adler32_combine).
func adler32Combine(a1, a2 uint32, len2 int) uint32 {
	const base = 65521
	rem := uint32(len2 % base)
	sum1 := a1 & 0xffff
	sum2 := (rem * sum1) % base
	sum1 += (a2 & 0xffff) + base - 1
	sum2 += (a1 >> 16) + (a2 >> 16) + base - rem
	if sum1 >= base {
		sum1 -= base
	}
	if sum1 >= base {
		sum1 -= base
	}
	if sum2 >= 2*base {
		sum2 -= 2 * base
	}
	if sum2 >= base {
		sum2 -= base
	}
	return sum1 | sum2<<16
}
