package desktop

import (
	"image"

	"tandem/engine/action"
)

// What the other platforms' drivers (devices/desktop/win) share with
// this one, so a model's key names, hotkeys and coordinates mean the same on
// every desktop.

// Chord is a normalized hotkey: modifiers (robotgo names) held while Key is
// tapped.
type Chord = chord

// ParseChord normalizes a hotkey given as parts (["ctrl","c"], "ctrl+c").
func ParseChord(parts []string) (Chord, error) { return parseChord(parts) }

// NormKey returns robotgo's name for one key, or an error wrapping
// device.ErrUnsupported for a name with no desktop meaning.
func NormKey(name string) (string, error) { return normKey(name) }

// ToScreen maps (x, y) in a screenshot of size shot to the monitor
// rectangle b in screen coordinates.
func ToScreen(b image.Rectangle, shot action.Size, x, y int) image.Point {
	return toScreen(b, shot, x, y)
}

// Typable reports whether every rune of s is typed key by key (printable
// ASCII, newline, tab); anything else is pasted or sent as Unicode.
func Typable(s string) bool { return typable(s) }
