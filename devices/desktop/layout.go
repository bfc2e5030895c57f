package desktop

import (
	"strings"

	"github.com/jezek/xgb/xproto"
)

// robotgo types an ASCII character by finding a key for its keysym and adding
// Shift by a US-keyboard rule (capitals and ~!@#$%^&*()_+{}|:"<>?), and it
// sends '<' as Shift+comma. On another layout (German, French...) that rule
// types the wrong character: '@' is AltGr+Q in Germany, and Shift+Q is 'Q'.
// layoutTypes checks the rule against the keyboard mapping the X server has
// now; text it would mistype is pasted instead.

const robotgoShifted = `~!@#$%^&*()_+{}|:"<>?`

// layoutTypes reports whether robotgo would type every character of the
// (ASCII) text correctly with the current keyboard mapping.
func layoutTypes(keysyms []xproto.Keysym, per int, text string) bool {
	// Xlib's XKeysymToKeycode searches column by column, each over all keys:
	// the column where a keysym is first found is the level robotgo gets.
	column := func(sym xproto.Keysym) (key, col int) {
		for c := 0; c < per; c++ {
			for k := 0; k*per+c < len(keysyms); k++ {
				if keysyms[k*per+c] == sym {
					return k, c
				}
			}
		}
		return -1, -1
	}
	for _, r := range text {
		if r == '\n' || r == '\t' {
			continue // tapped as Return and Tab, which every layout has
		}
		shift := r >= 'A' && r <= 'Z' || strings.ContainsRune(robotgoShifted, r)
		sym := xproto.Keysym(r)
		if r == '<' { // robotgo's "x11 key bug" workaround: Shift+comma
			if k, _ := column(','); k < 0 || produces(keysyms, per, k, true) != '<' {
				return false
			}
			continue
		}
		k, _ := column(sym)
		if k < 0 || produces(keysyms, per, k, shift) != sym {
			return false
		}
	}
	return true
}

// keyboardTypes is layoutTypes with the X server's current mapping.
func (d *Driver) keyboardTypes(text string) bool {
	setup := xproto.Setup(d.ctl)
	count := int(setup.MaxKeycode) - int(setup.MinKeycode) + 1
	km, err := xproto.GetKeyboardMapping(d.ctl, setup.MinKeycode, byte(count)).Reply()
	if err != nil {
		return false
	}
	return layoutTypes(km.Keysyms, int(km.KeysymsPerKeycode), text)
}

// produces is the keysym key k gives with or without Shift: the second
// column, or the first when the key has only one (the core protocol's rule).
func produces(keysyms []xproto.Keysym, per, k int, shift bool) xproto.Keysym {
	if !shift || per < 2 {
		return keysyms[k*per]
	}
	if s := keysyms[k*per+1]; s != 0 {
		return s
	}
	return keysyms[k*per]
}
