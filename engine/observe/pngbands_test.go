package observe

import (
	"bytes"
	"fmt"
	"hash/adler32"
	"image"
	"image/png"
	"math/rand/v2"
	"testing"
)

// A PNG of bands decodes to the very picture, whatever its size and the
// number of bands, and is about as small as image/png's.
func TestPNGBandsDecodeToThePicture(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for _, c := range []struct{ w, h, bands int }{
		{1080, 2400, 2}, {540, 1200, 4}, {37, 101, 3}, {5, 4, 2}, {640, 360, 7},
	} {
		t.Run(fmt.Sprintf("%dx%d/%d", c.w, c.h, c.bands), func(t *testing.T) {
			for _, nrgba := range []bool{false, true} {
				img := testPicture(rng, c.w, c.h, nrgba)
				got, err := encodePNG(img, c.bands)
				if err != nil {
					t.Fatal(err)
				}
				dec, err := png.Decode(bytes.NewReader(got))
				if err != nil {
					t.Fatalf("the banded PNG does not decode: %v", err)
				}
				// Opaque: the source's bytes are the decoded RGBA's, NRGBA or not.
				d, ok := dec.(*image.RGBA)
				if !ok || d.Rect != img.Bounds() || !bytes.Equal(d.Pix, pixOf(img)) {
					t.Fatalf("decoded %T %v is not the picture", dec, dec.Bounds())
				}
				var one bytes.Buffer
				if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&one, img); err != nil {
					t.Fatal(err)
				}
				if len(got) > one.Len()*5/4+1024 {
					t.Fatalf("%d bytes against image/png's %d", len(got), one.Len())
				}
			}
		})
	}
}

// testPicture is a screen-like picture: flat areas, edges and some noise.
func testPicture(rng *rand.Rand, w, h int, nrgba bool) image.Image {
	pix := make([]uint8, w*h*4)
	for y := range h {
		for x := range w {
			p := pix[(y*w+x)*4 : (y*w+x)*4+4]
			p[0], p[1], p[2], p[3] = uint8(x/40*30), uint8(y/60*20), 0xf0, 0xff
			if (x+y)%97 < 3 || rng.IntN(50) == 0 {
				p[0], p[1], p[2] = uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256))
			}
		}
	}
	r := image.Rect(0, 0, w, h)
	if nrgba {
		return &image.NRGBA{Pix: pix, Stride: w * 4, Rect: r}
	}
	return &image.RGBA{Pix: pix, Stride: w * 4, Rect: r}
}

func pixOf(img image.Image) []uint8 {
	if m, ok := img.(*image.NRGBA); ok {
		return m.Pix
	}
	return img.(*image.RGBA).Pix
}

// The zlib trailer of pieces is the Adler-32 of the whole.
func TestAdler32Combine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 60 {
		a := make([]byte, rng.IntN(100000))
		b := make([]byte, rng.IntN(100000))
		for i := range a {
			a[i] = byte(rng.IntN(256))
		}
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		whole := adler32.Checksum(append(append([]byte(nil), a...), b...))
		if got := adler32Combine(adler32.Checksum(a), adler32.Checksum(b), len(b)); got != whole {
			t.Fatalf("combined %08x, whole %08x (%d + %d bytes)", got, whole, len(a), len(b))
		}
	}
}

func BenchmarkPNG(b *testing.B) {
	img := testPicture(rand.New(rand.NewPCG(3, 9)), 1080, 2400, true)
	b.Run("image/png", func(b *testing.B) {
		for b.Loop() {
			var buf bytes.Buffer
			if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bands", func(b *testing.B) {
		for b.Loop() {
			if _, err := encodePNG(img, defaultBands()); err != nil {
				b.Fatal(err)
			}
		}
	})
}
