package engine

import (
	"image"
	"image/color"
	"math/rand"
	"reflect"
	"testing"

	"tandem/internal/cputime"
)

// referenceFingerprint is FingerprintOf written plainly: every sampled
// pixel through At.
func referenceFingerprint(img image.Image) Fingerprint {
	b := img.Bounds()
	gw := min(fingerprintCols, b.Dx())
	gh := max(1, min(gw*b.Dy()/b.Dx(), 4*fingerprintCols, b.Dy()))
	stepX, stepY := max(1, (b.Dx()+gw*24-1)/(gw*24)), max(1, (b.Dy()+gh*24-1)/(gh*24))
	sum, cnt := make([]uint32, gw*gh), make([]uint32, gw*gh)
	for y := b.Min.Y; y < b.Max.Y; y += stepY {
		for x := b.Min.X; x < b.Max.X; x += stepX {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			i := (y-b.Min.Y)*gh/b.Dy()*gw + (x-b.Min.X)*gw/b.Dx()
			sum[i] += (299*uint32(c.R) + 587*uint32(c.G) + 114*uint32(c.B)) / 1000
			cnt[i]++
		}
	}
	f := Fingerprint{W: gw, H: gh, Cells: make([]uint8, gw*gh)}
	for i := range sum {
		f.Cells[i] = uint8(sum[i] / cnt[i])
	}
	return f
}

// TestFingerprintFastPaths: the RGBA and NRGBA fast paths give exactly the
// plain computation's cells, sub-images included.
func TestFingerprintFastPaths(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	rgba := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
	nrgba := image.NewNRGBA(rgba.Bounds())
	for y := 0; y < 2400; y += 16 {
		for x := 0; x < 1080; x += 16 {
			c := color.RGBA{uint8(rng.Intn(256)), uint8(rng.Intn(256)), uint8(rng.Intn(256)), 0xff}
			for dy := range 16 {
				for dx := range 16 {
					rgba.SetRGBA(x+dx, y+dy, c)
					nrgba.Set(x+dx, y+dy, c)
				}
			}
		}
	}
	for _, img := range []image.Image{rgba, nrgba, rgba.SubImage(image.Rect(13, 40, 733, 1640)), nrgba.SubImage(image.Rect(1, 1, 300, 900))} {
		if got, want := FingerprintOf(img), referenceFingerprint(img); !reflect.DeepEqual(got, want) {
			t.Fatalf("%T %v: fingerprint differs from the plain computation", img, img.Bounds())
		}
	}
}

// BenchmarkFingerprint fingerprints a phone's frame; beside the wall time
// it reports the process's CPU a frame, which moves far less with the load.
func BenchmarkFingerprint(b *testing.B) {
	img := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
	c0 := cputime.Self()
	for b.Loop() {
		FingerprintOf(img)
	}
	b.ReportMetric(cpuMs(cputime.Self()-c0)/float64(b.N), "cpu-ms/frame")
}

// TestLumsSIMDAreTheLoops: the vector luminances are FingerprintOf's
// loop's, on noise and on every grey and primary (the division by 1000
// exact for every sum a pixel gives), for the samples it takes.
func TestLumsSIMDAreTheLoops(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	line := make([]uint8, 1080*4)
	rng.Read(line)
	for v := range 256 { // greys, then pure reds, greens and blues
		copy(line[v*16:], []uint8{uint8(v), uint8(v), uint8(v), 0xff, 0, 0, 0, 0, uint8(v), 0, 0, 0, 0, uint8(v), 0, 0})
	}
	for _, n := range []int{540, 539, 4, 3} {
		lums := make([]uint32, n)
		done := lumsSIMD(lums, line[:n*8], 2)
		for i := range done {
			p := line[i*8:]
			if want := (299*uint32(p[0]) + 587*uint32(p[1]) + 114*uint32(p[2])) / 1000; lums[i] != want {
				t.Fatalf("%d samples: sample %d (% x) is %d, want %d", n, i, p[:4], lums[i], want)
			}
		}
	}
	if lumsSIMD(make([]uint32, 8), line, 3) != 0 {
		t.Fatal("took samples three pixels apart")
	}
}
