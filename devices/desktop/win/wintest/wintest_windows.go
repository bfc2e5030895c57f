//go:build windows

package wintest

// The window is made with plain syscalls: it paints a known pattern
// (Quadrants) and records the input it receives, so tests check what really
// reached a window rather than what a driver believes it sent.

import (
	"fmt"
	"image"
	"image/color"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"
	"unicode/utf16"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	user32               = windows.NewLazySystemDLL("user32.dll")
	procGetMessageW      = user32.NewProc("GetMessageW")
	procGetMessageTime   = user32.NewProc("GetMessageTime")
	procKeybdEvent       = user32.NewProc("keybd_event")
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
	procCreateSolidBrush = gdi32.NewProc("CreateSolidBrush")
	procDeleteObject     = gdi32.NewProc("DeleteObject")
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

// Window messages a test looks for.
const (
	wmDestroy     = 0x0002
	wmPaint       = 0x000F
	wmClose       = 0x0010
	WMKeyDown     = 0x0100
	WMChar        = 0x0102
	WMLButtonDown = 0x0201
	WMLButtonUp   = 0x0202
	WMLButtonDbl  = 0x0203
	WMRButtonDown = 0x0204
	WMRButtonUp   = 0x0205
	WMMouseWheel  = 0x020A
)

// Record is one message the test window received.
type Record struct {
	Msg  uint32
	X, Y int // client coordinates of mouse messages
	W    uintptr
	T    uint32 // the message's time stamp (GetMessageTime), ms
}

// Window is a test window; Rect is where it is on the screen.
type Window struct {
	hwnd   uintptr
	Rect   image.Rectangle // on the screen
	tid    uint32
	done   chan struct{}
	mu     sync.Mutex
	recs   []Record
	chars  []uint16
	notify chan struct{}
	shown  chan struct{} // closed at the first WM_PAINT
	once   sync.Once
}

// Quadrants is the pattern: four quadrants in these colours, (top-left, top-right,
// bottom-left, bottom-right).
var Quadrants = [4]color.RGBA{{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}, {255, 255, 255, 255}}

var (
	wndOnce    sync.Once
	wndProcPtr uintptr
	wndMu      sync.Mutex
	wndByHWND  = map[uintptr]*Window{}
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
			dx, dy := w.Rect.Dx(), w.Rect.Dy()
			for i, c := range Quadrants {
				r := windows.Rect{Left: int32(i % 2 * dx / 2), Top: int32(i / 2 * dy / 2)}
				r.Right, r.Bottom = r.Left+int32(dx/2), r.Top+int32(dy/2)
				br, _, _ := procCreateSolidBrush.Call(colorref(c))
				_, _, _ = procFillRect.Call(hdc, uintptr(unsafe.Pointer(&r)), br)
				_, _, _ = procDeleteObject.Call(br)
			}
		}
		_, _, _ = procEndPaint.Call(hwnd, uintptr(unsafe.Pointer(&ps)))
		if w != nil {
			w.once.Do(func() { close(w.shown) })
		}
		return 0
	case wmDestroy:
		_, _, _ = procPostQuitMessage.Call(0)
		return 0
	case WMKeyDown, WMChar, WMLButtonDown, WMLButtonUp, WMLButtonDbl, WMRButtonDown, WMRButtonUp, WMMouseWheel:
		if w != nil {
			t, _, _ := procGetMessageTime.Call()
			w.add(Record{Msg: uint32(m), X: int(int16(lp & 0xFFFF)), Y: int(int16(lp >> 16 & 0xFFFF)), W: wp, T: uint32(t)})
		}
	}
	r, _, _ := procDefWindowProcW.Call(hwnd, m, wp, lp)
	return r
}

func (w *Window) add(r Record) {
	w.mu.Lock()
	w.recs = append(w.recs, r)
	if r.Msg == WMChar {
		w.chars = append(w.chars, uint16(r.W))
	}
	w.mu.Unlock()
	select {
	case w.notify <- struct{}{}:
	default:
	}
}

// Text is what the window received as WM_CHAR, decoded.
func (w *Window) Text() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(utf16.Decode(w.chars))
}

// Records are the messages received so far.
func (w *Window) Records() []Record {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Record(nil), w.recs...)
}

// Reset forgets what the window received.
func (w *Window) Reset() {
	w.mu.Lock()
	w.recs, w.chars = nil, nil
	w.mu.Unlock()
}

// WaitFor waits until ok holds for the window's records; the deadline only
// guards against a hang.
func (w *Window) WaitFor(t *testing.T, what string, ok func(recs []Record) bool) {
	t.Helper()
	deadline := time.After(time.Minute) // a busy machine is slow, never wrong
	for !ok(w.Records()) {
		select {
		case <-w.notify:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("the window never received %s; it got %+v (text %q)", what, w.Records(), w.Text())
		}
	}
}

// Has matches a message, at client point x, y unless x < 0.
func Has(msg uint32, x, y int) func([]Record) bool {
	return func(recs []Record) bool {
		for _, r := range recs {
			if r.Msg == msg && (x < 0 || (r.X == x && r.Y == y)) {
				return true
			}
		}
		return false
	}
}

// Open shows a topmost, borderless window at r, painted with the
// quadrants, focused, with its own message loop on a locked thread.
func Open(t *testing.T, r image.Rectangle) *Window {
	t.Helper()
	return OpenTitled(t, r, "TandemTestWindow")
}

// OpenTitled is Open with the window titled title.
func OpenTitled(t *testing.T, r image.Rectangle, title string) *Window {
	t.Helper()
	wndOnce.Do(func() { wndProcPtr = windows.NewCallback(wndProc) })
	w := &Window{Rect: r, done: make(chan struct{}), notify: make(chan struct{}, 1), shown: make(chan struct{})}
	class, _ := windows.UTF16PtrFromString("TandemTestWindow")
	name, _ := windows.UTF16PtrFromString(title)
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
		h, _, e := procCreateWindowExW.Call(0x8 /* WS_EX_TOPMOST */, uintptr(unsafe.Pointer(class)), uintptr(unsafe.Pointer(name)),
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
	// Painted: the window's thread has handled what the window system said
	// about it appearing (under Wine, a move to where the X pointer is).
	select {
	case <-w.shown:
	case <-time.After(10 * time.Second):
		t.Fatal("the test window was never painted")
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

// PersonKey is a key pressed by the person: input from outside the driver.
func PersonKey(vk byte) {
	_, _, _ = procKeybdEvent.Call(uintptr(vk), 0, 0, 0)
	_, _, _ = procKeybdEvent.Call(uintptr(vk), 0, 2 /* KEYEVENTF_KEYUP */, 0)
}

// KeyDown is the person pressing (down) or releasing virtual key vk.
func KeyDown(vk byte, down bool) {
	var flags uintptr
	if !down {
		flags = 2 // KEYEVENTF_KEYUP
	}
	_, _, _ = procKeybdEvent.Call(uintptr(vk), 0, flags, 0)
}

// xdotool is the X11 input tool a Windows program under Wine can start (Wine
// runs a Unix executable given by its Z: path).
const xdotool = `Z:\usr\bin\xdotool`

// Person makes input as a hand would: under Wine, xdotool's XTest events
// reach Wine as real device input (not injected). There is no such hand on a
// real Windows: the test is skipped there, and where xdotool is missing.
func Person(t *testing.T, args ...string) {
	t.Helper()
	if _, err := os.Stat(xdotool); err != nil {
		t.Skip("needs Wine with xdotool for a hand's input:", err)
	}
	// Wine cannot wait for a Unix process; callers wait for its effect.
	p, err := os.StartProcess(xdotool, append([]string{"xdotool"}, args...), &os.ProcAttr{Files: []*os.File{nil, os.Stderr, os.Stderr}})
	if err != nil {
		t.Fatal(err)
	}
	_ = p.Release()
}
