package adb

import (
	"bytes"
	"context"
	"image"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"
)

// TestUnchangedScreenKeepsItsFrame: a capture of a screen that has not
// changed hands out the frame already handed out, allocating no frame,
// and no frame once handed out is ever written again, whatever the
// captures after it show (its buffer is reused only when no one has it).
func TestUnchangedScreenKeepsItsFrame(t *testing.T) {
	const w, h = 300, 500
	frame := func(seed byte) []byte {
		px := make([]byte, 0, 4)
		b := rawFrame(w, h, 16, 1, append(px, 1, 2, 3, 255))
		for i := 16; i < len(b); i++ {
			if i%4 != 3 {
				b[i] = byte(i*7) ^ seed
			}
		}
		return b
	}
	a, b := frame(1), frame(2)
	shows := [][]byte{a, a, b, b, a, a, b}
	var at atomic.Int32
	s := privateServer(t)
	_, serial := startMini(t, s, "shell_v2,cmd", func(service string) miniReply {
		if service == "exec:screencap" {
			return miniReply{data: shows[int(at.Add(1)-1)%len(shows)]}
		}
		return miniReply{data: v2(3, "\x00")}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := Open(ctx, Options{Server: s, Serial: serial})
	if err != nil {
		t.Fatal(err)
	}
	var held []*image.RGBA
	var large []uint64 // objects over 32 KB each capture allocated
	for i := range shows {
		before := largeAllocs()
		img, err := d.Screenshot(ctx)
		after := largeAllocs()
		if err != nil {
			t.Fatalf("capture %d: %v", i, err)
		}
		rgba := img.(*image.RGBA)
		if i > 0 && bytes.Equal(shows[i], shows[i-1]) {
			if rgba != held[i-1] {
				t.Errorf("capture %d of an unchanged screen is a new frame", i)
			}
		}
		large = append(large, after-before)
		held = append(held, rgba)
		for j, f := range held {
			if !bytes.Equal(f.Pix, shows[j][16:]) {
				t.Fatalf("after capture %d, frame %d handed out earlier no longer shows its screen", i, j)
			}
		}
	}
	// A capture of an unchanged screen is compared as it is read, through
	// one small buffer (allocated by the first such capture): it
	// allocates no frame; one of a changed screen allocates at most its
	// own.
	t.Logf("large allocations a capture: %v", large)
	for i := 2; i < len(shows); i++ {
		unchanged := bytes.Equal(shows[i], shows[i-1])
		if unchanged && large[i] != 0 || !unchanged && large[i] > 1 {
			t.Errorf("capture %d (unchanged: %v) allocated %d objects over 32 KB (%v)", i, unchanged, large[i], large)
		}
	}
}

// largeAllocs is how many objects of over 32 KB the process has allocated.
func largeAllocs() uint64 {
	m := []metrics.Sample{{Name: "/gc/heap/allocs-by-size:bytes"}}
	metrics.Read(m)
	h := m[0].Value.Float64Histogram()
	var n uint64
	for i, c := range h.Counts {
		if h.Buckets[i] >= 32<<10 {
			n += c
		}
	}
	return n
}

// TestCaptureComparedAsItComes: a capture read against the last frame is
// that frame only when its bytes are the frame's to the end, and else
// exactly what a capture read whole would be: changed at its first or
// last byte, cut short in or after the part that agrees, with bytes after
// a whole frame, with another header.
func TestCaptureComparedAsItComes(t *testing.T) {
	const w, h = 300, 500 // more than one piece
	px := make([]byte, w*h*4)
	for i := range px {
		px[i] = byte(i * 13)
	}
	raw := func(w, h int, format uint32, px []byte) []byte {
		return append(rawFrame(w, h, 16, format, nil)[:16], px...)
	}
	frame := raw(w, h, 1, px)
	edit := func(i int) []byte {
		b := bytes.Clone(frame)
		b[i] ^= 0x40
		return b
	}
	for _, tc := range []struct {
		name string
		in   []byte
		same bool
	}{
		{"the same", frame, true},
		{"first pixel byte", edit(16), false},
		{"last byte", edit(len(frame) - 1), false},
		{"a byte past a piece", edit(16 + pieceSize + 5), false},
		{"cut in the agreeing part", frame[:16+pieceSize+7], false},
		{"cut in the header", frame[:9], false},
		{"nothing", nil, false},
		{"bytes after the frame", append(bytes.Clone(frame), "tail"...), false},
		{"another header", raw(w, h-1, 1, px[:w*(h-1)*4]), false},
		{"another format", raw(w, h, 5, px), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f frames
			last, err := decodeRaw(bytes.Clone(frame))
			if err != nil {
				t.Fatal(err)
			}
			f.hand(last, nil, false, frame[:16:16])
			got, err := f.read(bytes.NewReader(tc.in), 64<<20)
			want, werr := readRaw(bytes.NewReader(tc.in), 64<<20)
			if err != nil || werr != nil {
				t.Fatalf("errors %v, %v", err, werr)
			}
			if tc.same {
				if got.same != last || got.raw != nil {
					t.Fatalf("the same screen read as %d raw bytes, frame %p (last %p)", len(got.raw), got.same, last)
				}
				return
			}
			if got.same != nil || !bytes.Equal(got.raw, want) {
				t.Fatalf("read %d bytes (same %v), whole %d", len(got.raw), got.same != nil, len(want))
			}
		})
	}
}
