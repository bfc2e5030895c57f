package desktop

import "testing"

func TestCheckStopHotkey(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ctrl+shift+escape", "ctrl+shift+esc"},
		{"Ctrl+Alt+K", "ctrl+alt+k"},
		{"ctrl+f12", "ctrl+f12"},
		{"k", ""},        // no modifier: it would eat the person's typing
		{"ctrl+alt", ""}, // no key
		{"ctrl+é", ""},   // no key a driver can grab
		{"", ""},
		{"ctrl+a+b", ""},
	} {
		got, err := CheckStopHotkey(c.in)
		if (err == nil) != (c.want != "") || got != c.want {
			t.Errorf("CheckStopHotkey(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}
