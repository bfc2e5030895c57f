package vphone

import (
	"bytes"
	"image/png"
	"testing"

	"tandem/vphone/render"
)

// The PNG writer round-trips every screen of the phone exactly through image/png.
func TestEncodePNGRoundTrip(t *testing.T) {
	p, err := New(WithSize(360, 800), WithCaptcha("AB12C"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{PkgLauncher, PkgLogin, PkgChat, PkgGame, PkgDialog} {
		if err := p.Launch(pkg); err != nil {
			t.Fatal(err)
		}
		img := p.Screenshot()
		var buf bytes.Buffer
		if err := render.EncodePNG(&buf, img); err != nil {
			t.Fatal(err)
		}
		got, err := png.Decode(&buf)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		for y := 0; y < img.Bounds().Dy(); y++ {
			for x := 0; x < img.Bounds().Dx(); x++ {
				r, g, b, _ := got.At(x, y).RGBA()
				o := img.PixOffset(x, y)
				if uint8(r>>8) != img.Pix[o] || uint8(g>>8) != img.Pix[o+1] || uint8(b>>8) != img.Pix[o+2] {
					t.Fatalf("%s: pixel %d,%d differs", pkg, x, y)
				}
			}
		}
	}
}
