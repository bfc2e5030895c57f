package observe

import (
	"hash/maphash"
	"image"
	"testing"

	"tandem/internal/encoded"
)

// TestPixelSum: equal sums only for the same pixels in the same shape and
// kind; a frame carried with its bytes sums as its pixels.
func TestPixelSum(t *testing.T) {
	seed := maphash.MakeSeed()
	base := func() *image.RGBA {
		img := image.NewRGBA(image.Rect(0, 0, 4, 4))
		for i := range img.Pix {
			img.Pix[i] = byte(i * 7)
		}
		return img
	}
	onePixel := base()
	onePixel.Pix[len(onePixel.Pix)-2]++
	wide := image.NewRGBA(image.Rect(0, 0, 8, 2))
	copy(wide.Pix, base().Pix)
	nrgba := image.NewNRGBA(image.Rect(0, 0, 4, 4))
	copy(nrgba.Pix, base().Pix)
	want, ok := PixelSum(base(), seed)
	if !ok {
		t.Fatal("an RGBA frame has no sum")
	}
	for _, c := range []struct {
		name string
		img  image.Image
		same bool
	}{
		{"the same pixels, another image", base(), true},
		{"carried with its PNG bytes", &encoded.Image{Image: base(), Data: []byte("png"), MIME: "image/png"}, true},
		{"one byte of the last pixel", onePixel, false},
		{"the same bytes, 8x2", wide, false},
		{"the same bytes as NRGBA", nrgba, false},
	} {
		got, ok := PixelSum(c.img, seed)
		if !ok || (got == want) != c.same {
			t.Errorf("%s: sum %x (ok %v), base %x: same %v, want %v", c.name, got, ok, want, got == want, c.same)
		}
	}
	if _, ok := PixelSum(image.NewGray(image.Rect(0, 0, 4, 4)), seed); ok {
		t.Error("a Gray frame was summed: only RGBA and NRGBA are")
	}
}
