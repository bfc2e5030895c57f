package desktop

import (
	"fmt"
	"image"
	"sync"

	"github.com/jezek/xgb/xproto"
)

// maskOwn paints over Tandem's own windows in img, a shot of the monitor
// (mask.go says why and how).
func (d *Driver) maskOwn(img *image.RGBA) {
	if img == nil || len(d.opts.ExcludePIDs) == 0 && len(d.opts.ExcludeRects) == 0 {
		return
	}
	Mask(img, d.bounds, d.ownAreas())
}

// ownAreas are the parts of the root window, in root coordinates, where
// Tandem's own windows show.
func (d *Driver) ownAreas() []image.Rectangle {
	if len(d.opts.ExcludePIDs) == 0 {
		return d.opts.ExcludeRects
	}
	wins, err := d.stack()
	if err != nil {
		return d.opts.ExcludeRects // the server cannot say: the shot is kept whole rather than failed
	}
	pids := d.pids.refresh(wins, func(w xproto.Window) int { return d.windowPID(w, 2) })
	tops := make([]TopLevel, len(wins))
	for i, w := range wins {
		tops[i] = TopLevel{R: w.r, PID: pids[w.id]}
	}
	return OwnAreas(tops, d.opts.ExcludePIDs, d.opts.ExcludeRects)
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
