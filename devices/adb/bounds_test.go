package adb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/png"
	"runtime"
	"testing"
)

// The sizes a phone may state: every real screen passes, anything larger
// than any screen (or not a size) does not.
func TestScreenFits(t *testing.T) {
	for _, c := range []struct {
		w, h int64
		ok   bool
	}{
		{1080, 2400, true}, {1440, 3200, true}, {1644, 3840, true}, {2960, 1848, true},
		{3840, 2160, true}, {7680, 4320, true}, {8192, 4096, true}, {1, 1, true},
		{0, 2400, false}, {1080, 0, false}, {-1, 2400, false},
		{8193, 100, false}, {100, 8193, false}, {8192, 8192, false}, // 67 Mpx
		{16384, 16384, false}, {100000, 100000, false}, {1 << 32, 1 << 32, false},
	} {
		if got := screenFits(c.w, c.h); got != c.ok {
			t.Errorf("%dx%d: fits %v, want %v", c.w, c.h, got, c.ok)
		}
	}
}

// pngClaiming is a real 8x8 PNG whose header claims w x h (a
// well-formed IHDR, CRC included).
func pngClaiming(t testing.TB, w, h uint32) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 8, 8))); err != nil {
		t.Fatal(err)
	}
	out := b.Bytes()
	binary.BigEndian.PutUint32(out[16:], w)
	binary.BigEndian.PutUint32(out[20:], h)
	binary.BigEndian.PutUint32(out[29:], crc32.ChecksumIEEE(out[12:29]))
	return out
}

// The PNG check reads the header only: a claim of 100000x100000 is refused
// without allocating for it, a real size passes, a broken header is left
// for the decoder to name.
func TestCheckPNG(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []byte
		bad  bool
	}{
		{"real size", pngClaiming(t, 8, 8), false},
		{"a tablet", pngClaiming(t, 2960, 1848), false},
		{"100000 square", pngClaiming(t, 100000, 100000), true},
		{"16384 square (2 GB decoded)", pngClaiming(t, 16384, 16384), true},
		{"one huge side", pngClaiming(t, 1, 1<<30), true},
		{"no PNG", []byte("Capturing failed.\n"), false},
		{"cut header", pngClaiming(t, 100000, 100000)[:20], false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err := checkPNG(c.in)
			runtime.ReadMemStats(&after)
			if (err != nil) != c.bad || (err != nil && !errors.Is(err, ErrScreenTooLarge)) {
				t.Fatalf("err %v", err)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
				t.Fatalf("checking a header allocated %d KB", grew>>10)
			}
		})
	}
}

// decodeRaw: a raw header larger than any screen is refused as such, words
// stay words, a zero size is a format it does not know.
func TestDecodeRawClaims(t *testing.T) {
	head := func(w, h uint32, tail ...byte) []byte {
		b := binary.LittleEndian.AppendUint32(nil, w)
		b = binary.LittleEndian.AppendUint32(b, h)
		b = binary.LittleEndian.AppendUint32(b, 1)
		b = binary.LittleEndian.AppendUint32(b, 1)
		return append(b, tail...)
	}
	for _, c := range []struct {
		name string
		in   []byte
		want error
	}{
		{"100000 square", head(100000, 100000, 0xff, 0x80, 0), ErrScreenTooLarge},
		{"one huge side", head(1, 0xffffffff, 0xff, 0x80), ErrScreenTooLarge},
		{"8192 square", head(8192, 8192, 0xff), ErrScreenTooLarge},
		{"zero wide", head(0, 100, 0xff), errRawFormat},
		{"words", []byte("/system/bin/sh: screencap: inaccessible or not found\n"), errNoImage},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := decodeRaw(c.in); !errors.Is(err, c.want) {
				t.Fatalf("err %v, want %v", err, c.want)
			}
		})
	}
}

// `wm size` claiming more than any screen is refused, the physical or the
// override size, whichever is used.
func TestParseInfoRefusesHugeScreens(t *testing.T) {
	for _, out := range []string{
		"Physical size: 100000x100000\nPhysical density: 420\n",
		"Physical size: 1080x2400\nOverride size: 100000x100000\n",
		"Physical size: 8192x8192\n",
	} {
		if _, err := parseInfo(out); !errors.Is(err, ErrScreenTooLarge) {
			t.Errorf("%q: err %v", out, err)
		}
	}
	if info, err := parseInfo("Physical size: 7680x4320\nPhysical density: 320\n"); err != nil || info.Screen.W != 7680 {
		t.Errorf("an 8K screen: %+v %v", info.Screen, err)
	}
}
