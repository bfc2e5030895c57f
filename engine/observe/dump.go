package observe

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Reading a uiautomator dump: the XML into a flat list of nodes.

// parseDump reads the XML into a flat node list with child indices.
func parseDump(dump []byte) (nodes []node, roots []int, rotation int, err error) {
	if len(dump) > MaxDumpBytes {
		return nil, nil, 0, fmt.Errorf("%w: larger than %d MiB (the compressor's bound)", ErrNotDump, MaxDumpBytes>>20)
	}
	d := xml.NewDecoder(bytes.NewReader(dump))
	d.Entity = xml.HTMLEntity
	d.CharsetReader = func(charset string, r io.Reader) (io.Reader, error) {
		if strings.EqualFold(charset, "utf-8") || strings.EqualFold(charset, "utf8") {
			return r, nil
		}
		return nil, fmt.Errorf("charset %q", charset)
	}
	var stack []int // open <node> indices; -1 marks a foreign element
	sawHierarchy, depth := false, 0
	for {
		tok, terr := d.Token()
		if errors.Is(terr, io.EOF) {
			break
		}
		if terr != nil {
			return nil, nil, 0, fmt.Errorf("%w: %v", ErrNotDump, terr)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth > MaxDepth+1 { // +1: the <hierarchy> element
				return nil, nil, 0, fmt.Errorf("%w: nested deeper than %d levels (the compressor's bound)", ErrNotDump, MaxDepth)
			}
			switch {
			case depth == 1:
				if t.Name.Local != "hierarchy" {
					return nil, nil, 0, fmt.Errorf("%w: root element is <%s>, want <hierarchy>", ErrNotDump, t.Name.Local)
				}
				sawHierarchy = true
				for _, a := range t.Attr {
					if a.Name.Local == "rotation" {
						rotation, _ = strconv.Atoi(strings.TrimSpace(a.Value))
					}
				}
			case t.Name.Local == "node" && (len(stack) == 0 || stack[len(stack)-1] >= 0):
				if len(nodes) >= maxNodes {
					return nil, nil, 0, fmt.Errorf("%w: more than %d nodes", ErrNotDump, maxNodes)
				}
				nodes = append(nodes, readNode(t.Attr))
				idx := len(nodes) - 1
				if len(stack) == 0 {
					roots = append(roots, idx)
				} else {
					p := stack[len(stack)-1]
					nodes[p].children = append(nodes[p].children, idx)
				}
				stack = append(stack, idx)
			default:
				stack = append(stack, -1)
			}
		case xml.EndElement:
			depth--
			if depth >= 1 && len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	if !sawHierarchy {
		return nil, nil, 0, fmt.Errorf("%w: no <hierarchy> element", ErrNotDump)
	}
	if depth != 0 {
		return nil, nil, 0, fmt.Errorf("%w: truncated XML", ErrNotDump)
	}
	return nodes, roots, rotation, nil
}

func readNode(attrs []xml.Attr) node {
	n := node{enabled: true}
	for _, a := range attrs {
		v := a.Value
		switch a.Name.Local {
		case "text":
			n.text = v
		case "content-desc":
			n.desc = v
		case "hint":
			n.hint = v
		case "resource-id":
			n.rid = v
		case "class":
			n.class = v
		case "package":
			n.pkg = v
		case "clickable":
			n.clickable = v == "true"
		case "long-clickable":
			n.longClickable = v == "true"
		case "scrollable":
			n.scrollable = v == "true"
		case "editable":
			n.editable = n.editable || v == "true"
		case "checkable":
			n.checkable = v == "true"
		case "checked":
			n.checked = v == "true"
		case "enabled":
			n.enabled = v != "false"
		case "password":
			n.password = v == "true"
		case "bounds":
			n.bounds, n.hasBounds = parseBounds(v)
		}
	}
	if strings.Contains(n.class, "EditText") {
		n.editable = true
	}
	return n
}

// parseBounds reads "[l,t][r,b]".
func parseBounds(s string) (image.Rectangle, bool) {
	var v [4]int
	k := 0
	for i := 0; i < len(s) && k < 4; {
		c := s[i]
		if c == '-' || (c >= '0' && c <= '9') {
			j := i + 1
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			x, err := strconv.Atoi(s[i:j])
			if err != nil || x > 1<<24 || x < -(1<<24) {
				return image.Rectangle{}, false
			}
			v[k] = x
			k++
			i = j
			continue
		}
		i++
	}
	if k != 4 {
		return image.Rectangle{}, false
	}
	return image.Rect(v[0], v[1], v[2], v[3]), true
}

// clean normalizes whitespace (U+00A0 included), drops control characters
// and invalid UTF-8.
func clean(s string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			continue
		case unicode.IsSpace(r) || r == '\u00a0' || r == '\u200b':
			space = b.Len() > 0
			continue
		case unicode.IsControl(r):
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
