package screens

import (
	"bytes"
	"fmt"
	"strings"

	"tandem/vphone/render"
)

// dumpXML writes the window as `uiautomator dump` does: one line, no
// trailing newline, attributes in AOSP's order, bounds as [l,t][r,b].
// Bounds are in the display's space: turned with its rotation (w x h is
// the portrait size).
func dumpXML(win *node, pkg string, rot, w, h int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="%d">`, rot)
	dumpNode(&b, win, 0, pkg, rot, w, h)
	b.WriteString(`</hierarchy>`)
	return b.Bytes()
}

func dumpNode(b *bytes.Buffer, n *node, index int, pkg string, rot, w, h int) {
	r := render.RectToDisplay(n.bounds, rot, w, h)
	fmt.Fprintf(b, `<node index="%d" text="%s" resource-id="%s" class="%s" package="%s" content-desc="%s" checkable="%t" checked="%t" clickable="%t" enabled="%t" focusable="%t" focused="%t" scrollable="%t" long-clickable="%t" password="%t" selected="%t" bounds="[%d,%d][%d,%d]"`,
		index, xmlEscape(dumpText(n)), xmlEscape(n.id), xmlEscape(n.class), xmlEscape(pkg), xmlEscape(n.desc),
		n.checkable, n.checked, n.clickable, !n.disabled, n.focusable, n.focused, n.scrollable, n.longClickable,
		n.password, n.selected, r.Min.X, r.Min.Y, r.Max.X, r.Max.Y)
	kids := n.children
	if len(kids) == 0 {
		b.WriteString(" />")
		return
	}
	b.WriteString(">")
	for i, c := range kids {
		dumpNode(b, c, i, pkg, rot, w, h)
	}
	b.WriteString("</node>")
}

// dumpText is what accessibility reports as a view's text: an empty
// EditText reports its hint (Android 8+).
func dumpText(n *node) string {
	if n.value != nil && n.text == "" {
		return n.hint
	}
	return n.text
}

// xmlEscape escapes like KXmlSerializer: markup characters as entities and
// control characters as numeric references.
func xmlEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&quot;")
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "&#%d;", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
