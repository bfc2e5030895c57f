//go:build cgo && linux

package observe

import (
	"bytes"
	"image"
	"testing"
)

// TestTheModelsPictureGoesThroughLibjpegTurbo: on Linux a phone's
// screenshot reaches the model encoded by libjpeg-turbo (its JFIF header;
// image/jpeg writes none), whole and in bands: the step's encode at a
// seventh of image/jpeg's CPU (issue 48).
func TestTheModelsPictureGoesThroughLibjpegTurbo(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
	for i := range src.Pix {
		src.Pix[i] = uint8(i / 4096)
	}
	for _, spec := range []ImageSpec{{MaxPixels: 1000 * 1000, Format: "jpeg"}, {Format: "jpeg"}} {
		shot, err := PrepareScreenshot(src, spec)
		if err != nil {
			t.Fatal(err)
		}
		if shot.MIME != "image/jpeg" || !bytes.Contains(shot.Data[:32], []byte("JFIF")) {
			t.Fatalf("%+v: %s not from libjpeg-turbo (head % x)", spec, shot.MIME, shot.Data[:20])
		}
	}
}
