package mirror

import (
	"image"
	"image/color"
	"testing"
)

// BenchmarkStillForAViewer: what a viewer's still of a 1080x2400 screen
// costs, scaled and encoded at the size the viewer shows it: a tile's
// 270x600, the main mirror's 540x1200, and the 576x1280 every viewer got
// before viewers said their size. kB/still is the JPEG sent.
func BenchmarkStillForAViewer(b *testing.B) {
	src := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
	for y := range 2400 { // bands of colour and a fine stripe, as text makes
		for x := range 1080 {
			src.SetRGBA(x, y, color.RGBA{uint8(y / 10), uint8(x / 5), uint8((x ^ y) & 0x1f * 8), 255})
		}
	}
	for _, c := range []struct {
		name string
		box  image.Point
	}{{"tile-270x600", image.Pt(270, 600)}, {"mirror-540x1200", image.Pt(540, 1200)}, {"unsized-576x1280", image.Point{}}} {
		b.Run(c.name, func(b *testing.B) {
			size := fitBox(src.Bounds().Size(), c.box, 1280)
			var n int
			for b.Loop() {
				data, err := encodeStill(src, size, 75)
				if err != nil {
					b.Fatal(err)
				}
				n = len(data)
			}
			b.ReportMetric(float64(n)/1024, "kB/still")
		})
	}
}
