package adb

import (
	"bytes"
	"context"
	"hash/crc32"
	"image"
	"strconv"
)

// Confirming a still screen (issue 48). The stability wait's second
// capture of every step almost always finds the screen it had: 10 MB of a
// 1080×2400 phone read through the adb server (its CPU and ours, and on a
// real phone the USB transfer, 0.2 s and more) to learn one bit. The phone
// checksums that capture where it is made instead, and only the checksum
// travels.

// sumCommand captures the screen and checksums it on the phone with
// toybox's cksum (Android 6 and later): -L reflected, -P pre-inverted,
// post-inverted by default and -N without the length is CRC-32 as zlib
// and hash/crc32's IEEE compute it (toys/posix/cksum.c, landley/toybox:
// crc32 is the same flags). Its first word is the checksum in decimal;
// older toyboxes print the length after it.
const sumCommand = "screencap | cksum -LPN"

// Unchanged reports whether the phone's screen is still frame, the last
// frame Screenshot returned, from a checksum of a capture made on the
// phone. False when it cannot tell: frame is not the last, the last was
// not read raw, or the phone has no cksum (then never asked again). A
// "changed" the next capture finds false (a cksum that is not CRC-32)
// ends the asking too: the answer is only ever a saving.
func (d *Device) Unchanged(ctx context.Context, frame image.Image) bool {
	if d.noSum.Load() {
		return false
	}
	want, ok := d.frames.checksum(frame)
	if !ok {
		return false
	}
	out, err := d.srv.Exec(ctx, d.serial, sumCommand, 256)
	if err != nil || ctx.Err() != nil {
		return false // the capture the caller makes instead says what is wrong
	}
	got, ok := parseSum(out)
	if !ok {
		d.noSum.Store(true)
		return false
	}
	if got != want {
		d.sumMissed.Store(true)
		return false
	}
	return true
}

// sumChecked is told whether a capture found the screen unchanged after
// a checksum said it had changed: such a cksum computes something else.
func (d *Device) sumChecked(same bool) {
	if d.sumMissed.Swap(false) && same {
		d.noSum.Store(true)
	}
}

// parseSum reads cksum's output: the checksum in decimal, then at most
// the length.
func parseSum(out []byte) (uint32, bool) {
	f := bytes.Fields(out)
	if len(f) == 0 || len(f) > 2 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(f[0]), 10, 32)
	return uint32(n), err == nil
}

// checksum is the CRC-32 of the raw capture frame was read from, when
// frame is the last frame handed out and its pixels are that capture's
// bytes after its header; computed once a frame.
func (f *frames) checksum(frame image.Image) (uint32, bool) {
	f.mu.Lock()
	last, head, sumOf, sum := f.last, f.head, f.sumOf, f.sum
	f.mu.Unlock()
	if last == nil || head == nil || frame != image.Image(last) {
		return 0, false
	}
	if sumOf == last {
		return sum, true
	}
	sum = crc32.Update(crc32.ChecksumIEEE(head), crc32.IEEETable, last.Pix)
	f.mu.Lock()
	if f.last == last {
		f.sumOf, f.sum = last, sum
	}
	f.mu.Unlock()
	return sum, true
}
