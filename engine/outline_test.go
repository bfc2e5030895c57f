package engine

import (
	"bytes"
	"encoding/base64"
	"image"
	_ "image/jpeg" // the tools dialect sends JPEG
	_ "image/png"
	"strings"
	"testing"

	"tandem/internal/modeltest"
)

// outlined checks the newest image of req, sent for a w x h screen, for
// the red outline of region (device pixels), sampled 2 px outside each
// side where the outline lies: with want, every sample is red and neither
// the region's inside nor a band 14 px further out is; without, no sample
// is (the screen itself may be red elsewhere).
func outlined(t *testing.T, what string, req modeltest.Request, w, h int, region image.Rectangle, want bool) {
	t.Helper()
	imgs := req.Images()
	if len(imgs) == 0 {
		t.Fatalf("%s: no image sent", what)
	}
	_, data, _ := strings.Cut(imgs[len(imgs)-1], ";base64,")
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	isRed := func(x, y int) bool {
		r, g, b, _ := img.At(x, y).RGBA()
		return r>>8 > 170 && g>>8 < 100 && b>>8 < 100
	}
	b := img.Bounds()
	sx := func(x int) int { return b.Min.X + (x*b.Dx()+w/2)/w }
	sy := func(y int) int { return b.Min.Y + (y*b.Dy()+h/2)/h }
	x1, y1, x2, y2 := sx(region.Min.X), sy(region.Min.Y), sx(region.Max.X), sy(region.Max.Y)
	red, all, spilled := 0, 0, false
	for i := 1; i < 12; i++ {
		x, y := x1+(x2-x1)*i/12, y1+(y2-y1)*i/12
		for _, p := range []image.Point{{x, y1 - 2}, {x, y2 + 2}, {x1 - 2, y}, {x2 + 2, y}} {
			all++
			if isRed(p.X, p.Y) {
				red++
			}
		}
		for _, p := range []image.Point{{x, y1 - 14}, {x, y2 + 14}, {x1 - 14, y}, {x2 + 14, y}, {x, (y1 + y2) / 2}} {
			spilled = spilled || isRed(p.X, p.Y)
		}
	}
	if want && (red != all || spilled) {
		t.Errorf("%s: %d of %d samples on the region's outline are red (beyond it: %v) in the %v image sent; want an outline",
			what, red, all, spilled, b.Size())
	}
	if !want && red > 0 {
		t.Errorf("%s: %d of %d samples on the region's outline are red; want none", what, red, all)
	}
}
