package cli

import (
	"strings"
	"testing"
)

func TestEscapeControls(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain words, (1,2) and a \"quote\"", "plain words, (1,2) and a \"quote\""},
		{"确认支付 🙂 👩‍👩‍👧 ❤️ 🇨🇳", "确认支付 🙂 👩‍👩‍👧 ❤️ 🇨🇳"},
		{"lines\nand\ttabs\n", "lines\nand\ttabs\n"},
		{"\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},
		{"\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"\x1b]2;t\x1b\\", `\x1b]2;t\x1b\`},
		{"\u009b31m 8-bit CSI, \u009d OSC", `\u009b31m 8-bit CSI, \u009d OSC`},
		{"a raw \x9b byte", `a raw \x9b byte`},
		{"done\rpaid", `done\x0dpaid`},
		{"nul \x00 del \x7f", `nul \x00 del \x7f`},
		{"\u202eevil\u202c \u2066iso\u2069 \u200f", `\u202eevil\u202c \u2066iso\u2069 \u200f`},
		{"a real \uFFFD stays", "a real \uFFFD stays"},
	} {
		if got := escapeControls(c.in); got != c.want {
			t.Errorf("escapeControls(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// termSafe says it wrote all it was given, and writes it escaped.
func TestTermSafeWriter(t *testing.T) {
	var b strings.Builder
	n, err := termSafe{&b}.Write([]byte("a\x1b[2Jb"))
	if n != 6 || err != nil || b.String() != `a\x1b[2Jb` {
		t.Fatalf("wrote %d (%v): %q", n, err, b.String())
	}
}
