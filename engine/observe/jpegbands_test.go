package observe

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"testing"

	"tandem/internal/fastjpeg"
)

// A JPEG of bands decodes to the very picture the one-piece encoding
// (internal/fastjpeg) does, whatever the size (heights and widths off the 16-pixel MCU grid,
// more bands than the eight RST markers) and the picture.
func TestJPEGBandsDecodeAsOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 31))
	for _, c := range []struct{ w, h, bands int }{
		{672, 1493, 2}, {672, 1493, 4}, {671, 1501, 3}, {17, 64, 2}, {800, 600, 12}, {33, 2000, 9}, {64, 40, 2},
	} {
		t.Run(fmt.Sprintf("%dx%d/%d", c.w, c.h, c.bands), func(t *testing.T) {
			img := image.NewRGBA(image.Rect(0, 0, c.w, c.h))
			for y := range c.h {
				for x := range c.w {
					v := uint8(x*y/7) ^ uint8(rng.IntN(40))
					img.Set(x, y, color.RGBA{v, uint8(x), uint8(y), 0xff})
				}
			}
			one, err := fastjpeg.Encode(img, 85)
			if err != nil {
				t.Fatal(err)
			}
			got, err := encodeJPEG(img, 85, c.bands)
			if err != nil {
				t.Fatal(err)
			}
			a, err := jpeg.Decode(bytes.NewReader(one))
			if err != nil {
				t.Fatal(err)
			}
			b, err := jpeg.Decode(bytes.NewReader(got))
			if err != nil {
				t.Fatalf("the banded JPEG does not decode: %v", err)
			}
			ya, yb := a.(*image.YCbCr), b.(*image.YCbCr)
			if ya.Rect != yb.Rect || !bytes.Equal(ya.Y, yb.Y) || !bytes.Equal(ya.Cb, yb.Cb) || !bytes.Equal(ya.Cr, yb.Cr) {
				t.Fatalf("decoded pictures differ: %v against %v", yb.Rect, ya.Rect)
			}
			banded := bytes.Contains(got, []byte{0xff, 0xdd})
			if wantBands := c.bands >= 2 && (c.h+15)/16 >= 2*c.bands; banded != wantBands {
				t.Fatalf("restart interval written: %v, want %v", banded, wantBands)
			}
		})
	}
}

func BenchmarkJPEG(b *testing.B) {
	img := image.NewRGBA(image.Rect(0, 0, 672, 1493))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7 / 5)
	}
	for _, bands := range []int{1, defaultBands()} {
		b.Run(fmt.Sprintf("bands=%d", bands), func(b *testing.B) {
			for b.Loop() {
				if _, err := encodeJPEG(img, 85, bands); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Shrinking and encoding band by band gives the very bytes of shrinking
// the whole picture, then encoding it.
func TestShrinkToJPEGIsTheShrunkPicture(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	spec := ImageSpec{MaxPixels: 1280 * 28 * 28, Format: "jpeg"}
	for _, nrgba := range []bool{false, true} {
		img := testPicture(rng, 1080, 2400, nrgba)
		got, err := PrepareScreenshot(img, spec)
		if err != nil {
			t.Fatal(err)
		}
		out, err := resize(img, spec)
		if err != nil {
			t.Fatal(err)
		}
		want, err := encode(out, spec)
		if err != nil {
			t.Fatal(err)
		}
		if got.W != want.W || got.H != want.H || got.MIME != "image/jpeg" || !bytes.Equal(got.Data, want.Data) {
			t.Fatalf("NRGBA %v: %dx%d %s, %d bytes; shrunk then encoded: %dx%d, %d bytes", nrgba, got.W, got.H, got.MIME, len(got.Data), want.W, want.H, len(want.Data))
		}
	}
}
