package uicheck

import (
	"image"
	"testing"
)

func TestRejectsBlankAndErrorPages(t *testing.T) {
	if LooksLikeTandem(image.NewRGBA(image.Rect(0, 0, 400, 300))) {
		t.Fatal("a black screen passed")
	}
	white := image.NewRGBA(image.Rect(0, 0, 400, 300))
	for i := range white.Pix {
		white.Pix[i] = 255
	}
	if LooksLikeTandem(white) {
		t.Fatal("a blank white page passed")
	}
}
