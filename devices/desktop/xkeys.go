package desktop

import (
	"fmt"
	"strings"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"tandem/engine/device"
)

// Keys both ways: the keys the agent presses (a key's name, as normKey
// gives it, to a keysym and the keycode and Shift that type it on the
// keyboard the X server has now), and the keys the person presses (a
// keycode and the modifiers held to the key's name and the character it
// types). Keysym values are X11's keysymdef.h; the columns of the core
// keyboard mapping are the X Window System Protocol's (section 5, "Keyboards").

// keysymNames are the keysyms of the named keys, by normKey's names.
var keysymNames = map[string]xproto.Keysym{
	"enter": 0xff0d, "esc": 0xff1b, "tab": 0xff09, "space": 0x20, "backspace": 0xff08,
	"delete": 0xffff, "insert": 0xff63, "home": 0xff50, "end": 0xff57, "pageup": 0xff55,
	"pagedown": 0xff56, "left": 0xff51, "up": 0xff52, "right": 0xff53, "down": 0xff54,
	"capslock": 0xffe5, "printscreen": 0xff61, "menu": 0xff67, "num_enter": 0xff8d,
	"audio_vol_up": 0x1008ff13, "audio_vol_down": 0x1008ff11, "audio_mute": 0x1008ff12,
	"ctrl": 0xffe3, "shift": 0xffe1, "alt": 0xffe9, "cmd": 0xffeb,
}

// personKeyNames name the keys the person presses: the named keys above,
// both hands' modifiers, and keys with a second keysym for the same name.
var personKeyNames = func() map[xproto.Keysym]string {
	m := map[xproto.Keysym]string{
		0xffe4: "ctrl", 0xffe2: "shift", 0xffea: "alt", 0xffe7: "alt", 0xffe8: "alt",
		0xffec: "cmd", 0xffed: "cmd", 0xffee: "cmd", 0xfe20: "tab", 0xff8d: "enter",
	}
	for name, sym := range keysymNames {
		if name != "capslock" && name != "num_enter" {
			m[sym] = name
		}
	}
	for n := 1; n <= 24; n++ {
		m[xproto.Keysym(0xffbe+n-1)] = fmt.Sprintf("f%d", n)
	}
	return m
}()

// keysymFor is the keysym of a key by normKey's name.
func keysymFor(name string) (xproto.Keysym, bool) {
	if s, ok := keysymNames[name]; ok {
		return s, true
	}
	var n int
	if _, err := fmt.Sscanf(name, "f%d", &n); err == nil && n >= 1 && n <= 24 && name == fmt.Sprintf("f%d", n) {
		return xproto.Keysym(0xffbe + n - 1), true
	}
	if len(name) == 1 && name[0] > ' ' && name[0] < 0x7f {
		return xproto.Keysym(name[0]), true // Latin-1 keysyms are the characters
	}
	return 0, false
}

// keymap is the server's core keyboard mapping.
type keymap struct {
	min  xproto.Keycode
	per  int
	syms []xproto.Keysym
}

func loadKeymap(c *xgb.Conn) (keymap, error) {
	setup := xproto.Setup(c)
	count := int(setup.MaxKeycode) - int(setup.MinKeycode) + 1
	r, err := xproto.GetKeyboardMapping(c, setup.MinKeycode, byte(count)).Reply()
	if err != nil {
		return keymap{}, fmt.Errorf("keyboard mapping: %w", err)
	}
	return keymap{min: setup.MinKeycode, per: int(r.KeysymsPerKeycode), syms: r.Keysyms}, nil
}

// at is the keysym in column col of keycode code (0: none).
func (k keymap) at(code xproto.Keycode, col int) xproto.Keysym {
	i := (int(code)-int(k.min))*k.per + col
	if col >= k.per || int(code) < int(k.min) || i >= len(k.syms) {
		return 0
	}
	return k.syms[i]
}

// code finds the key that types sym and whether Shift is needed: the first
// of the first two columns holding it, searched column by column as Xlib's
// XKeysymToKeycode does.
func (k keymap) code(sym xproto.Keysym) (code xproto.Keycode, shift, ok bool) {
	if k.per == 0 {
		return 0, false, false
	}
	n := len(k.syms) / k.per
	for col := 0; col < min(2, k.per); col++ {
		for i := 0; i < n; i++ {
			c := xproto.Keycode(int(k.min) + i)
			if k.at(c, col) != sym {
				continue
			}
			if col == 0 {
				return c, false, true
			}
			if k.produces(c, true) == sym {
				return c, true, true
			}
		}
	}
	return 0, false, false
}

// produces is the keysym key code gives with or without Shift: the second
// column, or the first when the key has only one (the core protocol's rule).
func (k keymap) produces(code xproto.Keycode, shift bool) xproto.Keysym {
	if shift {
		if s := k.at(code, 1); s != 0 {
			return s
		}
	}
	return k.at(code, 0)
}

// types reports whether every rune of text (printable ASCII, newline, tab)
// is on a key of this keyboard, in the first two columns: typed key by key
// with Shift where needed. On a German layout '@' is AltGr+Q (a third
// column): such text is pasted instead.
func (k keymap) types(text string) bool {
	for _, r := range text {
		if r == '\n' || r == '\t' {
			continue // Return and Tab, which every layout has
		}
		if _, _, ok := k.code(xproto.Keysym(r)); !ok {
			return false
		}
	}
	return true
}

// keyFor is the key and Shift that type a key of normKey's name.
func (k keymap) keyFor(name string) (xproto.Keycode, bool, error) {
	sym, ok := keysymFor(name)
	if !ok {
		return 0, false, fmt.Errorf("%w: key %q", device.ErrUnsupported, name)
	}
	code, shift, ok := k.code(sym)
	if !ok {
		return 0, false, fmt.Errorf("%w: no key of this keyboard types %q", device.ErrUnsupported, name)
	}
	return code, shift, nil
}

// Modifier masks of a key or button event's state.
const (
	stateShift = xproto.ModMaskShift
	stateLock  = xproto.ModMaskLock
	stateCtrl  = xproto.ModMaskControl
	stateAlt   = xproto.ModMask1
	stateNum   = xproto.ModMask2
	stateCmd   = xproto.ModMask4
	stateLevel = xproto.ModMask5 // AltGr (ISO_Level3_Shift) on XKB keyboards
)

// personKey names the key the person pressed, with the modifiers held
// before it (state), and the character it types (see HandEvent).
func (k keymap) personKey(code xproto.Keycode, state uint16) (name, text string, mods []string) {
	for _, m := range []struct {
		mask uint16
		name string
	}{{stateCtrl, "ctrl"}, {stateAlt, "alt"}, {stateShift, "shift"}, {stateCmd, "cmd"}} {
		if state&m.mask != 0 {
			mods = append(mods, m.name)
		}
	}
	base := k.at(code, 0)
	name = personKeyNames[base]
	if name == "" && base > ' ' && base < 0x7f {
		name = strings.ToLower(string(rune(base)))
	}
	if r := keysymRune(k.typed(code, state)); r != 0 && name != "tab" && name != "enter" {
		text = string(r)
	}
	return name, text, mods
}

// typed is the keysym key code gives with the modifiers of state: the
// AltGr columns (4, 5) with AltGr, Shift (or CapsLock on a letter) the
// second of a pair, NumLock the keypad's digits.
func (k keymap) typed(code xproto.Keycode, state uint16) xproto.Keysym {
	col := 0
	if state&stateLevel != 0 && k.at(code, 4) != 0 {
		col = 4
	}
	lower, upper := k.at(code, col), k.at(code, col+1)
	shift := state&stateShift != 0
	if state&stateLock != 0 && lower >= 'a' && lower <= 'z' {
		shift = !shift
	}
	if state&stateNum != 0 && upper >= 0xffb0 && upper <= 0xffb9 {
		shift = !shift
	}
	if shift && upper != 0 {
		return upper
	}
	if shift && lower >= 'a' && lower <= 'z' {
		return lower - 'a' + 'A'
	}
	return lower
}

// keysymRune is the character a keysym stands for (0: none): Latin-1
// keysyms are the characters, Unicode keysyms carry theirs, the keypad's
// digits are digits.
func keysymRune(s xproto.Keysym) rune {
	switch {
	case s >= 0x20 && s <= 0x7e, s >= 0xa0 && s <= 0xff:
		return rune(s)
	case s >= 0x1000100 && s <= 0x110ffff:
		return rune(s - 0x1000000)
	case s >= 0xffb0 && s <= 0xffb9:
		return rune('0' + s - 0xffb0)
	}
	return 0
}
