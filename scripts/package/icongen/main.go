// Command icongen draws Tandem's application icon and writes every size the
// platforms need: build/appicon.png (1024, Wails' source), PNGs for the
// freedesktop hicolor theme, build/windows/icon.ico (PNG-in-ICO, 16..256) and
// app/icon.png (256, the GTK window and task-bar icon).
// The icon is drawn from geometry rather than kept only as pixels so it can be
// re-made at any size: `go run ./scripts/package/icongen -out build`.
package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
)

var (
	background = color.NRGBA{R: 0x18, G: 0x1a, B: 0x1f, A: 0xff}
	accent     = color.NRGBA{R: 0x4f, G: 0x6b, B: 0xff, A: 0xff}
	ring       = color.NRGBA{R: 0x1f, G: 0x9d, B: 0x63, A: 0xff}
)

// Sizes for the hicolor theme and the .ico.
var (
	pngSizes = []int{16, 24, 32, 48, 64, 128, 256, 512, 1024}
	icoSizes = []int{16, 24, 32, 48, 64, 128, 256}
)

func main() {
	out := flag.String("out", "build", "the build directory to write into")
	window := flag.String("window", "app/icon.png", "where the window's own icon (256 px, embedded by app/) goes")
	flag.Parse()
	if err := run(*out, *window); err != nil {
		fmt.Fprintln(os.Stderr, "icongen:", err)
		os.Exit(1)
	}
}

func run(out, window string) error {
	icons := filepath.Join(out, "linux", "icons")
	if err := os.MkdirAll(icons, 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(out, "windows"), 0o755); err != nil {
		return err
	}
	encoded := map[int][]byte{}
	for _, s := range append(append([]int{}, pngSizes...), icoSizes...) {
		if _, ok := encoded[s]; ok {
			continue
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, Draw(s)); err != nil {
			return err
		}
		encoded[s] = buf.Bytes()
	}
	for _, s := range pngSizes {
		name := filepath.Join(icons, fmt.Sprintf("%dx%d.png", s, s))
		if err := os.WriteFile(name, encoded[s], 0o644); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(out, "appicon.png"), encoded[1024], 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(window, encoded[256], 0o644); err != nil {
		return err
	}
	ico, err := ICO(icoSizes, encoded)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "windows", "icon.ico"), ico, 0o644)
}

// Draw renders the icon at size×size: a rounded square, a filled accent
// circle, and a green ring overlapping it. Edges are anti-aliased by 4×4
// supersampling.
func Draw(size int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	const ss = 4
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			var r, g, b, a float64
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					// unit coordinates in [0,1)
					u := (float64(x) + (float64(sx)+0.5)/ss) / float64(size)
					v := (float64(y) + (float64(sy)+0.5)/ss) / float64(size)
					c, ok := shade(u, v, float64(size))
					if !ok {
						continue
					}
					r += float64(c.R)
					g += float64(c.G)
					b += float64(c.B)
					a++
				}
			}
			if a == 0 {
				continue
			}
			img.SetNRGBA(x, y, color.NRGBA{
				R: uint8(r / a), G: uint8(g / a), B: uint8(b / a),
				A: uint8(math.Round(255 * a / ss / ss)),
			})
		}
	}
	return img
}

// shade is the colour at unit point (u,v), and false outside the icon.
func shade(u, v, size float64) (color.NRGBA, bool) {
	const margin, radius = 0.04, 0.2
	if !inRoundedSquare(u, v, margin, radius) {
		return color.NRGBA{}, false
	}
	// The ring must stay visible at 16 px: at least ~1.6 px wide.
	width := math.Max(0.075, 1.6/size)
	if d := math.Hypot(u-0.60, v-0.56); math.Abs(d-0.23) <= width/2 {
		return ring, true
	}
	if math.Hypot(u-0.40, v-0.44) <= 0.23 {
		return accent, true
	}
	return background, true
}

func inRoundedSquare(u, v, margin, radius float64) bool {
	lo, hi := margin+radius, 1-margin-radius
	if u < margin || u > 1-margin || v < margin || v > 1-margin {
		return false
	}
	cu := math.Min(math.Max(u, lo), hi)
	cv := math.Min(math.Max(v, lo), hi)
	return math.Hypot(u-cu, v-cv) <= radius
}

// ICO packs PNG images (Windows Vista and later read PNG entries) into one
// .ico file, smallest first.
func ICO(sizes []int, pngs map[int][]byte) ([]byte, error) {
	var buf bytes.Buffer
	hdr := struct{ Reserved, Type, Count uint16 }{0, 1, uint16(len(sizes))}
	if err := binary.Write(&buf, binary.LittleEndian, hdr); err != nil {
		return nil, err
	}
	offset := 6 + 16*len(sizes)
	for _, s := range sizes {
		data, ok := pngs[s]
		if !ok {
			return nil, fmt.Errorf("no %d px image", s)
		}
		dim := uint8(s)
		if s >= 256 {
			dim = 0 // 0 means 256 in the directory
		}
		entry := struct {
			W, H, Colors, Reserved uint8
			Planes, Bits           uint16
			Size, Offset           uint32
		}{dim, dim, 0, 0, 1, 32, uint32(len(data)), uint32(offset)}
		if err := binary.Write(&buf, binary.LittleEndian, entry); err != nil {
			return nil, err
		}
		offset += len(data)
	}
	for _, s := range sizes {
		buf.Write(pngs[s])
	}
	return buf.Bytes(), nil
}
