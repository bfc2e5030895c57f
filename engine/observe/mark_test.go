package observe

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// The outline is drawn on the image as sent: at the scaled place, 4 to 6
// px wide in the sent image whatever the screen's size, just outside the
// region (inside it at the screen's edge), and never on the device's own
// screenshot.
func TestPrepareMarked(t *testing.T) {
	for _, c := range []struct {
		name       string
		screen     image.Point
		spec       ImageSpec
		region     image.Rectangle
		sent       image.Rectangle // where the region lands in the sent image
		wantStroke int
	}{
		{"unscaled", image.Pt(400, 800), ImageSpec{Format: "png"}, image.Rect(100, 200, 300, 400), image.Rect(100, 200, 300, 400), 4},
		{"halved", image.Pt(2160, 4800), ImageSpec{Format: "png", MaxPixels: 1080 * 2400}, image.Rect(400, 1000, 1600, 2000), image.Rect(200, 500, 800, 1000), 5},
		{"at the corner", image.Pt(1080, 2400), ImageSpec{Format: "png"}, image.Rect(0, 0, 540, 1200), image.Rect(0, 0, 540, 1200), 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := image.NewRGBA(image.Rectangle{Max: c.screen})
			for i := range src.Pix {
				src.Pix[i] = 0x80
			}
			before := bytes.Clone(src.Pix)
			shot, err := PrepareMarked(src, c.spec, c.region)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(src.Pix, before) {
				t.Fatal("the device's screenshot was drawn on")
			}
			img, err := png.Decode(bytes.NewReader(shot.Data))
			if err != nil {
				t.Fatal(err)
			}
			red := func(x, y int) bool { return color.RGBAModel.Convert(img.At(x, y)) == color.RGBA{255, 0, 0, 255} }
			// The stroke across the top side, in its middle, from above.
			mid, top := (c.sent.Min.X+c.sent.Max.X)/2, c.sent.Min.Y
			from := max(0, top-c.wantStroke-3)
			n := 0
			for y := from; y < top+c.wantStroke+3; y++ {
				if red(mid, y) {
					n++
				}
			}
			if n != c.wantStroke {
				t.Errorf("the stroke is %d px at (%d,%d±), want %d", n, mid, top, c.wantStroke)
			}
			inside := top >= c.wantStroke // room above: the stroke is outside the region
			if got := red(mid, top-1); inside && !got {
				t.Errorf("no stroke just above the region at (%d,%d)", mid, top-1)
			}
			if got := red(mid, top); inside == got {
				t.Errorf("the region's own first row at (%d,%d) red: %v", mid, top, got)
			}
			if red(mid, (c.sent.Min.Y+c.sent.Max.Y)/2) {
				t.Error("the region is filled")
			}
		})
	}
}
