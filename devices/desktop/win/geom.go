package win

import (
	"fmt"
	"image"
	"slices"
	"strconv"
	"strings"
	"sync"

	"tandem/devices/desktop"
	"tandem/engine/action"
	"tandem/engine/device"
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

// modifierVKs are the virtual keys a low-level keyboard hook reports for a
// modifier: the generic code and the left and right ones.
var modifierVKs = map[string][]uint32{
	"ctrl": {0x11, 0xA2, 0xA3}, "alt": {0x12, 0xA4, 0xA5}, "shift": {0x10, 0xA0, 0xA1}, "cmd": {0x5B, 0x5C},
}

// chordKeys are the virtual keys of a hotkey as a keyboard hook sees them:
// pressing the stop chord is not also a takeover.
func chordKeys(c desktop.Chord, vk uint32) map[uint32]bool {
	keys := map[uint32]bool{vk: true}
	for _, m := range c.Mods {
		for _, k := range modifierVKs[m] {
			keys[k] = true
		}
	}
	return keys
}

// Flags of low-level hook events: the event was injected (SendInput,
// keybd_event, mouse_event) rather than made by a hand on a device.
const (
	llmhfInjected = 0x01
	llkhfInjected = 0x10
)

// personMouse reports whether a low-level mouse event is the person's: a
// button or wheel event that was not injected. Moves are judged by where
// the pointer is (pointerMoved): Windows and Wine report moves no hand made
// (a window appearing under the pointer; under Wine, echoes of the agent's
// own pointer warps read by another thread, sometimes late).
func personMouse(flags uint32, move bool) bool {
	return flags&llmhfInjected == 0 && !move
}

// pointerMoved reports whether the pointer at p means a hand moved it: it
// is not where the agent put it last (agent) nor anywhere the agent put it
// lately (a late echo put it back there).
func pointerMoved(p, agent image.Point, recent *warpRing) bool {
	return p != agent && !recent.has(p)
}

// warpRing remembers the last points the agent put the pointer on.
type warpRing struct {
	mu  sync.Mutex
	pts [64]image.Point
	n   int
}

func (r *warpRing) add(p image.Point) {
	r.mu.Lock()
	r.pts[r.n%len(r.pts)] = p
	r.n++
	r.mu.Unlock()
}

func (r *warpRing) has(p image.Point) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := 0; i < min(r.n, len(r.pts)); i++ {
		if r.pts[i] == p {
			return true
		}
	}
	return false
}

// personKey reports whether a low-level keyboard event is the person's: not
// injected and not a key of the stop chord.
func personKey(flags, vk uint32, stop map[uint32]bool) bool {
	return flags&llkhfInjected == 0 && !stop[vk]
}

// absolute is a point of the virtual screen v as SendInput's normalized
// absolute coordinates (0..65535 across v, MOUSEEVENTF_VIRTUALDESK). Windows
// maps n back to v.Min + n*size/65536 rounded down, so rounding the
// normalized value up lands on the pixel exactly.
func absolute(p image.Point, v image.Rectangle) (int32, int32) {
	norm := func(k, size int) int32 {
		if size <= 0 {
			return 0
		}
		return int32((k*65536 + size - 1) / size)
	}
	return norm(p.X-v.Min.X, v.Dx()), norm(p.Y-v.Min.Y, v.Dy())
}

// The person's own input as the low-level hooks report it, made into the
// desktop's HandEvents (devices/desktop: HandActs puts them together).

// Mouse messages of a low-level mouse hook.
const (
	wmMouseMoveMsg = 0x0200
	wmLButtonDown  = 0x0201
	wmLButtonUp    = 0x0202
	wmRButtonDown  = 0x0204
	wmRButtonUp    = 0x0205
	wmMButtonDown  = 0x0207
	wmMButtonUp    = 0x0208
	wmMouseWheel   = 0x020A
	wmMouseHWheel  = 0x020E
)

// mouseHand is a low-level mouse event as a HandEvent at p (screen
// pixels); false for messages that are none (the X buttons).
func mouseHand(msg uintptr, p image.Point, data, ms uint32) (desktop.HandEvent, bool) {
	e := desktop.HandEvent{P: p, Ms: ms}
	switch msg {
	case wmMouseMoveMsg:
		e.Kind = desktop.HandMove
	case wmLButtonDown, wmRButtonDown, wmMButtonDown:
		e.Kind, e.Button = desktop.HandDown, map[uintptr]string{wmLButtonDown: "left", wmRButtonDown: "right", wmMButtonDown: "middle"}[msg]
	case wmLButtonUp, wmRButtonUp, wmMButtonUp:
		e.Kind, e.Button = desktop.HandUp, map[uintptr]string{wmLButtonUp: "left", wmRButtonUp: "right", wmMButtonUp: "middle"}[msg]
	case wmMouseWheel, wmMouseHWheel:
		delta := int16(data >> 16) // WHEEL_DELTA units: > 0 away from the person (up), or right
		e.Kind = desktop.HandWheel
		switch {
		case msg == wmMouseWheel && delta > 0:
			e.Wheel = "up"
		case msg == wmMouseWheel:
			e.Wheel = "down"
		case delta > 0:
			e.Wheel = "right"
		default:
			e.Wheel = "left"
		}
	default:
		return e, false
	}
	return e, true
}

// vkNames name virtual keys as the canonical key action does (the inverse
// of virtualKeys, both hands' modifiers, the media keys).
var vkNames = func() map[uint32]string {
	m := map[uint32]string{
		0x10: "shift", 0xA0: "shift", 0xA1: "shift", 0x11: "ctrl", 0xA2: "ctrl", 0xA3: "ctrl",
		0x12: "alt", 0xA4: "alt", 0xA5: "alt", 0x5B: "cmd", 0x5C: "cmd",
		0xAD: "audio_mute", 0xAE: "audio_vol_down", 0xAF: "audio_vol_up",
	}
	for name, vk := range virtualKeys {
		if name != "capslock" {
			m[vk] = name
		}
	}
	return m
}()

// vkName is the name of virtual key vk ("" for a key of no name), with
// oemChar the character a punctuation key types unshifted (0: unknown).
func vkName(vk uint32, oemChar rune) string {
	switch {
	case vkNames[vk] != "":
		return vkNames[vk]
	case vk >= 'A' && vk <= 'Z':
		return string(rune(vk - 'A' + 'a'))
	case vk >= '0' && vk <= '9':
		return string(rune(vk))
	case vk >= 0x60 && vk <= 0x69: // the keypad's digits
		return string(rune('0' + vk - 0x60))
	case vk >= 0x70 && vk <= 0x87:
		return fmt.Sprintf("f%d", vk-0x70+1)
	case oemChar > ' ' && oemChar < 0x7f:
		return strings.ToLower(string(oemChar))
	}
	return ""
}

// keyHand is a low-level key event as a HandEvent: name and text as vkName
// and the layout give them; ctrl+alt typing a character is AltGr, not a
// hotkey.
func keyHand(down bool, name, text string, mods []string, p image.Point, ms uint32) desktop.HandEvent {
	e := desktop.HandEvent{Kind: desktop.HandKeyUp, Key: name, P: p, Ms: ms, Mods: mods}
	if !down {
		return e
	}
	e.Kind = desktop.HandKey
	if name == "tab" || name == "enter" {
		text = ""
	}
	for _, r := range text {
		if r < ' ' || r == 0x7f {
			text = "" // ctrl+letter's control character
		}
	}
	e.Text = text
	if text != "" && slices.Contains(mods, "ctrl") && slices.Contains(mods, "alt") {
		e.Mods = slices.DeleteFunc(slices.Clone(mods), func(m string) bool { return m == "ctrl" || m == "alt" })
	}
	return e
}
