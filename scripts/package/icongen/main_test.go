package main

import (
	"bytes"
	"encoding/binary"
	"image/png"
	"testing"
)

func TestDrawShape(t *testing.T) {
	for _, size := range []int{16, 256} {
		img := Draw(size)
		if a := img.NRGBAAt(0, 0).A; a != 0 {
			t.Errorf("%d px: corner alpha %d, want transparent (rounded square)", size, a)
		}
		// The accent circle's centre, away from the ring.
		if c := img.NRGBAAt(size*28/100, size*35/100); c != accent {
			t.Errorf("%d px: accent centre is %v", size, c)
		}
		// A point on the ring, right of its centre.
		if c := img.NRGBAAt(size*83/100, size*56/100); c != ring {
			t.Errorf("%d px: ring is %v", size, c)
		}
	}
}

func TestICODirectory(t *testing.T) {
	sizes := []int{16, 256}
	pngs := map[int][]byte{}
	for _, s := range sizes {
		var b bytes.Buffer
		if err := png.Encode(&b, Draw(s)); err != nil {
			t.Fatal(err)
		}
		pngs[s] = b.Bytes()
	}
	ico, err := ICO(sizes, pngs)
	if err != nil {
		t.Fatal(err)
	}
	if binary.LittleEndian.Uint16(ico[2:]) != 1 || binary.LittleEndian.Uint16(ico[4:]) != 2 {
		t.Fatalf("header % x", ico[:6])
	}
	for i, s := range sizes {
		e := ico[6+16*i:]
		size := binary.LittleEndian.Uint32(e[8:])
		off := binary.LittleEndian.Uint32(e[12:])
		img, err := png.Decode(bytes.NewReader(ico[off : off+size]))
		if err != nil || img.Bounds().Dx() != s {
			t.Fatalf("entry %d: %v %v", i, err, img)
		}
	}
	if _, err := ICO([]int{32}, pngs); err == nil {
		t.Fatal("a missing size gave no error")
	}
}
