package screens

import "testing"

func TestXMLEscape(t *testing.T) {
	for in, want := range map[string]string{
		`a&b<c>"d"`:     `a&amp;b&lt;c&gt;&quot;d&quot;`,
		"line1\nline2":  "line1&#10;line2",
		"中文\u00a0space": "中文\u00a0space",
	} {
		if got := xmlEscape(in); got != want {
			t.Errorf("xmlEscape(%q) = %q, want %q", in, got, want)
		}
	}
}
