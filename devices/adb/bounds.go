package adb

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
)

// A phone is not trusted with Tandem's memory or with where it taps: the
// size in a screenshot's header decides what decoding allocates before a
// single pixel arrives (a PNG whose header claims 100000x100000 asks for
// 40 GB, and the process dies of it), and the size `wm size` reports
// decides where taps land. Every size a phone states is checked against
// the largest real screens, with room to spare, before it is used:
//
//   - phones reach 1440x3200 (1644x3840 on a 4K Xperia), tablets 2960x1848,
//     Android TV boxes 3840x2160 and a few 8K sets 7680x4320 (33 Mpx);
//   - so at most 8192 pixels a side and 40 million pixels: a decoded frame
//     of 160 MB at most (4 bytes a pixel), which a desktop can afford once
//     per screenshot.
const (
	maxSide   = 8192
	maxPixels = 40_000_000
)

// ErrScreenTooLarge wraps a screen size, reported or sent, that is larger
// than any device's (see maxSide, maxPixels): nothing is decoded or tapped
// for it.
var ErrScreenTooLarge = errors.New("larger than any device's screen")

// screenFits reports whether w x h is a size Tandem drives: positive and
// within maxSide and maxPixels. The sizes come from a phone: 32-bit header
// words or decimal text, so int64 holds any of them without overflow.
func screenFits(w, h int64) bool {
	return w > 0 && h > 0 && w <= maxSide && h <= maxSide && w*h <= maxPixels
}

// tooLarge is the refusal of a w x h claim, with the limits.
func tooLarge(w, h int64) error {
	return fmt.Errorf("%dx%d pixels, %w (Tandem takes up to %d pixels a side and %d million in all)",
		w, h, ErrScreenTooLarge, maxSide, maxPixels/1_000_000)
}

// refuse says which phone claimed what: "adb: phone SERIAL sent a PNG
// screenshot of 100000x100000 pixels, larger than any device's screen
// (...): refused".
func (d *Device) refuse(what string, err error) error {
	return fmt.Errorf("adb: phone %s %s %w: refused", d.serial, what, err)
}

// checkPNG refuses a PNG whose header claims a size no screen has, before
// a byte of it is decoded: the header says what decoding will allocate. A
// header that cannot be read passes, for png.Decode to say what is wrong.
func checkPNG(b []byte) error {
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err == nil && !screenFits(int64(cfg.Width), int64(cfg.Height)) {
		return tooLarge(int64(cfg.Width), int64(cfg.Height))
	}
	return nil
}
