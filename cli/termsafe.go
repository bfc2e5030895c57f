package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// termSafe writes what a model or a phone said to a terminal without
// letting any of it command the terminal. A reply is the model's, not the
// terminal's: ESC starts sequences that clear the screen, set the window
// title (OSC), move the cursor or recolour (CSI), and some terminals answer
// or act on them; a bare carriage return overwrites the line already
// printed; the 8-bit C1 controls (U+0080–U+009F, CSI among them) do the same
// on terminals that read them; bidirectional overrides make text read
// other than it is. Each such character is shown escaped (\x1b, \x0d,
// \u009b, \u202e), and a byte that is not UTF-8 as \xNN;
// everything else (newlines, tabs, Chinese, emoji and their joiners) passes
// as it is. Escaping C1 and bidi characters as \uNNNN also keeps a line
// of JSON valid, saying the same string.
type termSafe struct{ w io.Writer }

func (t termSafe) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.w, escapeControls(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// escapeControls returns s with every character a terminal would act on
// escaped (see termSafe).
func escapeControls(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x20 && r != '\n' && r != '\t', r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// needsEscape reports whether s holds anything escapeControls changes.
func needsEscape(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			return true
		}
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || unsafeRune(r) {
			return true
		}
	}
	return false
}

// unsafeRune: the C1 controls, and the characters that reorder text
// (Unicode's bidi embeddings, overrides and isolates, and the marks).
func unsafeRune(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) ||
		r == 0x200e || r == 0x200f || r == 0x061c
}
