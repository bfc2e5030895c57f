package desktop

import (
	"context"
	"fmt"
	"image"
	"slices"
	"strings"

	"github.com/jezek/xgb/xproto"

	"tandem/engine/device"
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

// Windows lists the top-level windows on this display, bottom to top, in
// the screenshot's pixels, for the confirmation policy: each with its
// program (WM_CLASS: the class as App, the instance among Names) and title
// (_NET_WM_NAME, else WM_NAME), read from the window or, under a window
// manager's frame, the client inside it. Tandem's own windows are left out
// (the agent never acts there).
func (d *Driver) Windows(ctx context.Context) ([]device.Window, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	wins, err := d.stack()
	if err != nil {
		return nil, err
	}
	focus := xproto.Window(0)
	if f, err := xproto.GetInputFocus(d.ctl).Reply(); err == nil && f.Focus != xproto.WindowNone && f.Focus != xproto.InputFocusPointerRoot {
		focus, _ = d.topLevel(f.Focus)
	}
	out := []device.Window{}
	for _, w := range wins {
		if !w.r.Overlaps(d.bounds) || slices.Contains(d.opts.ExcludePIDs, d.windowPID(w.id, 2)) {
			continue
		}
		win := device.Window{Bounds: w.r.Sub(d.bounds.Min), Focused: w.id == focus}
		if c := d.client(w.id, 2); c != 0 {
			instance, class := d.wmClass(c)
			win.App, win.Title = class, d.title(c)
			if instance != "" && instance != class {
				win.Names = []string{instance}
			}
		}
		out = append(out, win)
	}
	return out, ctx.Err()
}

// client is the window under top-level w that carries WM_CLASS: w itself
// without a window manager, the client in its frame with one (0: none
// within depth levels).
func (d *Driver) client(w xproto.Window, depth int) xproto.Window {
	if r, err := xproto.GetProperty(d.ctl, false, w, xproto.AtomWmClass, xproto.AtomString, 0, 0).Reply(); err == nil && r.Format != 0 {
		return w
	}
	if depth == 0 {
		return 0
	}
	tree, err := xproto.QueryTree(d.ctl, w).Reply()
	if err != nil {
		return 0
	}
	for _, c := range tree.Children {
		if found := d.client(c, depth-1); found != 0 {
			return found
		}
	}
	return 0
}

// wmClass is w's WM_CLASS: "instance\x00class\x00" (ICCCM 4.1.2.5).
func (d *Driver) wmClass(w xproto.Window) (instance, class string) {
	r, err := xproto.GetProperty(d.ctl, false, w, xproto.AtomWmClass, xproto.AtomString, 0, 256).Reply()
	if err != nil {
		return "", ""
	}
	parts := strings.Split(strings.TrimRight(string(r.Value), "\x00"), "\x00")
	if len(parts) < 2 {
		return parts[0], parts[0]
	}
	return parts[0], parts[1]
}

// title is w's _NET_WM_NAME (UTF-8, EWMH), else its WM_NAME (Latin-1,
// UTF-8 or COMPOUND_TEXT, as clients set it: xterm's is COMPOUND_TEXT).
func (d *Driver) title(w xproto.Window) string {
	a := d.titleAtoms()
	if r, err := xproto.GetProperty(d.ctl, false, w, a.netName, a.utf8, 0, 1024).Reply(); err == nil && len(r.Value) > 0 {
		return string(r.Value)
	}
	r, err := xproto.GetProperty(d.ctl, false, w, xproto.AtomWmName, xproto.GetPropertyTypeAny, 0, 1024).Reply()
	if err != nil {
		return ""
	}
	switch r.Type {
	case a.utf8:
		return string(r.Value)
	case a.compound:
		return compoundText(r.Value)
	}
	return latin1(r.Value)
}

// titleAtoms are the atoms titles are read by, interned once.
type titleAtoms struct{ netName, utf8, compound xproto.Atom }

func (d *Driver) titleAtoms() titleAtoms {
	d.atomsOnce.Do(func() {
		d.atoms.netName, _ = internAtom(d.ctl, "_NET_WM_NAME")
		d.atoms.utf8, _ = internAtom(d.ctl, "UTF8_STRING")
		d.atoms.compound, _ = internAtom(d.ctl, "COMPOUND_TEXT")
	})
	return d.atoms
}

func latin1(b []byte) string {
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

// compoundText decodes the parts of COMPOUND_TEXT titles use: ASCII and
// Latin-1, and UTF-8 between ESC % G and ESC % @ (Compound Text Encoding,
// sections 6 and 7); text in other character sets is dropped, not garbled.
func compoundText(b []byte) string {
	var out strings.Builder
	utf8, glOther, grOther := false, false, false
	for len(b) > 0 {
		switch {
		case len(b) >= 3 && b[0] == 0x1b && b[1] == '%':
			utf8, b = b[2] == 'G', b[3:]
		case b[0] == 0x1b: // a designation: ESC, intermediates, final
			n := 1
			for n < len(b) && b[n] >= 0x20 && b[n] <= 0x2f {
				n++
			}
			if n < len(b) {
				switch seq := string(b[1:n]) + string(b[n]); {
				case seq == "(B":
					glOther = false
				case seq == "-A":
					grOther = false
				case strings.HasPrefix(seq, "(") || strings.HasPrefix(seq, "$("):
					glOther = true
				default:
					grOther = true
				}
				n++
			}
			b = b[n:]
		case utf8:
			i := 0
			for i < len(b) && b[i] != 0x1b {
				i++
			}
			out.Write(b[:i])
			b = b[i:]
		default:
			if b[0] < 0x80 && !glOther || b[0] >= 0x80 && !grOther {
				out.WriteRune(rune(b[0]))
			}
			b = b[1:]
		}
	}
	return out.String()
}

var _ device.Windows = (*Driver)(nil)
