//go:build cgo && linux

package mirror

import (
	"bytes"
	"image"
	"testing"
)

// TestAViewersStillGoesThroughLibjpegTurbo: on Linux the still a viewer
// is sent is encoded by libjpeg-turbo (its JFIF header; image/jpeg writes
// none), scaled or not.
func TestAViewersStillGoesThroughLibjpegTurbo(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
	for _, side := range []int{0, 800} {
		data, err := encodeStill(img, fitBox(img.Bounds().Size(), image.Point{}, side), 80)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data[:32], []byte("JFIF")) {
			t.Fatalf("max side %d: not from libjpeg-turbo (head % x)", side, data[:20])
		}
	}
}
