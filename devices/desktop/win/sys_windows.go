//go:build windows

package win

import (
	"image"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The Win32 calls this driver makes beside robotgo and kbinani/screenshot.
var (
	user32 = windows.NewLazySystemDLL("user32.dll")
	shcore = windows.NewLazySystemDLL("shcore.dll")
	kernel = windows.NewLazySystemDLL("kernel32.dll")

	procGetModuleHandleW = kernel.NewProc("GetModuleHandleW")
	procGetTickCount     = kernel.NewProc("GetTickCount")

	procGetCursorPos             = user32.NewProc("GetCursorPos")
	procSetCursorPos             = user32.NewProc("SetCursorPos")
	procSendInput                = user32.NewProc("SendInput")
	procGetSystemMetrics         = user32.NewProc("GetSystemMetrics")
	procWindowFromPoint          = user32.NewProc("WindowFromPoint")
	procGetAncestor              = user32.NewProc("GetAncestor")
	procGetWindowThreadProcessId = user32.NewProc("GetWindowThreadProcessId")
	procRegisterHotKey           = user32.NewProc("RegisterHotKey")
	procUnregisterHotKey         = user32.NewProc("UnregisterHotKey")
	procGetMessageW              = user32.NewProc("GetMessageW")
	procPeekMessageW             = user32.NewProc("PeekMessageW")
	procPostThreadMessageW       = user32.NewProc("PostThreadMessageW")
	procMonitorFromPoint         = user32.NewProc("MonitorFromPoint")
	procGetMonitorInfoW          = user32.NewProc("GetMonitorInfoW")
	procSetDpiAwarenessContext   = user32.NewProc("SetProcessDpiAwarenessContext")
	procGetDpiForMonitor         = shcore.NewProc("GetDpiForMonitor")
)

const (
	wmQuit   = 0x0012
	wmHotkey = 0x0312
	wmUser   = 0x0400
	gaRoot   = 2
	// DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2
	dpiPerMonitorV2 = ^uintptr(3) // (HANDLE)-4
	errHotkeyInUse  = windows.Errno(1409)
)

type point struct{ X, Y int32 }

type msg struct {
	HWnd    uintptr
	Message uint32
	WParam  uintptr
	LParam  uintptr
	Time    uint32
	Pt      point
	_       uint32
}

// packPoint is a POINT passed by value: x in the low, y in the high half.
func packPoint(p image.Point) uintptr {
	return uintptr(uint32(int32(p.X))) | uintptr(uint32(int32(p.Y)))<<32
}

var dpiOnce sync.Once

// dpiAware makes the process per-monitor DPI aware once, before any
// coordinate is read. A manifest that already chose (the Wails app's) wins:
// the call then fails, which is fine.
func dpiAware() {
	dpiOnce.Do(func() {
		if procSetDpiAwarenessContext.Find() == nil {
			_, _, _ = procSetDpiAwarenessContext.Call(dpiPerMonitorV2)
		}
	})
}

func cursorPos() (image.Point, bool) {
	var p point
	r, _, _ := procGetCursorPos.Call(uintptr(unsafe.Pointer(&p)))
	return image.Pt(int(p.X), int(p.Y)), r != 0
}

// setCursorPos puts the pointer on p (what robotgo's moveMouse does on
// Windows, without its scaling; see the package doc).
func setCursorPos(p image.Point) {
	warps.add(p)
	_, _, _ = procSetCursorPos.Call(uintptr(int32(p.X)), uintptr(int32(p.Y)))
}

// glide moves the pointer to p with an injected absolute move (SendInput),
// as a mouse in motion does: the drag's intermediate steps. Under Wine it
// does not warp the X pointer, so no late echo of it can come back.
func glide(p image.Point) {
	warps.add(p)
	nx, ny := absolute(p, virtualScreen())
	in := mouseInput{Dx: nx, Dy: ny, Flags: 0x0001 | 0x4000 | 0x8000} // MOVE|VIRTUALDESK|ABSOLUTE
	if r, _, _ := procSendInput.Call(1, uintptr(unsafe.Pointer(&in)), unsafe.Sizeof(in)); r == 0 {
		setCursorPos(p)
	}
}

// clicks presses and releases button n times with one SendInput, the
// events stamped a millisecond apart from now. Windows (and Wine) makes a
// double click of two clicks whose stamps are within the double-click time,
// so the clicks are a double click however late this thread runs between
// its events: two calls 60 ms apart came more than 500 ms apart beside six
// CPU burners under Wine, and the app saw two single clicks. The stamps
// differ: an app that counts clicks itself takes a press stamped as the
// last one for that press seen again (Chromium's ui/events/event.cc,
// MouseEvent::GetRepeatCount). It returns how many of the 2n events went
// in (none: another thread blocks input).
//
// MOUSEINPUT's time: "The time stamp for the event, in milliseconds. If
// this parameter is 0, the system will provide its own time stamp."
// (learn.microsoft.com, winuser.h MOUSEINPUT).
//
// Each event also carries p as an absolute move (MOUSEEVENTF_MOVE with
// ABSOLUTE and VIRTUALDESK, which MOUSEINPUT lets go with the button
// flags), so the clicks land at p even when the pointer's warp to it has
// not been applied yet: beside two make tests under Wine, a double tap's
// four events all came at the tap before's point, the first one a double
// click of that tap.
func clicks(button string, n int, p image.Point) int {
	down, up := uint32(0x0002), uint32(0x0004) // MOUSEEVENTF_LEFTDOWN, LEFTUP
	switch button {
	case "right":
		down, up = 0x0008, 0x0010
	case "center", "middle":
		down, up = 0x0020, 0x0040
	}
	warps.add(p)
	nx, ny := absolute(p, virtualScreen())
	now, _, _ := procGetTickCount.Call()
	in := make([]mouseInput, 0, 2*n)
	for i := range 2 * n {
		f := down
		if i%2 == 1 {
			f = up
		}
		in = append(in, mouseInput{Dx: nx, Dy: ny, Flags: f | 0x0001 | 0x4000 | 0x8000, Time: uint32(now) + uint32(i)}) // MOVE|VIRTUALDESK|ABSOLUTE
	}
	r, _, _ := procSendInput.Call(uintptr(len(in)), uintptr(unsafe.Pointer(&in[0])), unsafe.Sizeof(in[0]))
	return int(r)
}

// mouseInput is INPUT holding a MOUSEINPUT (amd64 layout).
type mouseInput struct {
	Type      uint32
	_         uint32
	Dx, Dy    int32
	MouseData uint32
	Flags     uint32
	Time      uint32
	_         uint32
	Extra     uintptr
}

// virtualScreen is the rectangle of all monitors.
func virtualScreen() image.Rectangle {
	m := func(i uintptr) int {
		r, _, _ := procGetSystemMetrics.Call(i)
		return int(int32(r))
	}
	x, y := m(76), m(77) // SM_XVIRTUALSCREEN, SM_YVIRTUALSCREEN
	return image.Rect(x, y, x+m(78), y+m(79))
}

// windowPID is the process owning the top-level window under p (0: none).
func windowPID(p image.Point) int {
	h, _, _ := procWindowFromPoint.Call(packPoint(p))
	if h == 0 {
		return 0
	}
	if root, _, _ := procGetAncestor.Call(h, gaRoot); root != 0 {
		h = root
	}
	var pid uint32
	_, _, _ = procGetWindowThreadProcessId.Call(h, uintptr(unsafe.Pointer(&pid)))
	return int(pid)
}

type monitorInfoEx struct {
	Size    uint32
	Monitor windows.Rect
	Work    windows.Rect
	Flags   uint32
	Device  [32]uint16
}

// describeMonitor fills m's name, primary flag and DPI from the monitor
// containing the centre of m.Bounds.
func describeMonitor(m *monitor) {
	m.DPI = 96
	c := m.Bounds.Min.Add(m.Bounds.Max).Div(2)
	h, _, _ := procMonitorFromPoint.Call(packPoint(c), 2) // MONITOR_DEFAULTTONEAREST
	if h == 0 {
		return
	}
	mi := monitorInfoEx{Size: uint32(unsafe.Sizeof(monitorInfoEx{}))}
	if r, _, _ := procGetMonitorInfoW.Call(h, uintptr(unsafe.Pointer(&mi))); r != 0 {
		m.Primary = mi.Flags&1 != 0
		m.Name = windows.UTF16ToString(mi.Device[:])
	}
	if procGetDpiForMonitor.Find() == nil {
		var x, y uint32
		if r, _, _ := procGetDpiForMonitor.Call(h, 0, uintptr(unsafe.Pointer(&x)), uintptr(unsafe.Pointer(&y))); r == 0 && x > 0 {
			m.DPI = int(x)
		}
	}
}

func unsafePointer[T any](p *T) unsafe.Pointer { return unsafe.Pointer(p) }
