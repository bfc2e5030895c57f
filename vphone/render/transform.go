package render

import (
	"image"

	"golang.org/x/image/draw"
)

// Rotate turns a portrait picture for the display's rotation.
func Rotate(src *image.RGBA, rot int) *image.RGBA {
	if rot == 0 {
		return src
	}
	w, h := src.Bounds().Dx(), src.Bounds().Dy()
	dw, dh := w, h
	if rot%2 == 1 {
		dw, dh = h, w
	}
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for dy := 0; dy < dh; dy++ {
		row := dst.Pix[dy*dst.Stride : dy*dst.Stride+dw*4]
		for dx := 0; dx < dw; dx++ {
			var px, py int
			switch rot {
			case 1:
				px, py = w-1-dy, dx
			case 2:
				px, py = w-1-dx, h-1-dy
			default:
				px, py = dy, h-1-dx
			}
			o := py*src.Stride + px*4
			copy(row[dx*4:dx*4+4], src.Pix[o:o+4])
		}
	}
	return dst
}

// Letterbox fits img into a black w x h frame (screenrecord keeps its
// video size when the display turns).
func Letterbox(img *image.RGBA, w, h int) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 3; i < len(dst.Pix); i += 4 {
		dst.Pix[i] = 0xff
	}
	b := img.Bounds()
	s := min(float64(w)/float64(b.Dx()), float64(h)/float64(b.Dy()))
	fw, fh := int(float64(b.Dx())*s), int(float64(b.Dy())*s)
	r := image.Rect((w-fw)/2, (h-fh)/2, (w-fw)/2+fw, (h-fh)/2+fh)
	draw.ApproxBiLinear.Scale(dst, r, img, b, draw.Src, nil)
	return dst
}

// RectToDisplay maps a rectangle of the portrait picture (w x h) to the
// display turned by rot, as Rotate turns the picture.
func RectToDisplay(r image.Rectangle, rot, w, h int) image.Rectangle {
	switch rot {
	case 1:
		return image.Rect(r.Min.Y, w-r.Max.X, r.Max.Y, w-r.Min.X)
	case 2:
		return image.Rect(w-r.Max.X, h-r.Max.Y, w-r.Min.X, h-r.Min.Y)
	case 3:
		return image.Rect(h-r.Max.Y, r.Min.X, h-r.Min.Y, r.Max.X)
	}
	return r
}
