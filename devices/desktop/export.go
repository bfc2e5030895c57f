package desktop

import (
	"fmt"
	"image"

	"tandem/engine/action"
	"tandem/engine/device"
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

// CheckStopHotkey normalizes a stop hotkey the person chose ("ctrl+alt+k"),
// or says why it cannot be one: it needs a modifier (a bare key would be
// taken from the typing of every program) and a key every driver can grab.
func CheckStopHotkey(s string) (string, error) {
	c, err := parseChord([]string{s})
	if err != nil {
		return "", err
	}
	if len(c.Mods) == 0 {
		return "", fmt.Errorf("%w: the stop hotkey %q needs ctrl, alt, shift or super with its key", device.ErrUnsupported, s)
	}
	if _, ok := keysymOf(c.Key); !ok {
		return "", fmt.Errorf("%w: %q cannot end a stop hotkey (a letter, a digit, F1–F24, Esc, Enter, Tab, Space, an arrow…)", device.ErrUnsupported, c.Key)
	}
	return c.String(), nil
}
