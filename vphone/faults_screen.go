package vphone

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
)

// SetClaimedScreen makes the phone lie about its screen, as a hostile or
// broken device may: `wm size` reports w x h, and both screencap outputs
// claim it in their headers (the raw frame's width and height words, the
// PNG's IHDR chunk) while the pixels that follow stay the real ones. A
// driver that trusts the header allocates for the claim before it finds
// the data short. Zero switches it off.
func (p *Phone) SetClaimedScreen(w, h int) {
	p.withFaults(func(f *faults) { f.claimed = [2]int{w, h} })
}

// claimedScreen is the size the phone claims, and whether it lies.
func (f faults) claimedScreen() (w, h int, ok bool) {
	return f.claimed[0], f.claimed[1], f.claimed != [2]int{}
}

// claimRaw rewrites a raw screencap frame's width and height words.
func claimRaw(frame []byte, w, h int) []byte {
	out := append([]byte(nil), frame...)
	binary.LittleEndian.PutUint32(out[0:], uint32(w))
	binary.LittleEndian.PutUint32(out[4:], uint32(h))
	return out
}

// claimPNG rewrites a PNG's IHDR width and height (and the chunk's CRC,
// so the lie is a well-formed PNG header). The input is left alone: the
// phone caches its PNG.
func claimPNG(png []byte, w, h int) []byte {
	// 8 bytes of signature, then IHDR: length, "IHDR", 13 bytes of data, CRC.
	const ihdr = 8
	if len(png) < ihdr+8+13+4 || !bytes.Equal(png[ihdr+4:ihdr+8], []byte("IHDR")) {
		return png
	}
	out := append([]byte(nil), png...)
	binary.BigEndian.PutUint32(out[ihdr+8:], uint32(w))
	binary.BigEndian.PutUint32(out[ihdr+12:], uint32(h))
	binary.BigEndian.PutUint32(out[ihdr+8+13:], crc32.ChecksumIEEE(out[ihdr+4:ihdr+8+13]))
	return out
}
