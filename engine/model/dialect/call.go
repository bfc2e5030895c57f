package dialect

import (
	"strings"
	"unicode"
)

// call is one function-call-like text: name(key=value, ...).
type call struct {
	name string
	args map[string]string
	pos  []string // positional values, in order
}

// scanCalls reads consecutive calls from s, separated by white space. It
// returns what it read and the index of the first byte it could not read.
// A quoted value ends at a matching quote followed by "," + next key or by
// the closing ")" — so unescaped inner quotes survive (AutoGLM's
// `text="去哪里"吃饭"呀？"`) — and backslash escapes are honoured.
func scanCalls(s string) ([]call, int) {
	var out []call
	i := 0
	for {
		i = skipSpace(s, i)
		if i >= len(s) {
			return out, i
		}
		c, next, ok := scanCall(s, i)
		if !ok {
			return out, i
		}
		out = append(out, c)
		i = next
	}
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t') {
		i++
	}
	return i
}

func isIdent(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// scanCall reads one call starting at i.
func scanCall(s string, i int) (call, int, bool) {
	j := i
	for j < len(s) && isIdent(s[j]) {
		j++
	}
	if j == i || j >= len(s) || s[j] != '(' {
		return call{}, 0, false
	}
	c := call{name: s[i:j], args: map[string]string{}}
	j++
	for {
		j = skipSpace(s, j)
		if j >= len(s) {
			return call{}, 0, false
		}
		if s[j] == ')' {
			return c, j + 1, true
		}
		// key=
		key := ""
		k := j
		for k < len(s) && isIdent(s[k]) {
			k++
		}
		if k2 := skipSpace(s, k); k > j && k2 < len(s) && s[k2] == '=' {
			key = s[j:k]
			j = skipSpace(s, k2+1)
		}
		if j >= len(s) {
			return call{}, 0, false
		}
		val, next, ok := scanValue(s, j)
		if !ok {
			return call{}, 0, false
		}
		if key == "" {
			c.pos = append(c.pos, val)
		} else {
			c.args[key] = val
		}
		j = skipSpace(s, next)
		if j < len(s) && s[j] == ',' {
			j++
		}
	}
}

// scanValue reads a quoted string, a [list] or a bare word.
func scanValue(s string, i int) (string, int, bool) {
	switch q := s[i]; q {
	case '\'', '"':
		for k := i + 1; k < len(s); k++ {
			if s[k] == '\\' {
				k++
				continue
			}
			if s[k] != q || !endsValue(s, k+1) {
				continue
			}
			return unescape(s[i+1:k], q), k + 1, true
		}
		return "", 0, false
	case '[', '(':
		close := byte(']')
		if q == '(' {
			close = ')'
		}
		k := strings.IndexByte(s[i:], close)
		if k < 0 {
			return "", 0, false
		}
		return s[i : i+k+1], i + k + 1, true
	}
	k := i
	for k < len(s) && s[k] != ',' && s[k] != ')' {
		k++
	}
	if k >= len(s) {
		return "", 0, false
	}
	return strings.TrimSpace(s[i:k]), k, true
}

// endsValue reports whether a quote at i-1 closes a value: what follows is
// ")" or "," then a key "name=" (or the end of the argument list).
func endsValue(s string, i int) bool {
	i = skipSpace(s, i)
	if i >= len(s) {
		return false
	}
	if s[i] == ')' {
		return true
	}
	if s[i] != ',' {
		return false
	}
	i = skipSpace(s, i+1)
	k := i
	for k < len(s) && isIdent(s[k]) {
		k++
	}
	if k == i {
		return i < len(s) && s[i] == ')'
	}
	k = skipSpace(s, k)
	return k < len(s) && s[k] == '='
}

// unescape undoes Python-style escapes: \' \" \\ \n \t.
func unescape(v string, _ byte) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' || i+1 == len(v) {
			b.WriteByte(v[i])
			continue
		}
		i++
		switch v[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '\'', '"', '\\':
			b.WriteByte(v[i])
		default:
			b.WriteByte('\\')
			b.WriteByte(v[i])
		}
	}
	return b.String()
}

// cut removes every <tag>…</tag> block from s and returns the blocks' inner
// texts; an unclosed opening tag takes the rest of s.
func cutTag(s, open, close string) (rest string, inner []string) {
	for {
		i := strings.Index(s, open)
		if i < 0 {
			return s, inner
		}
		j := strings.Index(s[i+len(open):], close)
		if j < 0 {
			inner = append(inner, s[i+len(open):])
			return s[:i], inner
		}
		inner = append(inner, s[i+len(open):i+len(open)+j])
		s = s[:i] + "\n" + s[i+len(open)+j+len(close):]
	}
}

func trimSpaceAll(s string) string { return strings.TrimFunc(s, unicode.IsSpace) }
