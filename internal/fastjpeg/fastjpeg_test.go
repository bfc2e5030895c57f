package fastjpeg

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand"
	"testing"

	"tandem/internal/cputime"
)

// screen is a phone-like picture: flat panels, text-like strokes, noise.
func screen(w, h int, seed int64) *image.RGBA {
	rng := rand.New(rand.NewSource(seed))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{uint8(40 + y*150/h), uint8(200 - x*100/w), 180, 0xff}
			if (x/7+y/11)%5 == 0 {
				c = color.RGBA{20, 20, 20, 0xff}
			}
			if rng.Intn(50) == 0 {
				c.R = uint8(rng.Intn(256))
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

// TestEncodeDecodesToThePicture: what Encode writes is a JPEG of the
// picture's size that decodes as close to the picture as image/jpeg's
// encoding does, and close to that, from a sub-image too, at the qualities
// Tandem uses.
func TestEncodeDecodesToThePicture(t *testing.T) {
	full := screen(682, 1517, 1)
	for _, tc := range []struct {
		name string
		img  *image.RGBA
		q    int
	}{
		{"whole q85", full, 85},
		{"sub-image q70", full.SubImage(image.Rect(3, 17, 403, 333)).(*image.RGBA), 70},
		{"one pixel", full.SubImage(image.Rect(5, 5, 6, 6)).(*image.RGBA), 85},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := Encode(tc.img, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			got, err := jpeg.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if got.Bounds().Size() != tc.img.Bounds().Size() {
				t.Fatalf("size %v, want %v", got.Bounds().Size(), tc.img.Bounds().Size())
			}
			ref, err := Go(tc.img, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := jpeg.Decode(bytes.NewReader(ref))
			// As faithful as image/jpeg's at the same quality.
			if d, d0 := meanDiff(got, tc.img), meanDiff(want, tc.img); d > d0*1.1+0.25 {
				t.Fatalf("mean difference from the picture %.2f a channel, image/jpeg's %.2f", d, d0)
			}
			if d := meanDiff(got, want); d > 2 {
				t.Fatalf("mean difference from image/jpeg's %.2f a channel", d)
			}
		})
	}
}

func meanDiff(a, b image.Image) float64 {
	ab, bb := a.Bounds(), b.Bounds()
	var sum, n float64
	for y := range ab.Dy() {
		for x := range ab.Dx() {
			r1, g1, b1, _ := a.At(ab.Min.X+x, ab.Min.Y+y).RGBA()
			r2, g2, b2, _ := b.At(bb.Min.X+x, bb.Min.Y+y).RGBA()
			for _, d := range []int{int(r1>>8) - int(r2>>8), int(g1>>8) - int(g2>>8), int(b1>>8) - int(b2>>8)} {
				sum += float64(max(d, -d))
				n++
			}
		}
	}
	return sum / n
}

// BenchmarkEncode: the model's picture of a 1080x2400 phone (682x1517),
// libjpeg-turbo (when built in) against image/jpeg, in CPU-ms a picture.
func BenchmarkEncode(b *testing.B) {
	img := screen(682, 1517, 2)
	for _, tc := range []struct {
		name string
		enc  func(*image.RGBA, int) ([]byte, error)
	}{
		{"fastjpeg", Encode},
		{"image-jpeg", func(m *image.RGBA, q int) ([]byte, error) { return Go(m, q) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			c0 := cputime.Self()
			var size int
			for b.Loop() {
				data, err := tc.enc(img, 85)
				if err != nil {
					b.Fatal(err)
				}
				size = len(data)
			}
			b.ReportMetric(float64((cputime.Self()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(size)/1024, "kB")
		})
	}
}
