//go:build windows

package win

import (
	"image"
	"runtime/cgo"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"

	"tandem/devices/desktop"
)

// Tandem's own windows are painted over in every screenshot, as on X11
// (devices/desktop/mask.go says why). The windows come from EnumWindows,
// which lists the top-level windows from the top of the Z order down:
// visible, not minimized and not cloaked (a cloaked window, such as a
// suspended store app's or one on another virtual desktop, is "visible" to
// Win32 but not on the screen), each with its rectangle as the screen shows
// it (DWM's extended frame bounds, without the invisible resize borders
// GetWindowRect counts; GetWindowRect where DWM cannot say, as under Wine).
// SetWindowDisplayAffinity(WDA_EXCLUDEFROMCAPTURE) would hide the window
// from every capture program, the person's own screen recorder included,
// and only from Windows 10 2004 on; painting over touches our shots alone.

var (
	procEnumWindows   = user32.NewProc("EnumWindows")
	procIsIconic      = user32.NewProc("IsIconic")
	procGetWindowRect = user32.NewProc("GetWindowRect")

	// Windows keeps a callback made by windows.NewCallback for the life of
	// the process and allows a limited number: one is made, once.
	enumOnce sync.Once
	enumProc uintptr
)

// enumTop is EnumWindows' callback: it appends hwnd to the list whose
// handle is lp and goes on.
func enumTop(hwnd, lp uintptr) uintptr {
	list := cgo.Handle(lp).Value().(*[]windows.HWND)
	*list = append(*list, windows.HWND(hwnd))
	return 1
}

// top is a top-level window on the screen.
type top struct {
	hwnd windows.HWND
	r    image.Rectangle
	pid  int
}

// tops lists the top-level windows on the screen, bottom to top.
func tops() []top {
	enumOnce.Do(func() { enumProc = windows.NewCallback(enumTop) })
	var hwnds []windows.HWND
	h := cgo.NewHandle(&hwnds)
	defer h.Delete()
	_, _, _ = procEnumWindows.Call(enumProc, uintptr(h))
	out := make([]top, 0, len(hwnds))
	for i := len(hwnds) - 1; i >= 0; i-- {
		w := hwnds[i]
		if !windows.IsWindowVisible(w) || iconic(w) || cloaked(w) {
			continue
		}
		r, ok := windowRect(w)
		if !ok || r.Empty() {
			continue
		}
		var pid uint32
		_, _ = windows.GetWindowThreadProcessId(w, &pid)
		out = append(out, top{hwnd: w, r: r, pid: int(pid)})
	}
	return out
}

// topLevels lists the top-level windows on the screen, bottom to top.
func topLevels() []desktop.TopLevel {
	ts := tops()
	out := make([]desktop.TopLevel, len(ts))
	for i, t := range ts {
		out[i] = desktop.TopLevel{R: t.r, PID: t.pid}
	}
	return out
}

func iconic(w windows.HWND) bool {
	r, _, _ := procIsIconic.Call(uintptr(w))
	return r != 0
}

func cloaked(w windows.HWND) bool {
	var c uint32
	err := windows.DwmGetWindowAttribute(w, windows.DWMWA_CLOAKED, unsafe.Pointer(&c), uint32(unsafe.Sizeof(c)))
	return err == nil && c != 0
}

// windowRect is where w shows on the virtual screen, in physical pixels.
func windowRect(w windows.HWND) (image.Rectangle, bool) {
	var r windows.Rect
	if windows.DwmGetWindowAttribute(w, windows.DWMWA_EXTENDED_FRAME_BOUNDS, unsafe.Pointer(&r), uint32(unsafe.Sizeof(r))) != nil {
		if ok, _, _ := procGetWindowRect.Call(uintptr(w), uintptr(unsafe.Pointer(&r))); ok == 0 {
			return image.Rectangle{}, false
		}
	}
	return image.Rect(int(r.Left), int(r.Top), int(r.Right), int(r.Bottom)), true
}

// maskOwn paints over Tandem's own windows in img, a shot of the monitor.
func (d *Driver) maskOwn(img *image.RGBA) {
	if len(d.opts.ExcludePIDs) == 0 && len(d.opts.ExcludeRects) == 0 {
		return
	}
	var wins []desktop.TopLevel
	if len(d.opts.ExcludePIDs) > 0 {
		wins = topLevels()
	}
	desktop.Mask(img, d.bounds, desktop.OwnAreas(wins, d.opts.ExcludePIDs, d.opts.ExcludeRects))
}
