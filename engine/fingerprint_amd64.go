//go:build amd64 && !purego

package engine

// lumsSIMD fills lums[i] with the luminance FingerprintOf takes of line's
// pixel i×step (four bytes a pixel, red first), four pixels an iteration
// in SSE2, when step is 2 (a phone's frame: the fingerprint was a step's
// largest Go function after the model's shrink); it returns how many it
// did, a multiple of four (none for another step).
func lumsSIMD(lums []uint32, line []uint8, step int) int {
	if step != 2 {
		return 0
	}
	n := min(len(lums)/4, len(line)/32) * 4
	if n == 0 {
		return 0
	}
	lums2SSE2(lums[:n], line[:n*8])
	return n
}

// lums2SSE2 is lumsSIMD for step 2 and len(lums) a multiple of four, line
// holding eight bytes a sample (fingerprint_amd64.s).
//
//go:noescape
func lums2SSE2(lums []uint32, line []uint8)
