package stream

import (
	"errors"
	"fmt"
)

// errSPS is an SPS the parser cannot read.
var errSPS = errors.New("stream: bad SPS")

// bitReader reads an RBSP (emulation prevention bytes removed).
type bitReader struct {
	b   []byte
	pos int
}

func (r *bitReader) bit() (uint, error) {
	if r.pos >= len(r.b)*8 {
		return 0, errSPS
	}
	v := uint(r.b[r.pos/8]>>(7-r.pos%8)) & 1
	r.pos++
	return v, nil
}

func (r *bitReader) bits(n int) (uint, error) {
	var v uint
	for i := 0; i < n; i++ {
		b, err := r.bit()
		if err != nil {
			return 0, err
		}
		v = v<<1 | b
	}
	return v, nil
}

func (r *bitReader) ue() (uint, error) {
	zeros := 0
	for {
		b, err := r.bit()
		if err != nil {
			return 0, err
		}
		if b == 1 {
			break
		}
		zeros++
		if zeros > 31 {
			return 0, errSPS
		}
	}
	v, err := r.bits(zeros)
	return (1<<zeros - 1) + v, err
}

func (r *bitReader) se() (int, error) {
	v, err := r.ue()
	if v%2 == 1 {
		return int(v+1) / 2, err
	}
	return -int(v / 2), err
}

// unescape removes emulation prevention bytes (00 00 03).
func unescape(b []byte) []byte {
	out := make([]byte, 0, len(b))
	zeros := 0
	for _, c := range b {
		if zeros >= 2 && c == 3 {
			zeros = 0
			continue
		}
		if c == 0 {
			zeros++
		} else {
			zeros = 0
		}
		out = append(out, c)
	}
	return out
}

// SPSSize reads the picture size (cropping applied) from an SPS NAL unit
// (starting with its header byte, no start code): what a decoder will
// draw, whatever a header around the stream says.
func SPSSize(nal []byte) (w, h int, err error) { return spsSize(nal) }

func spsSize(nal []byte) (w, h int, err error) {
	if len(nal) < 4 || nal[0]&0x1f != nalSPS {
		return 0, 0, errSPS
	}
	r := &bitReader{b: unescape(nal[1:])}
	profile, _ := r.bits(8)
	if _, err := r.bits(16); err != nil { // constraint flags, level
		return 0, 0, err
	}
	if _, err := r.ue(); err != nil { // seq_parameter_set_id
		return 0, 0, err
	}
	chroma, err := r.chromaFormat(profile)
	if err != nil {
		return 0, 0, err
	}
	r.ue() // log2_max_frame_num_minus4
	if err := r.skipPOC(); err != nil {
		return 0, 0, err
	}
	r.ue()  // max_num_ref_frames
	r.bit() // gaps_in_frame_num_value_allowed_flag
	wmbs, _ := r.ue()
	hmaps, _ := r.ue()
	frameMBsOnly, _ := r.bit()
	if frameMBsOnly == 0 {
		r.bit() // mb_adaptive_frame_field_flag
	}
	r.bit() // direct_8x8_inference_flag
	crop, err := r.bit()
	if err != nil {
		return 0, 0, err
	}
	w = int(wmbs+1) * 16
	h = int(hmaps+1) * 16 * int(2-frameMBsOnly)
	if crop == 1 {
		cw, ch, err := r.cropping(chroma, frameMBsOnly)
		if err != nil {
			return 0, 0, err
		}
		w, h = w-cw, h-ch
	}
	if w <= 0 || h <= 0 || w > 16384 || h > 16384 {
		return 0, 0, fmt.Errorf("%w: size %dx%d", errSPS, w, h)
	}
	return w, h, nil
}

// chromaFormat reads the high profiles' chroma format and skips their bit
// depths and scaling matrices; other profiles are 4:2:0 (1).
func (r *bitReader) chromaFormat(profile uint) (uint, error) {
	switch profile {
	case 100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135:
	default:
		return 1, nil
	}
	chroma, err := r.ue()
	if err != nil {
		return 0, err
	}
	if chroma == 3 {
		r.bit() // separate_colour_plane_flag
	}
	r.ue()          // bit_depth_luma_minus8
	r.ue()          // bit_depth_chroma_minus8
	r.bit()         // qpprime_y_zero_transform_bypass_flag
	m, _ := r.bit() // seq_scaling_matrix_present_flag
	if m == 0 {
		return chroma, nil
	}
	lists := 8
	if chroma == 3 {
		lists = 12
	}
	for i := 0; i < lists; i++ {
		present, err := r.bit()
		if err != nil {
			return 0, err
		}
		if present == 0 {
			continue
		}
		size := 16
		if i >= 6 {
			size = 64
		}
		if err := r.skipScalingList(size); err != nil {
			return 0, err
		}
	}
	return chroma, nil
}

func (r *bitReader) skipScalingList(size int) error {
	last, next := 8, 8
	for j := 0; j < size; j++ {
		if next != 0 {
			d, err := r.se()
			if err != nil {
				return err
			}
			next = (last + d + 256) % 256
		}
		if next != 0 {
			last = next
		}
	}
	return nil
}

// skipPOC skips the picture order count fields.
func (r *bitReader) skipPOC() error {
	poc, err := r.ue()
	if err != nil {
		return err
	}
	switch poc {
	case 0:
		r.ue()
	case 1:
		r.bit()
		r.se()
		r.se()
		n, err := r.ue()
		if err != nil || n > 255 {
			return errSPS
		}
		for i := uint(0); i < n; i++ {
			r.se()
		}
	}
	return nil
}

// cropping reads the frame cropping offsets as pixels off the width and
// the height.
func (r *bitReader) cropping(chroma, frameMBsOnly uint) (w, h int, err error) {
	l, _ := r.ue()
	rr, _ := r.ue()
	t, _ := r.ue()
	b, err := r.ue()
	if err != nil {
		return 0, 0, err
	}
	cx, cy := 2, 2*int(2-frameMBsOnly) // 4:2:0
	switch chroma {
	case 0, 3:
		cx, cy = 1, int(2-frameMBsOnly)
	case 2:
		cx, cy = 2, int(2-frameMBsOnly)
	}
	return cx * int(l+rr), cy * int(t+b), nil
}
