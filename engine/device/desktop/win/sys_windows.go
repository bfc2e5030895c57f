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

	procGetCursorPos             = user32.NewProc("GetCursorPos")
	procSetCursorPos             = user32.NewProc("SetCursorPos")
	procGetLastInputInfo         = user32.NewProc("GetLastInputInfo")
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

func setCursorPos(p image.Point) {
	_, _, _ = procSetCursorPos.Call(uintptr(int32(p.X)), uintptr(int32(p.Y)))
}

// lastInput is GetLastInputInfo's tick of the latest input event, any
// process's.
func lastInput() uint32 {
	info := struct{ Size, Time uint32 }{Size: 8}
	_, _, _ = procGetLastInputInfo.Call(uintptr(unsafe.Pointer(&info)))
	return info.Time
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
