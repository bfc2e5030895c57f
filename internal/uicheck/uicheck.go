// Package uicheck decides whether a screen capture shows Tandem's real UI,
// for the window smoke test and the package test (which start the binary
// under Xvfb and must tell the UI from a blank window or an error page).
package uicheck

import "image"

// LooksLikeTandem checks what an error page or a blank window cannot have:
// many distinct colours, a fair area of panel white, and pixels of Tandem's
// accent blue (the logo and the Start button), which only the real UI draws.
func LooksLikeTandem(img image.Image) bool {
	b := img.Bounds()
	colours := map[uint32]bool{}
	var white, accent int
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			r8, g8, b8 := r>>8, g>>8, bl>>8
			colours[r8<<16|g8<<8|b8] = true
			if r8 > 250 && g8 > 250 && b8 > 250 {
				white++
			}
			if near(r8, 79) && near(g8, 107) && near(b8, 255) || near(r8, 170) && near(g8, 183) && near(b8, 255) {
				accent++
			}
		}
	}
	total := (b.Dx() / 2) * (b.Dy() / 2)
	return len(colours) > 40 && white > total/10 && accent > 30
}

func near(v, want uint32) bool { return v+12 >= want && v <= want+12 }
