//go:build windows

package win

import (
	"fmt"
	"image"
	"image/color"
	"runtime"
	"sync"
	"testing"
	"time"
	"unicode/utf16"
	"unsafe"

	"golang.org/x/sys/windows"
)

// A Win32 window of the test's own, made with plain syscalls: it paints a
// known pattern and records the input it receives, so the tests check what
// really reached a window rather than what the driver believes it sent.

var (
	kernel32             = windows.NewLazySystemDLL("kernel32.dll")
	gdi32                = windows.NewLazySystemDLL("gdi32.dll")
	procGetModuleHandleW = kernel32.NewProc("GetModuleHandleW")
	procRegisterClassExW = user32.NewProc("RegisterClassExW")
	procCreateWindowExW  = user32.NewProc("CreateWindowExW")
	procDefWindowProcW   = user32.NewProc("DefWindowProcW")
	procDispatchMessageW = user32.NewProc("DispatchMessageW")
	procTranslateMessage = user32.NewProc("TranslateMessage")
	procPostMessageW     = user32.NewProc("PostMessageW")
	procPostQuitMessage  = user32.NewProc("PostQuitMessage")
	procSetForeground    = user32.NewProc("SetForegroundWindow")
	procBeginPaint       = user32.NewProc("BeginPaint")
	procEndPaint         = user32.NewProc("EndPaint")
	procFillRect         = user32.NewProc("FillRect")
	procKeybdEvent       = user32.NewProc("keybd_event")
	procCreateSolidBrush = gdi32.NewProc("CreateSolidBrush")
	procDeleteObject     = gdi32.NewProc("DeleteObject")
)

const (
	wmDestroy     = 0x0002
	wmPaint       = 0x000F
	wmClose       = 0x0010
	wmKeyDown     = 0x0100
	wmChar        = 0x0102
	wmLButtonDown = 0x0201
	wmLButtonUp   = 0x0202
	wmLButtonDbl  = 0x0203
	wmRButtonDown = 0x0204
	wmMouseWheel  = 0x020A
)

// record is one message the test window received.
type record struct {
	Msg  uint32
	X, Y int // client coordinates of mouse messages
	W    uintptr
}

type testWindow struct {
	hwnd   uintptr
	rect   image.Rectangle // on the screen
	tid    uint32
	done   chan struct{}
	mu     sync.Mutex
	recs   []record
	chars  []uint16
	notify chan struct{}
}

// The pattern: four quadrants in these colours, (top-left, top-right,
// bottom-left, bottom-right).
var quadrants = [4]color.RGBA{{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}, {255, 255, 255, 255}}

var (
	wndOnce    sync.Once
	wndProcPtr uintptr
	wndMu      sync.Mutex
	wndByHWND  = map[uintptr]*testWindow{}
)

func colorref(c color.RGBA) uintptr { return uintptr(c.R) | uintptr(c.G)<<8 | uintptr(c.B)<<16 }

func wndProc(hwnd, m, wp, lp uintptr) uintptr {
	wndMu.Lock()
	w := wndByHWND[hwnd]
	wndMu.Unlock()
	switch uint32(m) {
	case wmPaint:
		var ps [128]byte
		hdc, _, _ := procBeginPaint.Call(hwnd, uintptr(unsafe.Pointer(&ps)))
		if w != nil {
			dx, dy := w.rect.Dx(), w.rect.Dy()
			for i, c := range quadrants {
				r := windows.Rect{Left: int32(i % 2 * dx / 2), Top: int32(i / 2 * dy / 2)}
				r.Right, r.Bottom = r.Left+int32(dx/2), r.Top+int32(dy/2)
				br, _, _ := procCreateSolidBrush.Call(colorref(c))
				_, _, _ = procFillRect.Call(hdc, uintptr(unsafe.Pointer(&r)), br)
				_, _, _ = procDeleteObject.Call(br)
			}
		}
		_, _, _ = procEndPaint.Call(hwnd, uintptr(unsafe.Pointer(&ps)))
		return 0
	case wmDestroy:
		_, _, _ = procPostQuitMessage.Call(0)
		return 0
	case wmKeyDown, wmChar, wmLButtonDown, wmLButtonUp, wmLButtonDbl, wmRButtonDown, wmMouseWheel:
		if w != nil {
			w.add(record{Msg: uint32(m), X: int(int16(lp & 0xFFFF)), Y: int(int16(lp >> 16 & 0xFFFF)), W: wp})
		}
	}
	r, _, _ := procDefWindowProcW.Call(hwnd, m, wp, lp)
	return r
}

func (w *testWindow) add(r record) {
	w.mu.Lock()
	w.recs = append(w.recs, r)
	if r.Msg == wmChar {
		w.chars = append(w.chars, uint16(r.W))
	}
	w.mu.Unlock()
	select {
	case w.notify <- struct{}{}:
	default:
	}
}

// text is what the window received as WM_CHAR, decoded.
func (w *testWindow) text() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(utf16.Decode(w.chars))
}

func (w *testWindow) records() []record {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]record(nil), w.recs...)
}

func (w *testWindow) reset() {
	w.mu.Lock()
	w.recs, w.chars = nil, nil
	w.mu.Unlock()
}

// waitFor waits until ok holds for the window's records; the deadline only
// guards against a hang.
func (w *testWindow) waitFor(t *testing.T, what string, ok func(recs []record) bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for !ok(w.records()) {
		select {
		case <-w.notify:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("the window never received %s; it got %+v (text %q)", what, w.records(), w.text())
		}
	}
}

func has(msg uint32, x, y int) func([]record) bool {
	return func(recs []record) bool {
		for _, r := range recs {
			if r.Msg == msg && (x < 0 || (r.X == x && r.Y == y)) {
				return true
			}
		}
		return false
	}
}

// openTestWindow shows a topmost, borderless window at r, painted with the
// quadrants, focused, with its own message loop on a locked thread.
func openTestWindow(t *testing.T, r image.Rectangle) *testWindow {
	t.Helper()
	wndOnce.Do(func() { wndProcPtr = windows.NewCallback(wndProc) })
	w := &testWindow{rect: r, done: make(chan struct{}), notify: make(chan struct{}, 1)}
	class, _ := windows.UTF16PtrFromString("TandemTestWindow")
	ready := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer close(w.done)
		inst, _, _ := procGetModuleHandleW.Call(0)
		wc := struct {
			Size, Style            uint32
			WndProc                uintptr
			ClsExtra, WndExtra     int32
			Instance, Icon, Cursor uintptr
			Background             uintptr
			MenuName, ClassName    *uint16
			IconSm                 uintptr
		}{Style: 0x0008 /* CS_DBLCLKS */, WndProc: wndProcPtr, Instance: inst, ClassName: class}
		wc.Size = uint32(unsafe.Sizeof(wc))
		_, _, _ = procRegisterClassExW.Call(uintptr(unsafe.Pointer(&wc))) // fails harmlessly once registered
		w.tid = windows.GetCurrentThreadId()
		// wndProc runs inside CreateWindowExW (WM_NCCREATE...): the window is
		// known to it from the next message on, before the first WM_PAINT.
		h, _, e := procCreateWindowExW.Call(0x8 /* WS_EX_TOPMOST */, uintptr(unsafe.Pointer(class)), uintptr(unsafe.Pointer(class)),
			0x80000000|0x10000000 /* WS_POPUP|WS_VISIBLE */, uintptr(r.Min.X), uintptr(r.Min.Y), uintptr(r.Dx()), uintptr(r.Dy()), 0, 0, inst, 0)
		if h != 0 {
			w.hwnd = h
			wndMu.Lock()
			wndByHWND[h] = w
			wndMu.Unlock()
		}
		if h == 0 {
			ready <- fmt.Errorf("CreateWindowExW: %v", e)
			return
		}
		_, _, _ = procSetForeground.Call(h)
		ready <- nil
		var m msg
		for {
			r, _, _ := procGetMessageW.Call(uintptr(unsafe.Pointer(&m)), 0, 0, 0)
			if int32(r) <= 0 {
				return
			}
			_, _, _ = procTranslateMessage.Call(uintptr(unsafe.Pointer(&m)))
			_, _, _ = procDispatchMessageW.Call(uintptr(unsafe.Pointer(&m)))
		}
	}()
	if err := <-ready; err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _, _ = procPostMessageW.Call(w.hwnd, wmClose, 0, 0)
		select {
		case <-w.done:
		case <-time.After(5 * time.Second):
			t.Error("the test window did not close")
		}
		wndMu.Lock()
		delete(wndByHWND, w.hwnd)
		wndMu.Unlock()
	})
	return w
}

// personKey is a key pressed by the person: input from outside the driver.
func personKey(vk byte) {
	_, _, _ = procKeybdEvent.Call(uintptr(vk), 0, 0, 0)
	_, _, _ = procKeybdEvent.Call(uintptr(vk), 0, 2 /* KEYEVENTF_KEYUP */, 0)
}
