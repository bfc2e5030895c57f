//go:build windows

package win

import (
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
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
	person   chan<- struct{}
	stopKeys map[uint32]bool
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
			if personKey(h.Flags, h.VK, t.stopKeys) {
				report(t)
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
