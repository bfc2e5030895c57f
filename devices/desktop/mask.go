package desktop

import (
	"image"
	"image/color"
	"image/draw"
	"slices"
)

// Tandem's own windows are left out of what the agent sees and of the
// mirror, on every system: each screenshot has the visible parts of the
// excluded windows (Options.ExcludePIDs, Options.ExcludeRects) painted over
// in one flat colour. The agent does not read the run's own timeline back as
// part of the task (its goal and the model's words are on it), and a mirror
// of the desktop does not mirror itself frame after frame. Parts of Tandem's
// window that another window covers show that window as usual. This file is
// the geometry both drivers share; each lists its system's windows (own.go
// on X11, the win package on Windows).

// OwnColour fills Tandem's windows in screenshots: a dark slate that reads
// as "nothing here" to a model and to a person looking at the mirror.
var OwnColour = color.RGBA{0x26, 0x2b, 0x33, 0xff}

// TopLevel is a visible top-level window: where it is on the screen and the
// process it belongs to (0: unknown).
type TopLevel struct {
	R   image.Rectangle
	PID int
}

// OwnAreas are the parts of the screen where Tandem's windows show: the
// rectangles, and each window of wins (bottom to top) whose process is in
// pids, minus the windows stacked above it.
func OwnAreas(wins []TopLevel, pids []int, rects []image.Rectangle) []image.Rectangle {
	areas := slices.Clone(rects)
	for i, w := range wins {
		if w.PID == 0 || !slices.Contains(pids, w.PID) {
			continue
		}
		visible := []image.Rectangle{w.R}
		for _, above := range wins[i+1:] {
			visible = subtractAll(visible, above.R)
		}
		areas = append(areas, visible...)
	}
	return areas
}

// Mask paints areas (screen coordinates) over img, a shot of the monitor at
// bounds; a shot scaled from the monitor gets the areas scaled with it,
// rounded outwards.
func Mask(img *image.RGBA, bounds image.Rectangle, areas []image.Rectangle) {
	if img == nil || bounds.Empty() {
		return
	}
	same := img.Bounds().Dx() == bounds.Dx() && img.Bounds().Dy() == bounds.Dy()
	for _, r := range areas {
		r = r.Intersect(bounds)
		if r.Empty() {
			continue
		}
		r = r.Sub(bounds.Min)
		if !same {
			sx, sy := img.Bounds().Dx(), img.Bounds().Dy()
			r = image.Rect(r.Min.X*sx/bounds.Dx(), r.Min.Y*sy/bounds.Dy(),
				(r.Max.X*sx+bounds.Dx()-1)/bounds.Dx(), (r.Max.Y*sy+bounds.Dy()-1)/bounds.Dy())
		}
		draw.Draw(img, r.Add(img.Bounds().Min), image.NewUniform(OwnColour), image.Point{}, draw.Src)
	}
}

// subtractAll removes s from every rectangle in rs.
func subtractAll(rs []image.Rectangle, s image.Rectangle) []image.Rectangle {
	var out []image.Rectangle
	for _, r := range rs {
		out = append(out, subtract(r, s)...)
	}
	return out
}

// subtract returns r minus s as at most four rectangles: the bands above
// and below s, then the parts left and right of it.
func subtract(r, s image.Rectangle) []image.Rectangle {
	in := r.Intersect(s)
	if in.Empty() {
		return []image.Rectangle{r}
	}
	var out []image.Rectangle
	for _, p := range []image.Rectangle{
		image.Rect(r.Min.X, r.Min.Y, r.Max.X, in.Min.Y),
		image.Rect(r.Min.X, in.Max.Y, r.Max.X, r.Max.Y),
		image.Rect(r.Min.X, in.Min.Y, in.Min.X, in.Max.Y),
		image.Rect(in.Max.X, in.Min.Y, r.Max.X, in.Max.Y),
	} {
		if !p.Empty() {
			out = append(out, p)
		}
	}
	return out
}
