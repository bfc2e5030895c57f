package observe

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"tandem/internal/encoded"
)

// The region the person marked when handing back is drawn on the next
// screenshot the model gets, as well as told in words: a model reads a
// mark on the picture where it may misread a pair of coordinates. The
// outline is drawn on the image as the model receives it (after the
// dialect's resize), so it is equally bold in every dialect's image and
// sits where the resize put the region; the device's own screenshot is
// never drawn on.

// markColour is the outline's colour: pure red, the colour visual
// prompting marks a region with (Shtedritski et al., "What does CLIP know
// about a red circle?", ICCV 2023), and rare in a phone's UI at full
// saturation.
var markColour = color.RGBA{R: 255, A: 255}

// markWidth is the outline's stroke in pixels for a w x h image sent to
// the model: 4 to 6, bolder on larger images.
func markWidth(w, h int) int { return min(6, max(4, (min(w, h)+100)/200)) }

// PrepareMarked is PrepareScreenshot with mark (a rectangle in img's
// pixels) outlined in markColour on the prepared image. The stroke lies
// just outside the region, so what the person marked stays visible; at an
// edge of the screen it moves inside. img is not changed.
func PrepareMarked(img image.Image, spec ImageSpec, mark image.Rectangle) (Shot, error) {
	img = encoded.Pixels(img)
	out, err := resize(img, spec)
	if err != nil {
		return Shot{}, err
	}
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, out.Bounds().Dx(), out.Bounds().Dy()))
	draw.Draw(dst, dst.Bounds(), out, out.Bounds().Min, draw.Src)
	w, h := dst.Bounds().Dx(), dst.Bounds().Dy()
	sx, sy := float64(w)/float64(b.Dx()), float64(h)/float64(b.Dy())
	at := func(x, y int) image.Point {
		return image.Pt(int(math.Round(float64(x-b.Min.X)*sx)), int(math.Round(float64(y-b.Min.Y)*sy)))
	}
	m := mark.Canon()
	outline(dst, image.Rectangle{Min: at(m.Min.X, m.Min.Y), Max: at(m.Max.X, m.Max.Y)}, markWidth(w, h))
	return encode(dst, spec)
}

// outline draws a t-pixel markColour frame around r on dst, clipped to
// dst (nothing when r lies off it).
func outline(dst *image.RGBA, r image.Rectangle, t int) {
	if r.Intersect(dst.Bounds()).Empty() {
		return
	}
	outer := r.Inset(-t).Intersect(dst.Bounds())
	inner := outer.Inset(t)
	red := image.NewUniform(markColour)
	if inner.Empty() {
		draw.Draw(dst, outer, red, image.Point{}, draw.Src)
		return
	}
	for _, bar := range []image.Rectangle{
		{Min: outer.Min, Max: image.Pt(outer.Max.X, inner.Min.Y)},                          // top
		{Min: image.Pt(outer.Min.X, inner.Max.Y), Max: outer.Max},                          // bottom
		{Min: image.Pt(outer.Min.X, inner.Min.Y), Max: image.Pt(inner.Min.X, inner.Max.Y)}, // left
		{Min: image.Pt(inner.Max.X, inner.Min.Y), Max: image.Pt(outer.Max.X, inner.Max.Y)}, // right
	} {
		draw.Draw(dst, bar, red, image.Point{}, draw.Src)
	}
}
