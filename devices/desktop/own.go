package desktop

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"slices"
	"sync"

	"github.com/jezek/xgb/xproto"
)

// Tandem's own windows are left out of what the agent sees and of the
// mirror: every screenshot has the visible parts of the excluded windows
// (ExcludePIDs, ExcludeRects) painted over in one flat colour. The agent
// does not read the run's own timeline back as part of the task (its goal
// and the model's words are on it), and a mirror of the desktop does not
// mirror itself frame after frame. Parts of Tandem's window that another
// window covers show that window as usual.

// ownColour fills Tandem's windows in screenshots: a dark slate that reads as
// "nothing here" to a model and to a person looking at the mirror.
var ownColour = color.RGBA{0x26, 0x2b, 0x33, 0xff}

// maskOwn paints over Tandem's own windows in img, a shot of the monitor.
func (d *Driver) maskOwn(img *image.RGBA) {
	if img == nil || len(d.opts.ExcludePIDs) == 0 && len(d.opts.ExcludeRects) == 0 {
		return
	}
	scale := img.Bounds().Dx() == d.bounds.Dx() && img.Bounds().Dy() == d.bounds.Dy()
	for _, r := range d.ownAreas() {
		r = r.Intersect(d.bounds)
		if r.Empty() {
			continue
		}
		r = r.Sub(d.bounds.Min)
		if !scale { // a scaled shot: map the rectangle proportionally
			sx, sy := img.Bounds().Dx(), img.Bounds().Dy()
			r = image.Rect(r.Min.X*sx/d.bounds.Dx(), r.Min.Y*sy/d.bounds.Dy(),
				(r.Max.X*sx+d.bounds.Dx()-1)/d.bounds.Dx(), (r.Max.Y*sy+d.bounds.Dy()-1)/d.bounds.Dy())
		}
		draw.Draw(img, r.Add(img.Bounds().Min), image.NewUniform(ownColour), image.Point{}, draw.Src)
	}
}

// ownAreas are the parts of the root window, in root coordinates, where
// Tandem's own windows show: the excluded rectangles, and each top-level
// window of an excluded process minus the windows stacked above it.
func (d *Driver) ownAreas() []image.Rectangle {
	areas := slices.Clone(d.opts.ExcludeRects)
	if len(d.opts.ExcludePIDs) == 0 {
		return areas
	}
	wins, err := d.stack()
	if err != nil {
		return areas // the server cannot say: the shot is kept whole rather than failed
	}
	pids := d.pids.refresh(wins, func(w xproto.Window) int { return d.windowPID(w, 2) })
	for i, w := range wins {
		if !slices.Contains(d.opts.ExcludePIDs, pids[w.id]) {
			continue
		}
		visible := []image.Rectangle{w.r}
		for _, above := range wins[i+1:] {
			visible = subtractAll(visible, above.r)
		}
		areas = append(areas, visible...)
	}
	return areas
}

// pidCache remembers the process of each top-level window, so a mirror
// frame costs one window-tree query rather than a few round trips per
// window; windows gone from the tree are forgotten, and a window without
// a process yet is asked again.
type pidCache struct {
	mu sync.Mutex
	m  map[xproto.Window]int
}

func (c *pidCache) refresh(wins []stacked, pid func(xproto.Window) int) map[xproto.Window]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	next := make(map[xproto.Window]int, len(wins))
	for _, w := range wins {
		p, ok := c.m[w.id]
		if !ok || p == 0 { // a window may get its _NET_WM_PID after it maps
			p = pid(w.id)
		}
		next[w.id] = p
	}
	c.m = next
	return next
}

// stacked is a viewable top-level window and its rectangle on the root.
type stacked struct {
	id xproto.Window
	r  image.Rectangle
}

// stack lists the viewable top-level windows, bottom to top.
func (d *Driver) stack() ([]stacked, error) {
	root := xproto.Setup(d.ctl).DefaultScreen(d.ctl).Root
	tree, err := xproto.QueryTree(d.ctl, root).Reply()
	if err != nil {
		return nil, fmt.Errorf("window tree: %w", err)
	}
	attrs := make([]xproto.GetWindowAttributesCookie, len(tree.Children))
	geoms := make([]xproto.GetGeometryCookie, len(tree.Children))
	for i, w := range tree.Children {
		attrs[i] = xproto.GetWindowAttributes(d.ctl, w)
		geoms[i] = xproto.GetGeometry(d.ctl, xproto.Drawable(w))
	}
	var out []stacked
	for i, w := range tree.Children {
		a, errA := attrs[i].Reply()
		g, errG := geoms[i].Reply()
		if errA != nil || errG != nil || a.MapState != xproto.MapStateViewable || a.Class != xproto.WindowClassInputOutput {
			continue
		}
		b := int(g.BorderWidth)
		out = append(out, stacked{w, image.Rect(int(g.X), int(g.Y), int(g.X)+int(g.Width)+2*b, int(g.Y)+int(g.Height)+2*b)})
	}
	return out, nil
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
