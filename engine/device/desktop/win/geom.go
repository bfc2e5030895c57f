package win

import (
	"fmt"
	"image"
	"strconv"
	"strings"

	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/engine/device/desktop"
)

// DefaultStopHotkey is the stop chord on Windows (ctrl+shift+escape opens
// the Task Manager and cannot be registered).
const DefaultStopHotkey = "ctrl+alt+escape"

// monitor is one display as Windows reports it, in physical pixels of the
// virtual screen.
type monitor struct {
	Bounds  image.Rectangle
	DPI     int // effective DPI; 96 is 100 %
	Primary bool
	Name    string // \\.\DISPLAY1
}

// scaleOf is a DPI as a scale factor (1, 1.25, 1.5 ...); an unknown DPI is 1.
func scaleOf(dpi int) float64 {
	if dpi <= 0 {
		return 1
	}
	return float64(dpi) / 96
}

// infoFor describes monitor m, display i, the way the X11 driver names its
// displays.
func infoFor(i int, m monitor) device.Info {
	name := "Display " + strconv.Itoa(i+1)
	var notes []string
	if n := strings.TrimPrefix(m.Name, `\\.\`); n != "" {
		notes = append(notes, n)
	}
	if m.Primary {
		notes = append(notes, "primary")
	}
	if m.Bounds.Min != (image.Point{}) {
		notes = append(notes, fmt.Sprintf("at %d,%d", m.Bounds.Min.X, m.Bounds.Min.Y))
	}
	if s := scaleOf(m.DPI); s != 1 {
		notes = append(notes, fmt.Sprintf("%g%%", s*100))
	}
	if len(notes) > 0 {
		name += " (" + strings.Join(notes, ", ") + ")"
	}
	return device.Info{
		ID:     desktop.IDPrefix + strconv.Itoa(i),
		Name:   name,
		Kind:   device.Desktop,
		Screen: action.Size{W: m.Bounds.Dx(), H: m.Bounds.Dy()},
		Scale:  scaleOf(m.DPI),
	}
}

// RegisterHotKey's modifier flags and MOD_NOREPEAT.
const (
	modAlt      = 0x1
	modControl  = 0x2
	modShift    = 0x4
	modWin      = 0x8
	modNoRepeat = 0x4000
)

var modFlags = map[string]uint32{"alt": modAlt, "ctrl": modControl, "shift": modShift, "cmd": modWin}

// virtualKeys are Windows virtual-key codes of robotgo's key names.
var virtualKeys = map[string]uint32{
	"esc": 0x1B, "enter": 0x0D, "tab": 0x09, "space": 0x20, "backspace": 0x08,
	"delete": 0x2E, "insert": 0x2D, "home": 0x24, "end": 0x23, "pageup": 0x21, "pagedown": 0x22,
	"left": 0x25, "up": 0x26, "right": 0x27, "down": 0x28, "printscreen": 0x2C,
	"menu": 0x5D, "capslock": 0x14,
}

// hotkeyOf is a chord as RegisterHotKey's modifiers and virtual key.
// Letters, digits, F1–F24 and the named keys above can be hotkeys.
func hotkeyOf(c desktop.Chord) (mods, vk uint32, err error) {
	for _, m := range c.Mods {
		f, ok := modFlags[m]
		if !ok {
			return 0, 0, fmt.Errorf("%w: %q as a hotkey modifier", device.ErrUnsupported, m)
		}
		mods |= f
	}
	k := c.Key
	switch {
	case virtualKeys[k] != 0:
		vk = virtualKeys[k]
	case len(k) == 1 && k[0] >= 'a' && k[0] <= 'z':
		vk = uint32(k[0] - 'a' + 'A')
	case len(k) == 1 && k[0] >= '0' && k[0] <= '9':
		vk = uint32(k[0])
	case len(k) >= 2 && k[0] == 'f':
		n, e := strconv.Atoi(k[1:])
		if e != nil || n < 1 || n > 24 {
			return 0, 0, fmt.Errorf("%w: %q as a hotkey", device.ErrUnsupported, k)
		}
		vk = 0x70 + uint32(n-1)
	default:
		return 0, 0, fmt.Errorf("%w: %q as a hotkey", device.ErrUnsupported, k)
	}
	return mods | modNoRepeat, vk, nil
}

// utf16Units are the UTF-16 code units KEYEVENTF_UNICODE sends for r: one
// for the basic plane, a surrogate pair above it ("😀").
func utf16Units(r rune) []uint16 {
	if r < 0x10000 {
		return []uint16{uint16(r)}
	}
	r -= 0x10000
	return []uint16{0xD800 + uint16(r>>10), 0xDC00 + uint16(r&0x3FF)}
}

// tickAfter reports whether GetTickCount-style tick a is later than b,
// across the 49.7-day wrap of a 32-bit millisecond counter.
func tickAfter(a, b uint32) bool { return int32(a-b) > 0 }
