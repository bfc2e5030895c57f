package desktop

import (
	"context"
	"errors"
	"fmt"
	"image"
	"sync"
	"time"

	"github.com/go-vgo/robotgo"
	"github.com/jezek/xgb/xproto"
)

// injector serializes every robotgo call (Xlib is not thread-safe) and keeps
// what the agent last did to the pointer, buttons and keyboard, so the
// watcher can tell the person's input from the agent's: the watcher samples
// under the same mutex, so it never sees an injection half done.
type injector struct {
	mu      sync.Mutex
	armed   bool          // the agent is driving: person input means takeover
	halt    error         // latched ErrTakenOver / ErrStopped; nil while driving is allowed
	haltCh  chan struct{} // closed when halt is set
	exp     image.Point   // where the agent last put the pointer
	held    uint16        // X button mask bits the agent holds
	baseBtn uint16        // buttons already down when the watcher armed
	baseKey [32]byte      // keys already down when the watcher armed
	paste   chord
	// check samples the person's input and latches a takeover; j.mu is held.
	check func() bool
}

const buttonMask = xproto.KeyButMaskButton1 | xproto.KeyButMaskButton2 | xproto.KeyButMaskButton3 |
	xproto.KeyButMaskButton4 | xproto.KeyButMaskButton5

func (j *injector) init(paste chord) {
	j.haltCh = make(chan struct{})
	j.paste = paste
}

// run performs one injection f unless the agent has been halted. Before it
// injects, it checks the person has not touched anything since the agent's
// last injection: the watcher polls only every PollInterval, and a drag step
// must not warp the pointer back from under a hand that just moved it.
func (j *injector) run(ctx context.Context, f func()) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.halt != nil {
		return j.halt
	}
	if j.check != nil && j.check() {
		return j.halt
	}
	f()
	return nil
}

func (j *injector) move(ctx context.Context, p image.Point) error {
	return j.run(ctx, func() {
		j.exp = p
		robotgo.Move(p.X, p.Y)
	})
}

var buttonBits = map[string]uint16{"left": xproto.KeyButMaskButton1, "center": xproto.KeyButMaskButton2,
	"right": xproto.KeyButMaskButton3}

func (j *injector) button(ctx context.Context, b string, down bool) error {
	return j.run(ctx, func() { j.toggle(b, down) })
}

// toggle presses or releases b; j.mu is held.
func (j *injector) toggle(b string, down bool) {
	if down {
		j.held |= buttonBits[b]
		_ = robotgo.Toggle(b)
		return
	}
	_ = robotgo.Toggle(b, "up")
	j.held &^= buttonBits[b]
}

// release lets go of b even after a halt: a button the agent pressed must not
// stay down under the person's hand. It is the only input sent after a halt.
func (j *injector) release(b string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.held&buttonBits[b] != 0 {
		j.toggle(b, false)
	}
}

func (j *injector) releaseAll() {
	for b := range buttonBits {
		j.release(b)
	}
}

// sleep waits d, returning early with the halt or ctx error.
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
		j.mu.Lock()
		defer j.mu.Unlock()
		return j.halt
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
	if j.halt != nil {
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
	j := &d.inj
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.halt != nil {
		return j.halt
	}
	if j.armed {
		return nil
	}
	root := xproto.Setup(d.ctl).DefaultScreen(d.ctl).Root
	qp, err := xproto.QueryPointer(d.ctl, root).Reply()
	if err != nil {
		return fmt.Errorf("query pointer: %w", err)
	}
	km, err := xproto.QueryKeymap(d.ctl).Reply()
	if err != nil {
		return fmt.Errorf("query keymap: %w", err)
	}
	j.exp = image.Pt(int(qp.RootX), int(qp.RootY))
	j.baseBtn = qp.Mask & buttonMask &^ j.held
	copy(j.baseKey[:], km.Keys)
	j.armed = true
	return ctx.Err()
}

// disarm stops watching once an action is done: the person's own mouse and
// keyboard take over only while the agent acts. Between actions the person
// may use the computer, above all Tandem's own confirmation dialog: moving
// the mouse to Allow latched a takeover the run could not honour, and every
// later action failed (issue 19). A last sample catches input made during
// the action's final injection.
func (d *Driver) disarm() {
	j := &d.inj
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.halt != nil || !j.armed {
		return
	}
	if j.check != nil && j.check() {
		return
	}
	j.armed = false
}

// watch samples the input state every PollInterval while the agent drives.
func (d *Driver) watch() {
	defer d.wg.Done()
	t := time.NewTicker(d.opts.PollInterval)
	defer t.Stop()
	root := xproto.Setup(d.ctl).DefaultScreen(d.ctl).Root
	for {
		select {
		case <-d.quit:
			return
		case <-t.C:
		}
		d.inj.mu.Lock()
		d.sampleLocked(root)
		d.inj.mu.Unlock()
	}
}

// sampleLocked reports whether the person took over since the agent's last
// injection, and if so latches the halt and signals Takeover. d.inj.mu is held.
func (d *Driver) sampleLocked(root xproto.Window) bool {
	j := &d.inj
	if !j.armed || j.halt != nil {
		return false
	}
	pc := xproto.QueryPointer(d.ctl, root)
	kc := xproto.QueryKeymap(d.ctl)
	qp, err := pc.Reply()
	if err != nil {
		return false
	}
	km, err := kc.Reply()
	if err != nil {
		return false
	}
	why := ""
	pos := image.Pt(int(qp.RootX), int(qp.RootY))
	btn := qp.Mask & buttonMask
	j.baseBtn &= btn
	switch {
	case pos != j.exp:
		why = fmt.Sprintf("pointer moved to %d,%d (the agent left it at %d,%d)", pos.X, pos.Y, j.exp.X, j.exp.Y)
	case btn != j.baseBtn|j.held:
		why = "a mouse button was pressed"
	}
	for i := range j.baseKey {
		j.baseKey[i] &= km.Keys[i]
		if why == "" && km.Keys[i]&^j.baseKey[i] != 0 {
			why = "a key was pressed"
		}
	}
	if why == "" || !j.haltLocked(fmt.Errorf("%w: %s", ErrTakenOver, why)) {
		return false
	}
	select {
	case d.takeover <- struct{}{}:
	default:
	}
	return true
}

// events reads the control connection: the stop hotkey and clipboard traffic.
func (d *Driver) events() {
	defer d.wg.Done()
	for {
		ev, err := d.ctl.WaitForEvent()
		if ev == nil && err == nil {
			return // connection closed
		}
		if err != nil {
			continue
		}
		switch e := ev.(type) {
		case xproto.KeyPressEvent:
			d.keyMu.Lock()
			key := d.stopKey
			d.keyMu.Unlock()
			if e.Detail != key.code || e.State&key.mods != key.mods {
				continue
			}
			if d.opts.StopKeys != nil {
				d.opts.StopKeys.fire(d)
			} else {
				d.stopPressed()
			}
		default:
			d.clip.handle(ev)
		}
	}
}

// grabbed is the stop hotkey as the X server sees it.
type grabbed struct {
	code xproto.Keycode
	mods uint16
}

var modMasks = map[string]uint16{"ctrl": xproto.ModMaskControl, "shift": xproto.ModMaskShift,
	"alt": xproto.ModMask1, "cmd": xproto.ModMask4}

// keysyms of the keys a stop hotkey may end with (X11 keysymdef.h).
var namedKeysyms = map[string]xproto.Keysym{
	"esc": 0xff1b, "enter": 0xff0d, "tab": 0xff09, "space": 0x20, "backspace": 0xff08,
	"delete": 0xffff, "home": 0xff50, "left": 0xff51, "up": 0xff52, "right": 0xff53, "down": 0xff54,
	"pageup": 0xff55, "pagedown": 0xff56, "end": 0xff57, "insert": 0xff63,
}

func keysymOf(key string) (xproto.Keysym, bool) {
	if s, ok := namedKeysyms[key]; ok {
		return s, true
	}
	if len(key) == 1 && key[0] > ' ' && key[0] < 0x7f {
		return xproto.Keysym(key[0]), true
	}
	var n int
	if _, err := fmt.Sscanf(key, "f%d", &n); err == nil && n >= 1 && n <= 24 {
		return xproto.Keysym(0xffbe + n - 1), true
	}
	return 0, false
}

// grabStop installs the stop hotkey as a passive grab on the root window, with
// and without CapsLock and NumLock so those never defeat it.
func (d *Driver) grabStop() error {
	sym, ok := keysymOf(d.stop.Key)
	if !ok {
		return fmt.Errorf("stop hotkey %s: %q cannot end a stop hotkey", d.stop, d.stop.Key)
	}
	setup := xproto.Setup(d.ctl)
	count := int(setup.MaxKeycode) - int(setup.MinKeycode) + 1
	km, err := xproto.GetKeyboardMapping(d.ctl, setup.MinKeycode, byte(count)).Reply()
	if err != nil {
		return fmt.Errorf("stop hotkey: keyboard mapping: %w", err)
	}
	per := int(km.KeysymsPerKeycode)
	code := xproto.Keycode(0)
	for i := 0; i < count && code == 0; i++ {
		for k := 0; k < per; k++ {
			if km.Keysyms[i*per+k] == sym {
				code = xproto.Keycode(int(setup.MinKeycode) + i)
				break
			}
		}
	}
	if code == 0 {
		return fmt.Errorf("stop hotkey %s: no key on this keyboard types %s", d.stop, d.stop.Key)
	}
	var mods uint16
	for _, m := range d.stop.Mods {
		mods |= modMasks[m]
	}
	root := setup.DefaultScreen(d.ctl).Root
	for _, extra := range []uint16{0, xproto.ModMaskLock, xproto.ModMask2, xproto.ModMaskLock | xproto.ModMask2} {
		err := xproto.GrabKeyChecked(d.ctl, true, root, mods|extra, code,
			xproto.GrabModeAsync, xproto.GrabModeAsync).Check()
		var access xproto.AccessError
		if errors.As(err, &access) {
			return fmt.Errorf("%w: %s (choose another)", ErrHotkeyTaken, d.stop)
		}
		if err != nil {
			return fmt.Errorf("stop hotkey %s: %w", d.stop, err)
		}
	}
	d.keyMu.Lock()
	d.stopKey = grabbed{code: code, mods: mods}
	d.keyMu.Unlock()
	return nil
}

// stopPressed halts the agent and signals StopHotkey.
func (d *Driver) stopPressed() {
	d.inj.mu.Lock()
	d.inj.haltLocked(ErrStopped)
	d.inj.mu.Unlock()
	select {
	case d.stopped <- struct{}{}:
	default:
	}
}

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
