//go:build windows

package win

import (
	"fmt"
	"image"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/windows"

	"tandem/devices/desktop"
)

// Low-level mouse and keyboard hooks: every input event of the session
// passes them with a flag saying whether it was injected. The agent's
// events (SendInput through robotgo) are; a hand's are not, so the person
// is told apart from the agent exactly, whenever the watcher looks.
//
// Windows gives a process a limited number of syscall callbacks, so the two
// hook procedures are made once per process and find their driver by the
// thread they run on (a hook is called on the thread that installed it).

const (
	whKeyboardLL = 13
	whMouseLL    = 14
	wmMouseMove  = 0x0200
)

var (
	procSetWindowsHookExW   = user32.NewProc("SetWindowsHookExW")
	procUnhookWindowsHookEx = user32.NewProc("UnhookWindowsHookEx")
	procCallNextHookEx      = user32.NewProc("CallNextHookEx")
)

// hookTarget is what a driver's hooks report to; they never block.
type hookTarget struct {
	person chan<- struct{}
	// epoch is the agent's arm now; a report stores it in reported first.
	epoch, reported *atomic.Uint64
	stopKeys        map[uint32]bool
	// watching: the agent acts or the person drives; then hand is given
	// each of the person's events (the stop hotkey's keys aside).
	watching *atomic.Bool
	hand     func(desktop.HandEvent)
	// The stop chord as the hook hears it while another program holds its
	// registration (another Tandem's driver): hear is set then, and a
	// press of stopVK with stopMods held calls fire.
	stopVK   uint32
	stopMods []string
	hear     atomic.Bool
	fire     func()
}

// warps are the points any driver of this process put the pointer on
// lately (SetCursorPos and the hooks are the process's, not a driver's).
var warps warpRing

type msllHook struct {
	Pt        point
	MouseData uint32
	Flags     uint32
	Time      uint32
	Extra     uintptr
}

type kbdllHook struct {
	VK, Scan, Flags, Time uint32
	Extra                 uintptr
}

var (
	hookOnce    sync.Once
	mouseProc   uintptr
	keyProc     uintptr
	hookTargets sync.Map // thread id -> *hookTarget
)

func report(t *hookTarget) {
	t.reported.Store(t.epoch.Load())
	select {
	case t.person <- struct{}{}:
	default:
	}
}

func onMouse(code, wp, lp uintptr) uintptr {
	if int32(code) >= 0 {
		if v, ok := hookTargets.Load(windows.GetCurrentThreadId()); ok {
			t := v.(*hookTarget)
			h := (*msllHook)(unsafe.Add(unsafe.Pointer(nil), lp))
			if personMouse(h.Flags, wp == wmMouseMove) {
				report(t)
			}
			if h.Flags&llmhfInjected == 0 && t.watching.Load() {
				if e, ok := mouseHand(wp, image.Pt(int(h.Pt.X), int(h.Pt.Y)), h.MouseData, h.Time); ok {
					t.hand(e)
				}
			}
		}
	}
	r, _, _ := procCallNextHookEx.Call(0, code, wp, lp)
	return r
}

func onKey(code, wp, lp uintptr) uintptr {
	if int32(code) >= 0 {
		if v, ok := hookTargets.Load(windows.GetCurrentThreadId()); ok {
			t := v.(*hookTarget)
			h := (*kbdllHook)(unsafe.Add(unsafe.Pointer(nil), lp))
			if t.hear.Load() && h.VK == t.stopVK && keyDown(wp) && modsHeld(t.stopMods) {
				go t.fire() // the hook never blocks
			}
			if personKey(h.Flags, h.VK, t.stopKeys) {
				report(t)
				if t.watching.Load() {
					t.hand(keyEvent(wp, h))
				}
			}
		}
	}
	r, _, _ := procCallNextHookEx.Call(0, code, wp, lp)
	return r
}

// installHooks installs both hooks for the calling thread tid (locked, with
// a message loop) and returns their removal.
func installHooks(tid uint32, t *hookTarget) (func(), error) {
	hookOnce.Do(func() {
		mouseProc = windows.NewCallback(onMouse)
		keyProc = windows.NewCallback(onKey)
	})
	hookTargets.Store(tid, t)
	inst, _, _ := procGetModuleHandleW.Call(0)
	mh, _, e := procSetWindowsHookExW.Call(whMouseLL, mouseProc, inst, 0)
	if mh == 0 {
		hookTargets.Delete(tid)
		return nil, fmt.Errorf("mouse hook: %v", e)
	}
	kh, _, e := procSetWindowsHookExW.Call(whKeyboardLL, keyProc, inst, 0)
	if kh == 0 {
		_, _, _ = procUnhookWindowsHookEx.Call(mh)
		hookTargets.Delete(tid)
		return nil, fmt.Errorf("keyboard hook: %v", e)
	}
	return func() {
		_, _, _ = procUnhookWindowsHookEx.Call(kh)
		_, _, _ = procUnhookWindowsHookEx.Call(mh)
		hookTargets.Delete(tid)
	}, nil
}

var (
	procMapVirtualKeyW     = user32.NewProc("MapVirtualKeyW")
	procToUnicodeEx        = user32.NewProc("ToUnicodeEx")
	procGetAsyncKeyState   = user32.NewProc("GetAsyncKeyState")
	procGetKeyState        = user32.NewProc("GetKeyState")
	procGetKeyboardLayout  = user32.NewProc("GetKeyboardLayout")
	procGetForegroundWnd   = user32.NewProc("GetForegroundWindow")
	procGetWindowThreadPID = user32.NewProc("GetWindowThreadProcessId")
)

// keyEvent is a low-level key event of the person's as a HandEvent: the
// key's name, the character it types on the layout of the window in front
// (ToUnicodeEx, leaving the keyboard's state alone), the modifiers held.
func keyEvent(wp uintptr, h *kbdllHook) desktop.HandEvent {
	const wmKeyDown, wmSysKeyDown = 0x0100, 0x0104
	down := wp == wmKeyDown || wp == wmSysKeyDown
	held := func(vk uintptr) bool {
		r, _, _ := procGetAsyncKeyState.Call(vk)
		return r&0x8000 != 0
	}
	var mods []string
	var state [256]byte
	for _, m := range []struct {
		vk   uintptr
		name string
	}{{0x11, "ctrl"}, {0x12, "alt"}, {0x10, "shift"}, {0x5B, "cmd"}, {0x5C, "cmd"}} {
		if held(m.vk) && (len(mods) == 0 || mods[len(mods)-1] != m.name) {
			mods = append(mods, m.name)
			state[m.vk] = 0x80
		}
	}
	if r, _, _ := procGetKeyState.Call(0x14); r&1 != 0 { // CapsLock on
		state[0x14] = 0x01
	}
	oem, _, _ := procMapVirtualKeyW.Call(uintptr(h.VK), 2) // MAPVK_VK_TO_CHAR
	text := ""
	if down && (state[0x11] == 0 || state[0x12] != 0) { // no ctrl, or ctrl+alt (AltGr)
		fg, _, _ := procGetForegroundWnd.Call()
		tid, _, _ := procGetWindowThreadPID.Call(fg, 0)
		hkl, _, _ := procGetKeyboardLayout.Call(tid)
		var buf [8]uint16
		n, _, _ := procToUnicodeEx.Call(uintptr(h.VK), uintptr(h.Scan), uintptr(unsafe.Pointer(&state[0])),
			uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 4 /* leave the keyboard state */, hkl)
		if int32(n) > 0 {
			text = windows.UTF16ToString(buf[:n])
		}
	}
	p, _ := cursorPos()
	return keyHand(down, vkName(h.VK, rune(oem&0x7fff)), text, mods, p, h.Time)
}

func keyDown(wp uintptr) bool {
	const wmKeyDown, wmSysKeyDown = 0x0100, 0x0104
	return wp == wmKeyDown || wp == wmSysKeyDown
}

// modsHeld reports whether every modifier of mods is held now (either
// hand's key).
func modsHeld(mods []string) bool {
	for _, m := range mods {
		held := false
		for _, vk := range modifierVKs[m] {
			if r, _, _ := procGetAsyncKeyState.Call(uintptr(vk)); r&0x8000 != 0 {
				held = true
				break
			}
		}
		if !held {
			return false
		}
	}
	return true
}
