package desktop

import (
	"fmt"
	"strconv"
	"strings"

	"tandem/engine/device"
)

// Key names arrive from models in many spellings ("Return", "ctrl", "Control",
// "cmd", "super", "PageDown", "arrowleft"). normKey maps them to the names
// robotgo knows, and refuses names that mean nothing on a desktop (a phone's
// "back") with device.ErrUnsupported rather than letting robotgo silently
// press nothing: robotgo treats an unknown multi-letter name as key 0.

// modifiers, by canonical robotgo name.
var modifierNames = map[string]string{
	"ctrl": "ctrl", "control": "ctrl", "ctl": "ctrl", "lctrl": "ctrl", "rctrl": "ctrl",
	"alt": "alt", "option": "alt", "opt": "alt", "lalt": "alt", "ralt": "alt", "altgr": "alt",
	"shift": "shift", "lshift": "shift", "rshift": "shift",
	// The logo key: cmd on a Mac, super/win on Linux and Windows. robotgo's
	// "cmd" is Super_L on X11.
	"cmd": "cmd", "command": "cmd", "super": "cmd", "win": "cmd", "windows": "cmd",
	"meta": "cmd", "logo": "cmd", "lcmd": "cmd", "rcmd": "cmd", "lsuper": "cmd", "rsuper": "cmd",
}

var keyAliases = map[string]string{
	"enter": "enter", "return": "enter", "ret": "enter", "kp_enter": "num_enter",
	"esc": "esc", "escape": "esc",
	"tab":   "tab",
	"space": "space", "spacebar": "space", " ": "space",
	"backspace": "backspace", "bksp": "backspace",
	"delete": "delete", "del": "delete", "forwarddelete": "delete",
	"insert": "insert", "ins": "insert",
	"home": "home", "end": "end",
	"pageup": "pageup", "pgup": "pageup", "prior": "pageup",
	"pagedown": "pagedown", "pgdn": "pagedown", "pgdown": "pagedown", "next": "pagedown",
	"up": "up", "arrowup": "up", "uparrow": "up",
	"down": "down", "arrowdown": "down", "downarrow": "down",
	"left": "left", "arrowleft": "left", "leftarrow": "left",
	"right": "right", "arrowright": "right", "rightarrow": "right",
	"capslock": "capslock", "caps": "capslock",
	"printscreen": "printscreen", "print": "printscreen", "prtsc": "printscreen", "prtscn": "printscreen",
	"menu": "menu", "contextmenu": "menu", "apps": "menu",
	"volumeup": "audio_vol_up", "volup": "audio_vol_up",
	"volumedown": "audio_vol_down", "voldown": "audio_vol_down",
	"volumemute": "audio_mute", "mute": "audio_mute",
	"plus": "+", "minus": "-", "comma": ",", "period": ".", "slash": "/", "backslash": "\\",
	"semicolon": ";", "quote": "'", "apostrophe": "'", "grave": "`", "backquote": "`",
	"bracketleft": "[", "bracketright": "]", "equal": "=", "equals": "=",
}

// phoneOnly are keys of phone dialects with no desktop meaning.
var phoneOnly = map[string]bool{"back": true, "recent": true, "recents": true, "app_switch": true,
	"power": true, "camera": true, "search": true, "notification": true}

// canon folds case and separators: "Page_Down", "page-down", "PageDown" -> "pagedown".
func canon(name string) string {
	n := strings.TrimSpace(name)
	if len(n) == 1 {
		return strings.ToLower(n)
	}
	n = strings.ToLower(n)
	n = strings.NewReplacer("_", "", "-", "", " ", "").Replace(n)
	return n
}

// normKey returns robotgo's name for one key (modifier or not).
func normKey(name string) (string, error) {
	if strings.TrimSpace(name) == "" && name != " " {
		return "", fmt.Errorf("%w: empty key name", device.ErrUnsupported)
	}
	c := canon(name)
	if c == "" {
		c = " "
	}
	if m, ok := modifierNames[c]; ok {
		return m, nil
	}
	if k, ok := keyAliases[c]; ok {
		return k, nil
	}
	if len(c) >= 2 && c[0] == 'f' {
		if n, err := strconv.Atoi(c[1:]); err == nil && n >= 1 && n <= 24 {
			return c, nil
		}
	}
	if len(c) == 1 && c[0] > ' ' && c[0] < 0x7f {
		return c, nil
	}
	if phoneOnly[c] {
		return "", fmt.Errorf("%w: %q is a phone key with no desktop equivalent", device.ErrUnsupported, name)
	}
	return "", fmt.Errorf("%w: unknown key %q", device.ErrUnsupported, name)
}

// chord is a normalized hotkey: modifiers held while key is tapped.
type chord struct {
	Mods []string
	Key  string
}

func (c chord) String() string {
	return strings.Join(append(append([]string{}, c.Mods...), c.Key), "+")
}

// parseChord normalizes a hotkey given as parts (["ctrl","c"]) where a part
// may itself be joined ("ctrl+c", "cmd space"). The last non-modifier is the
// key; a chord of modifiers only (["super"]) taps the last one.
func parseChord(parts []string) (chord, error) {
	var names []string
	for _, p := range parts {
		if strings.TrimSpace(p) == "+" || p == " " {
			names = append(names, p)
			continue
		}
		names = append(names, strings.FieldsFunc(p, func(r rune) bool { return r == '+' || r == ' ' })...)
	}
	if len(names) == 0 {
		return chord{}, fmt.Errorf("%w: empty hotkey", device.ErrUnsupported)
	}
	var c chord
	seen := map[string]bool{}
	for i, n := range names {
		k, err := normKey(n)
		if err != nil {
			return chord{}, err
		}
		_, isMod := modifierNames[canon(n)]
		if isMod && i < len(names)-1 {
			if !seen[k] {
				c.Mods = append(c.Mods, k)
				seen[k] = true
			}
			continue
		}
		if c.Key != "" {
			return chord{}, fmt.Errorf("%w: hotkey %q has two non-modifier keys (%s and %s)",
				device.ErrUnsupported, strings.Join(parts, "+"), c.Key, k)
		}
		c.Key = k
	}
	return c, nil
}
