package adb

import (
	"bytes"
	"errors"
	"image"
	"io"
	"sync"
)

// frames spares a phone's captures the 10 MB a new frame costs (allocated,
// zeroed, its pages touched, then collected) when the screen has not
// changed, as in the second capture of every stability wait (issue 48).
// A capture is read a piece at a time into one small buffer and compared
// with the last frame handed out as it comes: while they agree nothing is
// kept, and a capture that agrees to its end is that frame, handed out
// again; at the first difference the capture gets a buffer of its own
// (the spare when there is one), the agreeing part copied from the last
// frame. A frame once handed out is never written again: the engine, the
// mirror, the record and the model's picture may all hold it.
type frames struct {
	mu   sync.Mutex
	last *image.RGBA // the newest frame handed out
	// head is the raw header last came with when last's pixels are the
	// bytes that followed it as they came (RGBA_8888 behind a 16-byte
	// header): only then can a capture be compared as it is read.
	head  []byte
	spare []byte // a buffer no frame handed out uses
	piece []byte // the buffer captures are compared through
	// sum is the CRC-32 of sumOf's raw capture (checksum), for the
	// phone's checksum of a capture to be compared with.
	sumOf *image.RGBA
	sum   uint32
}

// pieceSize is how much of a capture is read and compared at a time:
// small enough to stay in the core's cache between the two.
const pieceSize = 256 << 10

// take returns the spare buffer, nil when there is none, and leaves none:
// two captures at once never read into the same buffer.
func (f *frames) take() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.spare
	f.spare = nil
	return s
}

// give makes b, a buffer no frame handed out uses, the spare.
func (f *frames) give(b []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if cap(b) >= cap(f.spare) {
		f.spare = b
	}
}

// capture is what read took from a phone: the last frame again (same),
// or a raw output to decode, differs when it was found to differ from
// the last frame.
type capture struct {
	raw     []byte
	same    *image.RGBA
	differs bool
}

// read reads a capture of screencap's raw output from r (as readRawInto
// does, up to limit bytes), comparing it with the last frame as it comes
// when that frame allows.
func (f *frames) read(r io.Reader, limit int64) (capture, error) {
	f.mu.Lock()
	last, head, piece := f.last, f.head, f.piece
	f.piece = nil // one capture at a time reads through it
	f.mu.Unlock()
	if head == nil {
		raw, err := readRawInto(r, limit, f.take())
		return capture{raw: raw}, err
	}
	if piece == nil {
		piece = make([]byte, pieceSize)
	}
	defer func() {
		f.mu.Lock()
		f.piece = piece
		f.mu.Unlock()
	}()
	n, err := io.ReadFull(r, piece[:len(head)])
	if err != nil || !bytes.Equal(piece[:n], head) {
		// Another size or format: read as any capture.
		raw, err := readRawInto(io.MultiReader(bytes.NewReader(piece[:n]), r), limit, f.take())
		return capture{raw: raw}, err
	}
	pix := last.Pix
	for off := 0; off < len(pix); {
		n, err := io.ReadFull(r, piece[:min(len(piece), len(pix)-off)])
		if err != nil || !bytes.Equal(piece[:n], pix[off:off+n]) {
			return f.rest(r, limit, [][]byte{head, pix[:off], piece[:n]}, len(head)+len(pix), err)
		}
		off += n
	}
	// The whole frame agrees; anything after it is not a frame.
	var one [1]byte
	if m, _ := r.Read(one[:]); m > 0 {
		return f.rest(r, limit, [][]byte{head, pix, one[:]}, len(head)+len(pix), nil)
	}
	return capture{same: last}, nil
}

// rest is a capture of size bytes that parted from the last frame: its
// parts read so far are copied into a buffer of its own, which the rest
// is read into (err is the error the last part was read with); the raw
// output is what readRawInto would have read.
func (f *frames) rest(r io.Reader, limit int64, parts [][]byte, size int, err error) (capture, error) {
	buf := f.take()
	if cap(buf) < size {
		buf = make([]byte, 0, size)
	}
	buf = buf[:0]
	for _, p := range parts {
		buf = append(buf, p...)
	}
	if err == nil && len(buf) < size {
		var n int
		n, err = io.ReadFull(r, buf[len(buf):size])
		buf = buf[:len(buf)+n]
	}
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return capture{raw: buf, differs: true}, nil // a cut stream: decodeRaw tells
	case err != nil:
		return capture{raw: buf, differs: true}, err
	}
	if len(buf) == size {
		var one [1]byte
		if m, _ := r.Read(one[:]); m == 0 {
			return capture{raw: buf, differs: true}, nil
		}
		buf = append(buf, one[0])
	}
	more, err := io.ReadAll(io.LimitReader(r, max(limit-int64(len(buf)), 0)))
	return capture{raw: append(buf, more...), differs: true}, err
}

// hand returns the frame to hand out for img, a capture just decoded from
// raw: the last frame when their pixels are the same (raw then becomes
// the spare when img's pixels are raw's), else img, the new last frame.
// differs says the capture is known to differ from the last frame; head
// is raw's header when img's pixels are the bytes after it, else nil.
func (f *frames) hand(img *image.RGBA, raw []byte, differs bool, head []byte) *image.RGBA {
	f.mu.Lock()
	last := f.last
	f.mu.Unlock()
	if !differs && last != nil && last.Rect == img.Rect && last.Stride == img.Stride && bytes.Equal(last.Pix, img.Pix) {
		f.give(raw)
		return last
	}
	f.mu.Lock()
	f.last, f.head, f.sumOf = img, head, nil // the old frame held by no sum
	f.mu.Unlock()
	return img
}
