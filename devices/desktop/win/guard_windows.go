//go:build windows

package win

import (
	"context"
	"errors"
	"fmt"
	"image"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-vgo/robotgo"
	"golang.org/x/sys/windows"

	"tandem/devices/desktop"
)

// injector is the one owner of the agent's input state: whether it may
// drive, where it last put the pointer and which buttons it holds. The
// person's input arrives on person from the input thread's hooks.
type injector struct {
	mu     sync.Mutex
	armed  bool          // the agent is driving: the person's input means takeover
	halt   error         // latched ErrTakenOver / ErrStopped / ErrClosed
	haltCh chan struct{} // closed when halt is set
	held   map[string]bool
	person chan struct{} // the hooks saw the person's input (one pending)
	// epoch counts the agent's arms; reported is the epoch the hooks saw
	// the person's last press in. A report from before the current arm
	// (the person's click while they drove, taken by the watcher only
	// after Resume and the next action's arm) is theirs, not a takeover.
	epoch, reported atomic.Uint64
	exp             image.Point // where the agent last put the pointer
	// driving: halted by the person's hand; their acts are reported
	// (PersonActs) until Resume. watching (armed or driving) tells the
	// hooks to hand over the person's events.
	driving  bool
	watching atomic.Bool
	// personAct: the action under way is the person's, made through
	// Tandem (PersonDo): it runs though the agent is halted.
	personAct bool
	// took latches a takeover and signals it; j.mu is held.
	took func()
}

func (j *injector) init() {
	j.haltCh = make(chan struct{})
	j.held = map[string]bool{}
	j.person = make(chan struct{}, 1)
}

// run injects f unless halted, taking first any input of the person's the
// watcher has not handled yet: a drag step must not warp the pointer back
// from under a hand that just moved it.
func (j *injector) run(ctx context.Context, f func()) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.halt != nil && (!j.personAct || errors.Is(j.halt, desktop.ErrClosed)) {
		return j.halt
	}
	if j.armed && j.personLocked() {
		j.took()
		return j.halt
	}
	f()
	return nil
}

func (j *injector) move(ctx context.Context, p image.Point) error {
	return j.run(ctx, func() {
		j.exp = p
		setCursorPos(p)
	})
}

// glide is move for a drag's intermediate steps (see glide).
func (j *injector) glide(ctx context.Context, p image.Point) error {
	return j.run(ctx, func() {
		j.exp = p
		glide(p)
	})
}

func (j *injector) button(ctx context.Context, b string, down bool) error {
	return j.run(ctx, func() {
		j.placeLocked()
		j.toggle(b, down)
	})
}

// wheel turns the wheel clicks notches where the agent put the pointer: a
// late echo of an earlier warp moved it back under Wine, beside two test
// suites and CPU burners, and the wheel turned over the last point instead.
func (j *injector) wheel(ctx context.Context, clicks int, direction string) error {
	return j.run(ctx, func() {
		j.placeLocked()
		robotgo.ScrollDir(clicks, direction)
	})
}

// placeLocked puts the pointer back where the agent put it when a late echo
// of an earlier warp moved it (Wine; on Windows it is always in place) so a
// button goes where the agent aimed; j.mu is held.
func (j *injector) placeLocked() {
	for i := 0; i < 5; i++ {
		p, ok := cursorPos()
		if !ok || p == j.exp || !warps.has(p) {
			return // in place, or a hand moved it: the takeover check's case
		}
		setCursorPos(j.exp)
		deadline := time.Now().Add(20 * time.Millisecond)
		for q, _ := cursorPos(); q != j.exp && time.Now().Before(deadline); q, _ = cursorPos() {
			runtime.Gosched()
		}
	}
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

// releaseAll lets go of the buttons the agent holds, even after a halt: the
// only input sent after one.
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
	if j.personAct {
		h = nil // the person's own action: no halt stops it
	}
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
	j.watch()
	return true
}

// watch tells the hooks whether to hand over the person's events; j.mu is
// held.
func (j *injector) watch() { j.watching.Store(j.armed || j.driving) }

func (j *injector) resume() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.halt != nil && !errors.Is(j.halt, desktop.ErrClosed) {
		j.halt = nil
		j.haltCh = make(chan struct{})
	}
	j.armed, j.driving = false, false
	j.watch()
}

func (j *injector) halted() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.halt
}

// arm starts watching for the person from now: input before this moment
// (the person working while the agent waited) is forgotten.
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
		j.exp, _ = cursorPos()
		j.epoch.Add(1)
		select {
		case <-j.person:
		default:
		}
		j.armed = true
		j.watch()
	}
	return nil
}

// disarm stops watching once an action is done: the person's own mouse and
// keyboard take over only while the agent acts, so moving to Tandem's
// confirmation dialog between two actions is not a takeover (issue 19; the
// X11 driver does the same). A last look catches input made during the
// action's final injection.
func (d *Driver) disarm() {
	j := &d.inj
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.halt != nil || !j.armed {
		return
	}
	if j.personLocked() {
		d.tookLocked()
		return
	}
	j.armed = false
	j.watch()
}

// personLocked reports the person's input since the agent's last look:
// a hook's report, or the pointer moved by a hand; j.mu is held.
func (j *injector) personLocked() bool {
	select {
	case <-j.person:
		if j.fresh() {
			return true
		}
	default:
	}
	p, ok := cursorPos()
	return ok && pointerMoved(p, j.exp, &warps)
}

// fresh reports whether the hooks' last report of the person's input came
// in this arm, not before it.
func (j *injector) fresh() bool { return j.reported.Load() == j.epoch.Load() }

// tookLocked latches ErrTakenOver and signals Takeover; d.inj.mu is held.
func (d *Driver) tookLocked() {
	if d.inj.haltLocked(desktop.ErrTakenOver) {
		d.inj.driving = true
		d.inj.watch()
		signal(d.takeover)
	}
}

// watch turns the person's input into a takeover while the agent drives:
// the hooks' reports at once, the pointer's position every PollInterval.
func (d *Driver) watch() {
	defer d.wg.Done()
	t := time.NewTicker(d.opts.PollInterval)
	defer t.Stop()
	for {
		hooked := false
		select {
		case <-d.quit:
			return
		case <-d.inj.person:
			hooked = true
		case <-t.C:
		}
		d.inj.mu.Lock()
		if d.inj.armed && (hooked && d.inj.fresh() || d.inj.personLocked()) {
			d.tookLocked()
		}
		d.inj.mu.Unlock()
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

// inputThread is a locked OS thread of the driver's own holding the stop
// hotkey (WM_HOTKEY is posted to the registering thread) and the low-level
// mouse and keyboard hooks (called on the installing thread, from its
// message loop).
type inputThread struct {
	tid     uint32
	done    chan struct{}
	mods    uint32
	vk      uint32
	chord   desktop.Chord
	grabbed chan error // answers a grab request (wmGrab)
}

// wmGrab asks the input thread to register the stop hotkey (a hotkey is
// posted to the thread that registered it).
const wmGrab = wmUser + 1

const hotkeyID = 0x5444 // "TD"

// startInput installs the hooks reporting the person's input to t and,
// with register, registers the stop chord c; fire is called on every press
// of the chord. A chord another program holds (another Tandem's driver) is
// shared: the keyboard hook hears it and fires, as that program stops.
func startInput(c desktop.Chord, t *hookTarget, fire func(), register bool) (*inputThread, error) {
	mods, vk, err := hotkeyOf(c)
	if err != nil {
		return nil, fmt.Errorf("stop hotkey: %w", err)
	}
	t.stopKeys = chordKeys(c, vk)
	t.stopVK, t.stopMods, t.fire = vk, c.Mods, fire
	h := &inputThread{done: make(chan struct{}), mods: mods, vk: vk, chord: c, grabbed: make(chan error, 1)}
	ready := make(chan error, 1)
	go h.loop(t, fire, register, ready)
	if err := <-ready; err != nil {
		<-h.done
		return nil, err
	}
	return h, nil
}

// loop is the input thread: the hooks, the hotkey, and its message loop.
func (h *inputThread) loop(t *hookTarget, fire func(), register bool, ready chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer close(h.done)
	h.tid = windows.GetCurrentThreadId()
	var m msg
	// Make the thread's message queue before anyone posts to it.
	_, _, _ = procPeekMessageW.Call(uintptr(unsafePointer(&m)), 0, wmUser, wmUser, 0)
	registered := false
	defer func() {
		if registered {
			_, _, _ = procUnregisterHotKey.Call(0, hotkeyID)
		}
	}()
	if register {
		err := h.register()
		switch {
		case errors.Is(err, desktop.ErrHotkeyTaken): // another program's: heard by the hook, shared
			t.hear.Store(true)
		case err != nil:
			ready <- err
			return
		default:
			registered = true
		}
	}
	unhook, err := installHooks(h.tid, t)
	if err != nil {
		ready <- err
		return
	}
	defer unhook()
	ready <- nil
	for {
		r, _, _ := procGetMessageW.Call(uintptr(unsafePointer(&m)), 0, 0, 0)
		if int32(r) <= 0 {
			return
		}
		switch {
		case m.Message == wmHotkey && m.WParam == hotkeyID:
			fire()
		case m.Message == wmGrab:
			err := h.register()
			registered = registered || err == nil
			if errors.Is(err, desktop.ErrHotkeyTaken) { // another program's: heard by the hook, shared
				t.hear.Store(true)
				err = nil
			}
			h.grabbed <- err
		}
	}
}

// register registers the stop hotkey for the calling thread.
func (h *inputThread) register() error {
	if r, _, e := procRegisterHotKey.Call(0, hotkeyID, uintptr(h.mods), uintptr(h.vk)); r == 0 {
		if errors.Is(e, errHotkeyInUse) {
			return fmt.Errorf("%w: %s", desktop.ErrHotkeyTaken, h.chord)
		}
		return fmt.Errorf("register stop hotkey %s: %v", h.chord, e)
	}
	return nil
}

// grab registers the stop hotkey on the input thread (a StopKeys handing
// it over).
func (h *inputThread) grab() error {
	if r, _, e := procPostThreadMessageW.Call(uintptr(h.tid), wmGrab, 0, 0); r == 0 {
		return fmt.Errorf("stop hotkey: %v", e)
	}
	select {
	case err := <-h.grabbed:
		return err
	case <-h.done:
		return desktop.ErrClosed
	}
}

func (h *inputThread) close() {
	_, _, _ = procPostThreadMessageW.Call(uintptr(h.tid), wmQuit, 0, 0)
	<-h.done
}
