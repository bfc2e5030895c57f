package desktop

import (
	"fmt"
	"image"

	"github.com/jezek/xgb/xproto"
)

// Windows under a point: Tandem's own are refused (ExcludePIDs), and
// others are named for the confirmation policy.

// excluded refuses points on Tandem's own windows.
func (d *Driver) excluded(p image.Point) error {
	for _, r := range d.opts.ExcludeRects {
		if p.In(r) {
			return fmt.Errorf("%w: (%d,%d) is inside excluded %v", ErrOwnWindow, p.X, p.Y, r)
		}
	}
	if len(d.opts.ExcludePIDs) == 0 {
		return nil
	}
	w, err := d.topWindowAt(p)
	if err != nil || w == 0 {
		return err
	}
	pid := d.windowPID(w, 2)
	for _, own := range d.opts.ExcludePIDs {
		if pid == own {
			return fmt.Errorf("%w: (%d,%d) is on a window of process %d", ErrOwnWindow, p.X, p.Y, pid)
		}
	}
	return nil
}

// topWindowAt returns the topmost viewable top-level window containing p (0
// when the point is on the bare root).
func (d *Driver) topWindowAt(p image.Point) (xproto.Window, error) {
	wins, err := d.stack()
	if err != nil {
		return 0, err
	}
	found := xproto.Window(0)
	for _, w := range wins { // bottom to top: the last containing p wins
		if p.In(w.r) {
			found = w.id
		}
	}
	return found, nil
}

// windowPID reads _NET_WM_PID of w or, under a window manager's frame, of its
// children down to depth levels.
func (d *Driver) windowPID(w xproto.Window, depth int) int {
	atom, err := internAtom(d.ctl, "_NET_WM_PID")
	if err != nil {
		return 0
	}
	r, err := xproto.GetProperty(d.ctl, false, w, atom, xproto.AtomCardinal, 0, 1).Reply()
	if err == nil && r.Format == 32 && len(r.Value) >= 4 {
		return int(uint32(r.Value[0]) | uint32(r.Value[1])<<8 | uint32(r.Value[2])<<16 | uint32(r.Value[3])<<24)
	}
	if depth == 0 {
		return 0
	}
	tree, err := xproto.QueryTree(d.ctl, w).Reply()
	if err != nil {
		return 0
	}
	for _, c := range tree.Children {
		if pid := d.windowPID(c, depth-1); pid != 0 {
			return pid
		}
	}
	return 0
}
