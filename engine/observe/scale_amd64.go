//go:build amd64 && !purego

package observe

// rowsSIMD is the row pass of rows2 and rows3 (two rows when two) for
// px's pixels up to a multiple of four, eight channels an instruction
// (SSE2, which every amd64 has: the row pass was half of the model's
// shrink); it returns how many pixels it did.
func rowsSIMD(px []uint64, r [3][]uint8, w [3]uint64, two bool) int {
	n := len(px) &^ 3
	if n == 0 {
		return 0
	}
	if two {
		rows2SSE2(px[:n], r[0][:n*4], r[1][:n*4], w[0], w[1])
	} else {
		rows3SSE2(px[:n], r[0][:n*4], r[1][:n*4], r[2][:n*4], w[0], w[1], w[2])
	}
	return n
}

// rows2SSE2 and rows3SSE2 are rows2 and rows3 for len(px) pixels, a
// multiple of four, each row holding four bytes a pixel of px (scale_amd64.s).
//
//go:noescape
func rows2SSE2(px []uint64, r0, r1 []uint8, w0, w1 uint64)

//go:noescape
func rows3SSE2(px []uint64, r0, r1, r2 []uint8, w0, w1, w2 uint64)

// columnTaps is a band's three taps a cell laid out for columnsSSE2: each
// cell's first source pixel as a byte offset into the row pass's words,
// and each pair of cells' weights, each four times (a lane a channel):
// the first taps of both cells, then the second, then the third.
type columnTaps struct {
	firsts []int64
	wts    []uint16
}

func newColumnTaps(taps []tap3) columnTaps {
	n := len(taps) &^ 1
	c := columnTaps{firsts: make([]int64, n), wts: make([]uint16, 0, n*12)}
	for i := 0; i < n; i += 2 {
		a, b := taps[i], taps[i+1]
		c.firsts[i], c.firsts[i+1] = int64(a.first)*8, int64(b.first)*8
		for _, w := range [3][2]uint64{{a.w0, b.w0}, {a.w1, b.w1}, {a.w2, b.w2}} {
			wa, wb := uint16(w[0]), uint16(w[1])
			c.wts = append(c.wts, wa, wa, wa, wa, wb, wb, wb, wb)
		}
	}
	return c
}

// columnsSIMD is columns3 for the cells of c, two an iteration (SSE2); it
// returns how many cells it did.
func columnsSIMD(out []uint8, px []uint64, c columnTaps) int {
	n := len(c.firsts)
	if n == 0 {
		return 0
	}
	_ = out[n*4-1]
	columnsSSE2(out[:n*4], px, c.firsts, c.wts)
	return n
}

// columnsSSE2 writes len(firsts) cells (an even number) into out, each
// of px's three words from firsts[i] (a byte offset) weighed by wts.
//
//go:noescape
func columnsSSE2(out []uint8, px []uint64, firsts []int64, wts []uint16)
