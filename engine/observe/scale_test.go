package observe

import (
	"image"
	"image/color"
	"math/rand"
	"testing"

	"golang.org/x/image/draw"
)

func TestAreaSpansCoverEachOutputOnce(t *testing.T) {
	for _, c := range []struct{ m, n int }{{2400, 1484}, {1080, 672}, {10, 3}, {7, 7}, {5, 1}, {3, 2}} {
		spans, ws := areaSpans(c.m, c.n)
		if len(spans) != c.n {
			t.Fatalf("%v: %d outputs", c, len(spans))
		}
		for o, sp := range spans {
			var sum uint32
			for k := range sp.n {
				sum += ws[sp.off+k]
			}
			if sum != 256 || sp.first < 0 || sp.first+sp.n > c.m || sp.n == 0 {
				t.Fatalf("%v: output %d span %+v weights sum to %d", c, o, sp, sum)
			}
		}
	}
}

func TestScaleArea(t *testing.T) {
	// 2x2 blocks of distinct values shrink to their exact means.
	src := image.NewRGBA(image.Rect(0, 0, 4, 2))
	vals := []uint8{0, 100, 200, 255, 10, 30, 50, 70}
	for i, v := range vals {
		src.SetRGBA(i%4, i/4, color.RGBA{v, v / 2, 255 - v, 0xff})
	}
	dst := image.NewRGBA(image.Rect(0, 0, 2, 1))
	if !scaleArea(dst, src) {
		t.Fatal("RGBA source refused")
	}
	want := []uint8{(0 + 100 + 10 + 30 + 2) / 4, (200 + 255 + 50 + 70 + 2) / 4}
	for x, w := range want {
		if got := dst.RGBAAt(x, 0); got.R != w || got.A != 0xff {
			t.Fatalf("pixel %d = %v, want R %d", x, got, w)
		}
	}
	// A uniform picture stays exactly uniform at any ratio, from a
	// sub-image too.
	big := image.NewNRGBA(image.Rect(0, 0, 1080, 2400))
	for i := 0; i < len(big.Pix); i += 4 {
		big.Pix[i], big.Pix[i+1], big.Pix[i+2], big.Pix[i+3] = 12, 200, 99, 0xff
	}
	sub := big.SubImage(image.Rect(5, 7, 1005, 2207))
	small := image.NewRGBA(image.Rect(0, 0, 613, 1359))
	if !scaleArea(small, sub) {
		t.Fatal("NRGBA source refused")
	}
	for i := 0; i < len(small.Pix); i += 4 {
		if p := small.Pix[i : i+4]; p[0] != 12 || p[1] != 200 || p[2] != 99 || p[3] != 0xff {
			t.Fatalf("pixel %d = %v", i/4, p)
		}
	}
	// Upscaling and other image types are left to the general scaler.
	if scaleArea(image.NewRGBA(image.Rect(0, 0, 8, 8)), src) || scaleArea(dst, image.NewGray(image.Rect(0, 0, 4, 4))) {
		t.Fatal("accepted what it cannot do")
	}
}

// TestScaleAreaCloseToBiLinear: on a busy picture the result stays close to
// what x/image's BiLinear gives (same content, a sharper filter).
func TestScaleAreaCloseToBiLinear(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	src := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
	for y := 0; y < 2400; y += 40 {
		for x := 0; x < 1080; x += 60 {
			c := color.RGBA{uint8(rng.Intn(256)), uint8(rng.Intn(256)), uint8(rng.Intn(256)), 0xff}
			draw.Draw(src, image.Rect(x, y, x+60, y+40), image.NewUniform(c), image.Point{}, draw.Src)
		}
	}
	a := image.NewRGBA(image.Rect(0, 0, 672, 1484))
	b := image.NewRGBA(a.Bounds())
	scaleArea(a, src)
	draw.BiLinear.Scale(b, b.Bounds(), src, src.Bounds(), draw.Src, nil)
	var diff int
	for i := range a.Pix {
		d := int(a.Pix[i]) - int(b.Pix[i])
		diff += max(d, -d)
	}
	if mean := float64(diff) / float64(len(a.Pix)); mean > 3 {
		t.Fatalf("mean difference from BiLinear %.2f per channel", mean)
	}
}

func BenchmarkScaleArea(b *testing.B) {
	src := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
	dst := image.NewRGBA(image.Rect(0, 0, 672, 1484))
	for b.Loop() {
		scaleArea(dst, src)
	}
}

func BenchmarkScaleBiLinear(b *testing.B) {
	src := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
	dst := image.NewRGBA(image.Rect(0, 0, 672, 1484))
	for b.Loop() {
		draw.BiLinear.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
	}
}
