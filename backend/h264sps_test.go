package backend

import (
	"bytes"
	"image"
	"slices"
)

// spsSize is the picture size (cropped) of the first sequence parameter
// set in an H.264 Annex B buffer, read as ITU-T H.264 §7.3.2.1.1 lays it
// out: what a decoder will draw, whatever the mirror's header says.
func spsSize(data []byte) (image.Point, bool) {
	for _, nal := range bytes.Split(data, []byte{0, 0, 1}) {
		nal = bytes.TrimRight(nal, "\x00") // a four-byte start code's leading zero
		if len(nal) > 4 && nal[0]&0x1f == 7 {
			return parseSPS(&bitReader{b: unescapeNAL(nal[1:])})
		}
	}
	return image.Point{}, false
}

// unescapeNAL drops the emulation-prevention bytes (00 00 03 → 00 00).
func unescapeNAL(b []byte) []byte {
	out := make([]byte, 0, len(b))
	zeros := 0
	for _, c := range b {
		if zeros >= 2 && c == 3 {
			zeros = 0
			continue
		}
		out = append(out, c)
		if c == 0 {
			zeros++
		} else {
			zeros = 0
		}
	}
	return out
}

type bitReader struct {
	b   []byte
	pos int
	bad bool
}

func (r *bitReader) u(n int) uint {
	v := uint(0)
	for range n {
		if r.pos/8 >= len(r.b) {
			r.bad = true
			return 0
		}
		v = v<<1 | uint(r.b[r.pos/8]>>(7-r.pos%8)&1)
		r.pos++
	}
	return v
}

func (r *bitReader) ue() uint {
	zeros := 0
	for r.u(1) == 0 && !r.bad && zeros < 32 {
		zeros++
	}
	return 1<<zeros - 1 + r.u(zeros)
}

func (r *bitReader) se() int {
	v := r.ue()
	if v&1 == 1 {
		return int(v+1) / 2
	}
	return -int(v / 2)
}

// highProfiles carry the chroma format and scaling lists in their SPS.
var highProfiles = []uint{100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135}

func parseSPS(r *bitReader) (image.Point, bool) {
	profile := r.u(8)
	r.u(16) // constraint flags, level
	r.ue()  // seq_parameter_set_id
	chroma := uint(1)
	if slices.Contains(highProfiles, profile) {
		if chroma = r.ue(); chroma == 3 {
			r.u(1)
		}
		r.ue()
		r.ue()
		r.u(1)
		if r.u(1) == 1 { // scaling matrices
			for i := range map[bool]int{true: 8, false: 12}[chroma != 3] {
				if r.u(1) == 1 {
					skipScalingList(r, map[bool]int{true: 16, false: 64}[i < 6])
				}
			}
		}
	}
	r.ue() // log2_max_frame_num_minus4
	switch r.ue() {
	case 0:
		r.ue()
	case 1:
		r.u(1)
		r.se()
		r.se()
		for range r.ue() {
			r.se()
		}
	}
	r.ue() // max_num_ref_frames
	r.u(1)
	w := int(r.ue()+1) * 16
	hMap := int(r.ue() + 1)
	frameMbsOnly := int(r.u(1))
	if frameMbsOnly == 0 {
		r.u(1)
	}
	r.u(1)
	h := (2 - frameMbsOnly) * hMap * 16
	if r.u(1) == 1 { // cropping, in chroma units
		cx, cy := 1, 2-frameMbsOnly
		if chroma == 1 || chroma == 2 {
			cx = 2
		}
		if chroma == 1 {
			cy *= 2
		}
		left, right, top, bottom := int(r.ue()), int(r.ue()), int(r.ue()), int(r.ue())
		w -= cx * (left + right)
		h -= cy * (top + bottom)
	}
	return image.Point{w, h}, !r.bad
}

func skipScalingList(r *bitReader, size int) {
	last, next := 8, 8
	for range size {
		if next != 0 {
			next = (last + r.se() + 256) % 256
		}
		if next != 0 {
			last = next
		}
	}
}
