package desktop

import (
	"errors"
	"reflect"
	"testing"

	"tandem/engine/device"
)

func TestNormKey(t *testing.T) {
	for in, want := range map[string]string{
		"Return": "enter", "ENTER": "enter", "esc": "esc", "Escape": "esc", "Page_Down": "pagedown",
		"page-up": "pageup", "PgDn": "pagedown", "ArrowLeft": "left", "BackSpace": "backspace", "Del": "delete",
		"space": "space", " ": "space", "Tab": "tab", "F5": "f5", "f12": "f12", "F24": "f24",
		"A": "a", "z": "z", "1": "1", "/": "/", "comma": ",", "Control": "ctrl", "CTRL": "ctrl",
		"Super": "cmd", "Win": "cmd", "command": "cmd", "Meta": "cmd", "Option": "alt", "AltGr": "alt",
		"volume_up": "audio_vol_up", "Print": "printscreen", "Insert": "insert", "Menu": "menu",
	} {
		got, err := normKey(in)
		if err != nil || got != want {
			t.Errorf("normKey(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"back", "Recent", "power", "hyperdrive", "F25", "F0", "", "é", "你"} {
		if got, err := normKey(in); !errors.Is(err, device.ErrUnsupported) {
			t.Errorf("normKey(%q) = %q, %v; want ErrUnsupported", in, got, err)
		}
	}
}

func TestParseChord(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want chord
	}{
		{[]string{"ctrl", "c"}, chord{Mods: []string{"ctrl"}, Key: "c"}},
		{[]string{"ctrl+c"}, chord{Mods: []string{"ctrl"}, Key: "c"}},
		{[]string{"Control+Shift+T"}, chord{Mods: []string{"ctrl", "shift"}, Key: "t"}},
		{[]string{"cmd", "space"}, chord{Mods: []string{"cmd"}, Key: "space"}},
		{[]string{"cmd space"}, chord{Mods: []string{"cmd"}, Key: "space"}},
		{[]string{"super"}, chord{Key: "cmd"}},
		{[]string{"ctrl", "shift"}, chord{Mods: []string{"ctrl"}, Key: "shift"}},
		{[]string{"ctrl", "ctrl", "v"}, chord{Mods: []string{"ctrl"}, Key: "v"}},
		{[]string{"ctrl", "+"}, chord{Mods: []string{"ctrl"}, Key: "+"}},
		{[]string{"alt", "F4"}, chord{Mods: []string{"alt"}, Key: "f4"}},
	} {
		got, err := parseChord(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseChord(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, in := range [][]string{nil, {}, {"ctrl", "c", "v"}, {"ctrl", "back"}, {"+"[:0]}} {
		if got, err := parseChord(in); !errors.Is(err, device.ErrUnsupported) {
			t.Errorf("parseChord(%q) = %+v, %v; want ErrUnsupported", in, got, err)
		}
	}
}

func TestTypable(t *testing.T) {
	for s, want := range map[string]bool{"hello": true, "a\tb\nc": true, "~!@": true, "你好": false,
		"café": false, "a\rb": false, "😀": false, "": true} {
		if got := typable(s); got != want {
			t.Errorf("typable(%q) = %v", s, got)
		}
	}
}
