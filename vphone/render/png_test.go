package render

import (
	"bytes"
	"image"
	"image/png"
	"math/rand"
	"testing"
)

// The PNG writer round-trips exactly through image/png: rows equal to the
// one above (most of a UI screen), noise, odd sizes.
func TestEncodePNGRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, size := range []image.Point{{1, 1}, {3, 5}, {360, 800}, {1080, 7}} {
		img := image.NewRGBA(image.Rect(0, 0, size.X, size.Y))
		for y := 0; y < size.Y; y++ {
			for x := 0; x < size.X; x++ {
				o := img.PixOffset(x, y)
				if y%3 == 1 && y > 0 { // a row like the one above
					copy(img.Pix[o:o+4], img.Pix[o-img.Stride:o-img.Stride+4])
					continue
				}
				img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = uint8(rng.Intn(256)), uint8(x), uint8(y), 0xff
			}
		}
		var buf bytes.Buffer
		if err := EncodePNG(&buf, img); err != nil {
			t.Fatal(err)
		}
		got, err := png.Decode(&buf)
		if err != nil {
			t.Fatalf("%v: %v", size, err)
		}
		if got.Bounds() != img.Bounds() {
			t.Fatalf("bounds %v, want %v", got.Bounds(), img.Bounds())
		}
		for y := 0; y < size.Y; y++ {
			for x := 0; x < size.X; x++ {
				r, g, b, _ := got.At(x, y).RGBA()
				o := img.PixOffset(x, y)
				if uint8(r>>8) != img.Pix[o] || uint8(g>>8) != img.Pix[o+1] || uint8(b>>8) != img.Pix[o+2] {
					t.Fatalf("%v: pixel %d,%d differs", size, x, y)
				}
			}
		}
	}
}
