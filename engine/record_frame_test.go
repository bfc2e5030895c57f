package engine

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"testing"
)

// TestShrinkPicksTheNearestPixels: a recorded frame's pixels are the
// source's nearest ones, from a whole capture and from a sub-image, and a
// frame small enough is kept as it is.
func TestShrinkPicksTheNearestPixels(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	full := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
	for i := range full.Pix {
		full.Pix[i] = uint8(rng.IntN(256))
	}
	for _, src := range []image.Image{full, full.SubImage(image.Rect(7, 30, 1001, 2222))} {
		got := shrink(src, frameLong)
		b, gb := src.Bounds(), got.Bounds()
		if max(gb.Dx(), gb.Dy()) != frameLong {
			t.Fatalf("long side %v, want %d", gb.Size(), frameLong)
		}
		for y := range gb.Dy() {
			for x := range gb.Dx() {
				want := src.At(b.Min.X+x*b.Dx()/gb.Dx(), b.Min.Y+y*b.Dy()/gb.Dy())
				if g := got.At(gb.Min.X+x, gb.Min.Y+y); g != color.Color(want.(color.RGBA)) {
					t.Fatalf("pixel %d,%d of %v = %v, want %v", x, y, b, g, want)
				}
			}
		}
	}
	small := image.NewRGBA(image.Rect(0, 0, 100, 200))
	if shrink(small, frameLong) != image.Image(small) {
		t.Fatal("a small frame was copied")
	}
}

// TestRecordedFramesReuseTheirPicture: the record's writer shrinks each
// frame into the picture it shrank the last one into, so a frame after
// the first allocates no 2 MB picture, and its pixels are its own.
func TestRecordedFramesReuseTheirPicture(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var bufs frameBufs
	dir := t.TempDir()
	for i := range 4 {
		src := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
		for j := range src.Pix {
			src.Pix[j] = uint8(rng.IntN(256))
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := writeFrame(filepath.Join(dir, fmt.Sprintf("%d.jpg", i)), src, &bufs); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; i > 0 && n > 1<<20 {
			t.Errorf("frame %d allocated %d bytes", i, n)
		}
		if want := shrink(src, frameLong).(*image.RGBA); !bytes.Equal(bufs.pix.Pix, want.Pix) {
			t.Fatalf("frame %d: the reused picture is not its pixels", i)
		}
	}
}
