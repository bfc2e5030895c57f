//go:build windows

package win

import (
	"context"
	"fmt"
	"image"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/go-vgo/robotgo"
	"golang.org/x/sys/windows"

	"tandem/engine/device/desktop"
)

// ownGrace is how long after the agent's own injection a new input tick is
// still taken as the agent's: SendInput's events are stamped when Windows'
// input thread processes them, a moment after the call returns.
const ownGrace = 150 * time.Millisecond

// injector is the one owner of the agent's input state: whether it may
// drive, where it last put the pointer, what it holds, and the input tick
// its own events left.
type injector struct {
	mu     sync.Mutex
	armed  bool          // the agent is driving: the person's input means takeover
	halt   error         // latched ErrTakenOver / ErrStopped / ErrClosed
	haltCh chan struct{} // closed when halt is set
	exp    image.Point   // where the agent last put the pointer
	hasExp bool
	base   uint32    // GetLastInputInfo tick after the agent's last event
	ownAt  time.Time // when the agent last injected
	held   map[string]bool
	// person reports the person's input since the last look; j.mu is held.
	person func() bool
}

func (j *injector) init() {
	j.haltCh = make(chan struct{})
	j.held = map[string]bool{}
}

// run injects f unless halted, checking for the person's input first (the
// watcher polls only every PollInterval).
func (j *injector) run(ctx context.Context, f func()) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.halt != nil {
		return j.halt
	}
	if j.armed && j.person != nil && j.person() {
		return j.halt
	}
	f()
	j.ownAt = time.Now()
	return nil
}

func (j *injector) move(ctx context.Context, p image.Point) error {
	return j.run(ctx, func() {
		j.exp, j.hasExp = p, true
		setCursorPos(p)
	})
}

func (j *injector) button(ctx context.Context, b string, down bool) error {
	return j.run(ctx, func() { j.toggle(b, down) })
}

// toggle presses or releases b; j.mu is held.
func (j *injector) toggle(b string, down bool) {
	if down {
		j.held[b] = true
		_ = robotgo.Toggle(b)
		return
	}
	_ = robotgo.Toggle(b, "up")
	delete(j.held, b)
}

// releaseAll lets go of the buttons the agent holds, even after a halt.
func (j *injector) releaseAll() {
	j.mu.Lock()
	defer j.mu.Unlock()
	for b := range j.held {
		j.toggle(b, false)
	}
}

func (j *injector) sleep(ctx context.Context, d time.Duration) error {
	j.mu.Lock()
	h := j.haltCh
	j.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-h:
		return j.halted()
	}
}

// haltLocked latches err; j.mu is held. It reports whether this call set it.
func (j *injector) haltLocked(err error) bool {
	if j.halt != nil {
		return false
	}
	j.halt = err
	j.armed = false
	close(j.haltCh)
	return true
}

func (j *injector) resume() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.halt != nil && j.halt != desktop.ErrClosed {
		j.halt = nil
		j.haltCh = make(chan struct{})
	}
	j.armed = false
}

func (j *injector) halted() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.halt
}

// arm starts watching for the person with the input state as it is now.
func (d *Driver) arm(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	j := &d.inj
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.halt != nil {
		return j.halt
	}
	if !j.armed {
		j.armed = true
		j.base = lastInput()
		j.exp, j.hasExp = cursorPos()
	}
	return nil
}

// personLocked compares the input state with what the agent left; a
// difference latches ErrTakenOver and signals Takeover. d.inj.mu is held.
func (d *Driver) personLocked() bool {
	j := &d.inj
	if !j.armed || j.halt != nil {
		return false
	}
	moved := false
	if p, ok := cursorPos(); ok && j.hasExp && p != j.exp {
		moved = true
	}
	typed := false
	if t := lastInput(); t != j.base {
		if time.Since(j.ownAt) < ownGrace {
			j.base = t // the agent's own events, stamped late
		} else if tickAfter(t, j.base) {
			typed = true
		}
	}
	if !moved && !typed {
		return false
	}
	j.haltLocked(desktop.ErrTakenOver)
	signal(d.takeover)
	return true
}

// watch polls for the person every PollInterval while the agent drives.
func (d *Driver) watch() {
	defer d.wg.Done()
	t := time.NewTicker(d.opts.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-d.quit:
			return
		case <-t.C:
			d.inj.mu.Lock()
			d.personLocked()
			d.inj.mu.Unlock()
		}
	}
}

// excluded refuses points on Tandem's own windows.
func (d *Driver) excluded(p image.Point) error {
	for _, r := range d.opts.ExcludeRects {
		if p.In(r) {
			return fmt.Errorf("%w (%d,%d is in %v)", desktop.ErrOwnWindow, p.X, p.Y, r)
		}
	}
	if len(d.opts.ExcludePIDs) == 0 {
		return nil
	}
	if pid := windowPID(p); pid != 0 && slices.Contains(d.opts.ExcludePIDs, pid) {
		return fmt.Errorf("%w (process %d at %d,%d)", desktop.ErrOwnWindow, pid, p.X, p.Y)
	}
	return nil
}

// hotkey is a RegisterHotKey registration living on a locked OS thread of
// its own: WM_HOTKEY is posted to the registering thread's queue.
type hotkey struct {
	tid  uint32
	done chan struct{}
}

const hotkeyID = 0x5444 // "TD"

// registerHotkey registers c and calls fire on every press until close.
// A chord another program holds gives desktop.ErrHotkeyTaken.
func registerHotkey(c desktop.Chord, fire func()) (*hotkey, error) {
	mods, vk, err := hotkeyOf(c)
	if err != nil {
		return nil, fmt.Errorf("stop hotkey: %w", err)
	}
	h := &hotkey{done: make(chan struct{})}
	ready := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer close(h.done)
		h.tid = windows.GetCurrentThreadId()
		var m msg
		// Make the thread's message queue before anyone posts to it.
		_, _, _ = procPeekMessageW.Call(uintptr(unsafePointer(&m)), 0, wmUser, wmUser, 0)
		if r, _, e := procRegisterHotKey.Call(0, hotkeyID, uintptr(mods), uintptr(vk)); r == 0 {
			if e == errHotkeyInUse {
				ready <- fmt.Errorf("%w: %s", desktop.ErrHotkeyTaken, c)
			} else {
				ready <- fmt.Errorf("register stop hotkey %s: %v", c, e)
			}
			return
		}
		defer procUnregisterHotKey.Call(0, hotkeyID)
		ready <- nil
		for {
			r, _, _ := procGetMessageW.Call(uintptr(unsafePointer(&m)), 0, 0, 0)
			if int32(r) <= 0 {
				return
			}
			if m.Message == wmHotkey && m.WParam == hotkeyID {
				fire()
			}
		}
	}()
	if err := <-ready; err != nil {
		<-h.done
		return nil, err
	}
	return h, nil
}

func (h *hotkey) close() {
	_, _, _ = procPostThreadMessageW.Call(uintptr(h.tid), wmQuit, 0, 0)
	<-h.done
}
