package observe

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"

	"tandem/internal/encoded"
)

// TestSentGoesOutAsItCame: a picture the device sent as PNG goes to the
// model as its own bytes when the model takes PNG at that size, and is
// resized and encoded as usual otherwise (a mark drawn on it included).
func TestSentGoesOutAsItCame(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 300, 600))
	for y := 0; y < 600; y++ {
		for x := 0; x < 300; x++ {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), 90, 255})
		}
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	phone := buf.Bytes()
	sent := &encoded.Image{Image: img, Data: phone, MIME: "image/png"}
	for _, c := range []struct {
		name   string
		spec   ImageSpec
		asSent bool
		mime   string
	}{
		{"png at its size", ImageSpec{MaxPixels: 1080 * 2400, Format: "png"}, true, "image/png"},
		{"png, no bound", ImageSpec{Format: "png"}, true, "image/png"},
		{"png, shrunk", ImageSpec{MaxPixels: 300 * 300, Format: "png"}, false, "image/png"},
		{"png, to multiples of 28", ImageSpec{Factor: 28, MaxPixels: 1 << 22, Format: "png"}, false, "image/png"},
		{"jpeg at its size", ImageSpec{Format: "jpeg"}, false, "image/jpeg"},
		{"auto, small: png", ImageSpec{}, true, "image/png"},
	} {
		t.Run(c.name, func(t *testing.T) {
			shot, err := PrepareScreenshot(sent, c.spec)
			if err != nil {
				t.Fatal(err)
			}
			if got := bytes.Equal(shot.Data, phone); got != c.asSent || shot.MIME != c.mime {
				t.Fatalf("the phone's bytes: %v (want %v), %s (want %s)", got, c.asSent, shot.MIME, c.mime)
			}
			plain, err := PrepareScreenshot(img, c.spec)
			if err != nil {
				t.Fatal(err)
			}
			if !c.asSent && !bytes.Equal(plain.Data, shot.Data) {
				t.Fatal("a picture that was re-encoded differs from the same frame's, decoded")
			}
			if plain.W != shot.W || plain.H != shot.H {
				t.Fatalf("size %dx%d, the decoded frame's %dx%d", shot.W, shot.H, plain.W, plain.H)
			}
		})
	}
	// A mark is drawn on the picture: never the phone's bytes.
	m, err := PrepareMarked(sent, ImageSpec{Format: "png"}, image.Rect(10, 10, 50, 50))
	if err != nil || bytes.Equal(m.Data, phone) {
		t.Fatalf("marked: %v, the phone's bytes %v", err, bytes.Equal(m.Data, phone))
	}
}
