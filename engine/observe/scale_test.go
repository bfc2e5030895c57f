package observe

import (
	"bytes"
	"image"
	"image/color"
	"math/rand"
	"runtime"
	"testing"

	"golang.org/x/image/draw"

	"tandem/internal/cputime"
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

// BenchmarkScaleArea shrinks a phone's frame to the model's size; beside
// the wall time it reports the process's CPU a frame (all its bands), which
// moves far less with the machine's load.
func BenchmarkScaleArea(b *testing.B) {
	src := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
	rand.New(rand.NewSource(3)).Read(src.Pix)
	dst := image.NewRGBA(image.Rect(0, 0, 672, 1484))
	c0 := cputime.Self()
	for b.Loop() {
		scaleArea(dst, src)
	}
	b.ReportMetric(float64((cputime.Self()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/frame")
}

func BenchmarkScaleBiLinear(b *testing.B) {
	src := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
	dst := image.NewRGBA(image.Rect(0, 0, 672, 1484))
	for b.Loop() {
		draw.BiLinear.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
	}
}

// channelRows is the filter areaRows computes, written channel by
// channel: the reference its lanes must match to the bit. Each pass
// rounds its weighted sum (weights in 1/256ths) to 8 bits; with once, only
// the last does (the filter before issue 48's third round, which the
// picture must stay within a level of).
func channelRows(dst *image.RGBA, pix []uint8, stride, sw int, ys []span, first int, yw []uint32, xs []span, xw []uint32, once bool) {
	db := dst.Bounds()
	col := make([]uint32, sw*4)
	for i, sp := range ys {
		clear(col)
		for k := range sp.n {
			line := pix[(sp.first+k)*stride : (sp.first+k)*stride+sw*4]
			for j, v := range line {
				col[j] += uint32(v) * yw[sp.off+k]
			}
		}
		shift := uint32(16)
		if !once {
			shift = 8
			for j, v := range col {
				col[j] = (v + 1<<7) >> 8
			}
		}
		out := dst.Pix[dst.PixOffset(db.Min.X, db.Min.Y+first+i):]
		for ox, sx := range xs {
			for ch := range 4 {
				var s uint32
				for k := range sx.n {
					s += col[(sx.first+k)*4+ch] * xw[sx.off+k]
				}
				out[ox*4+ch] = uint8((s + 1<<(shift-1)) >> shift)
			}
		}
	}
}

// TestAreaRowsIsTheChannelByChannelFilter: the lanes give the very bytes
// of the plain filter, on noise (every value, translucent too) at the
// phone's ratio and at others, within a level of the filter that rounds
// once.
func TestAreaRowsIsTheChannelByChannelFilter(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, tc := range []struct{ sw, sh, dw, dh int }{
		{1080, 2400, 672, 1484}, {1080, 2400, 540, 1200}, {97, 53, 96, 17}, {255, 255, 1, 1}, {33, 7, 33, 7},
	} {
		src := image.NewRGBA(image.Rect(0, 0, tc.sw, tc.sh))
		rng.Read(src.Pix)
		for i := 0; i < 64; i++ { // and some extremes
			src.Pix[rng.Intn(len(src.Pix))] = 0xff
		}
		got := image.NewRGBA(image.Rect(0, 0, tc.dw, tc.dh))
		want, once := image.NewRGBA(got.Rect), image.NewRGBA(got.Rect)
		xs, xw := areaSpans(tc.sw, tc.dw)
		ys, yw := areaSpans(tc.sh, tc.dh)
		areaRows(got, src.Pix, src.Stride, tc.sw, ys, 0, yw, xs, xw)
		channelRows(want, src.Pix, src.Stride, tc.sw, ys, 0, yw, xs, xw, false)
		channelRows(once, src.Pix, src.Stride, tc.sw, ys, 0, yw, xs, xw, true)
		if !bytes.Equal(got.Pix, want.Pix) {
			t.Fatalf("%+v: the lanes differ from the channel-by-channel filter", tc)
		}
		for i, v := range got.Pix {
			if d := int(v) - int(once.Pix[i]); d < -1 || d > 1 {
				t.Fatalf("%+v: byte %d is %d, %d rounding once", tc, i, v, once.Pix[i])
			}
		}
	}
	white := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
	for i := range white.Pix {
		white.Pix[i] = 0xff
	}
	small := image.NewRGBA(image.Rect(0, 0, 613, 1359))
	scaleArea(small, white)
	for i, v := range small.Pix {
		if v != 0xff {
			t.Fatalf("white shrunk to %d at %d", v, i)
		}
	}
}

// TestRowsSIMDIsRowsInGo: the vector row pass gives rows2's and rows3's
// words, at every weight's extremes, for the pixels it takes.
func TestRowsSIMDIsRowsInGo(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	for _, ws := range [][3]uint64{{128, 128, 0}, {256, 0, 0}, {0, 256, 0}, {1, 254, 1}, {100, 100, 56}, {0, 0, 256}} {
		const n = 1080
		var r [3][]uint8
		for k := range r {
			r[k] = make([]uint8, n*4)
			rng.Read(r[k])
			r[k][rng.Intn(n*4)] = 0xff
		}
		for _, two := range []bool{true, false} {
			if two && ws[2] != 0 {
				continue
			}
			got, want := make([]uint64, n), make([]uint64, n)
			done := rowsSIMD(got, r, ws, two)
			if two {
				rows2(want, r[0], r[1], ws[0], ws[1])
			} else {
				rows3(want, r[0], r[1], r[2], ws[0], ws[1], ws[2])
			}
			for i := range done {
				if got[i] != want[i] {
					t.Fatalf("weights %v (two rows: %v): pixel %d is %#x, %#x in Go", ws, two, i, got[i], want[i])
				}
			}
		}
	}
}

// TestColumnsSIMDIsColumnsInGo: the vector column pass writes columns3's
// bytes for the cells it takes, at the phone's ratios and others.
func TestColumnsSIMDIsColumnsInGo(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for _, c := range []struct{ sw, dw int }{{1080, 672}, {1080, 540}, {1440, 1000}, {97, 96}, {7, 5}, {3, 2}} {
		px := make([]uint64, c.sw+2)
		for i := range c.sw {
			for lane := range 4 {
				px[i] |= uint64(rng.Intn(256)) << (16 * lane)
			}
		}
		px[rng.Intn(c.sw)] = 0x00ff00ff00ff00ff
		taps := threeTaps(areaSpans(c.sw, c.dw))
		if taps == nil {
			t.Fatalf("%+v: no three taps", c)
		}
		got, want := make([]uint8, c.dw*4), make([]uint8, c.dw*4)
		done := columnsSIMD(got, px, newColumnTaps(taps))
		columns3(want, px, taps)
		if !bytes.Equal(got[:done*4], want[:done*4]) {
			t.Fatalf("%+v: the vector pass differs from columns3", c)
		}
	}
}

// TestPreparerReusesItsPicture: a Preparer shrinks each screenshot into
// the picture it shrank the last one of its size into, so a screenshot
// after the first allocates no 4 MB picture, and sends what
// PrepareScreenshot sends.
func TestPreparerReusesItsPicture(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	spec := ImageSpec{MaxPixels: 1_000_000, Format: "jpeg"}
	var p Preparer
	for i := range 4 {
		src := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
		rng.Read(src.Pix)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got, err := p.Prepare(src, spec)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if n := after.TotalAlloc - before.TotalAlloc; i > 0 && n > 3<<20 {
			t.Errorf("screenshot %d allocated %d bytes", i, n)
		}
		want, err := PrepareScreenshot(src, spec)
		if err != nil || !bytes.Equal(got.Data, want.Data) || got.W != want.W || got.H != want.H {
			t.Fatalf("screenshot %d: %dx%d, %d bytes, not PrepareScreenshot's %dx%d, %d (%v)", i, got.W, got.H, len(got.Data), want.W, want.H, len(want.Data), err)
		}
	}
}
