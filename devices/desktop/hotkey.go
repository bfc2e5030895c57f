package desktop

import (
	"errors"
	"fmt"

	"github.com/jezek/xgb/xproto"
)

// The stop hotkey: a passive grab on the root window, heard on the
// driver's control connection.

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
			return d.hearStop(code, mods)
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

// hearStop shares the stop hotkey another program holds (another Tandem,
// whose runs it stops): X lets one client grab a chord, but RECORD shows
// every client the keys as they are pressed, so this driver hears the
// chord there (heardStopLocked) and stops as the holder does. Without
// RECORD the chord cannot be shared: ErrHotkeyTaken, saying so (a driver
// may be opened with another Options.StopHotkey; the person has no
// Setting for it yet).
func (d *Driver) hearStop(code xproto.Keycode, mods uint16) error {
	if d.inj.s == nil || d.inj.s.rec == nil {
		return fmt.Errorf("%w: %s (another program, or another Tandem, holds it, and this X server has no RECORD to share it by: end that program's run first)",
			ErrHotkeyTaken, d.stop)
	}
	d.keyMu.Lock()
	d.stopKey, d.stopHeard = grabbed{code: code, mods: mods}, true
	d.keyMu.Unlock()
	return nil
}

// heardStopLocked reports whether ev, from the stream, is the stop chord
// pressed while another program holds its grab; s.mu is held.
func (d *Driver) heardStopLocked(ev xevent) bool {
	d.keyMu.Lock()
	defer d.keyMu.Unlock()
	return d.stopHeard && ev.typ == xproto.KeyPress && xproto.Keycode(ev.detail) == d.stopKey.code &&
		ev.state&d.stopKey.mods == d.stopKey.mods
}

// fireStop tells the process's drivers of this chord (or this one) that
// the person pressed it.
func (d *Driver) fireStop() {
	if d.opts.StopKeys != nil {
		d.opts.StopKeys.Fire(stopKeyName(d))
	} else {
		d.stopPressed()
	}
}

// stopPressed halts the agent and signals StopHotkey.
func (d *Driver) stopPressed() {
	d.inj.s.mu.Lock()
	d.inj.haltLocked(ErrStopped)
	d.inj.s.mu.Unlock()
	select {
	case d.stopped <- struct{}{}:
	default:
	}
}

// modifierKeysyms are the keysyms of each modifier's keys, both hands.
var modifierKeysyms = map[string][]xproto.Keysym{
	"ctrl": {0xffe3, 0xffe4}, "shift": {0xffe1, 0xffe2}, "alt": {0xffe9, 0xffea, 0xffe7, 0xffe8},
	"cmd": {0xffeb, 0xffec},
}

// stopKeyLocked reports whether code is a key of the stop hotkey: its key,
// or a key of one of its modifiers; the server's s.mu is held.
func (d *Driver) stopKeyLocked(code xproto.Keycode) bool {
	d.keyMu.Lock()
	stop := d.stopKey
	d.keyMu.Unlock()
	if code == stop.code {
		return true
	}
	k, err := d.inj.s.keymapLocked()
	if err != nil {
		return false
	}
	base := k.at(code, 0)
	for _, m := range d.stop.Mods {
		for _, s := range modifierKeysyms[m] {
			if base == s {
				return true
			}
		}
	}
	return false
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
			d.fireStop()
		default:
			d.clip.handle(ev)
		}
	}
}
