package model

import (
	"strings"
)

// Redacted is what a key, or a piece of one, is replaced with.
const Redacted = "[redacted]"

// fragmentMin is the shortest piece of a key that counts as a leak: servers
// echo "the first 16–20 characters", a lowercased key, or a masked form.
const fragmentMin = 6

// fragmentKeyMin is the shortest key whose pieces are redacted. Shorter
// "keys" are placeholders local servers accept ("none", "EMPTY", "ollama");
// redacting their pieces would eat ordinary words, and they guard nothing.
const fragmentKeyMin = 12

// Redact returns s with the key and anything that gives part of it away
// replaced by [redacted]:
//   - the key itself (any key of 4 or more characters);
//   - any run of 6 or more characters that is a piece of the key, in any
//     case (a server's "Incorrect API key provided: sk-proj-abcdefgh…",
//     a lowercased echo);
//   - a masked form: a key's start and/or end around a mask of stars, dots
//     or an ellipsis ("sk-abc...xyz", "sk-abcd****wxyz").
//
// Keys are ASCII; s may be any UTF-8: the scan lowercases ASCII letters
// only, so byte offsets line up.
func Redact(s, key string) string {
	if len(key) < 4 || s == "" {
		return s
	}
	s = strings.ReplaceAll(s, key, Redacted)
	if len(key) < fragmentKeyMin {
		return s
	}
	lk := lowerASCII(key)
	ls := lowerASCII(s)
	cut := make([]bool, len(s)) // bytes to replace
	hit := false
	pieces := make(map[string]struct{}, len(lk))
	for i := 0; i+fragmentMin <= len(lk); i++ {
		pieces[lk[i:i+fragmentMin]] = struct{}{}
	}
	for i := 0; i+fragmentMin <= len(ls); i++ {
		if _, ok := pieces[ls[i:i+fragmentMin]]; ok {
			for j := i; j < i+fragmentMin; j++ {
				cut[j] = true
			}
			hit = true
		}
	}
	if masked(ls, lk, cut) {
		hit = true
	}
	if !hit {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if !cut[i] {
			b.WriteByte(s[i])
			i++
			continue
		}
		b.WriteString(Redacted)
		for i < len(s) && cut[i] {
			i++
		}
	}
	return b.String()
}

// masked marks in cut every masked form of the key in ls: a mask ("**",
// "...", "…", "xxxx"-free to keep words intact) with, before it, a token
// ending in 3+ characters that start the key, or after it, a token
// starting with 3+ characters that end the key. It reports whether it
// marked any.
func masked(ls, lk string, cut []bool) bool {
	found := false
	for i := 0; i < len(ls); {
		m := maskLen(ls[i:])
		if m == 0 {
			i++
			continue
		}
		// The token before the mask and the one after it.
		a := i
		for a > 0 && keyChar(ls[a-1]) {
			a--
		}
		e := i + m
		for e < len(ls) && keyChar(ls[e]) {
			e++
		}
		before, after := ls[a:i], ls[i+m:e]
		if (len(before) >= 3 && strings.HasPrefix(lk, before)) || (len(after) >= 3 && strings.HasSuffix(lk, after)) ||
			(len(before) >= 2 && len(after) >= 2 && strings.HasPrefix(lk, before) && strings.HasSuffix(lk, after)) {
			for j := a; j < e; j++ {
				cut[j] = true
			}
			found = true
		}
		i += m
	}
	return found
}

// maskLen is the length of the mask at the start of s: two or more stars,
// three or more dots, or one or more ellipses.
func maskLen(s string) int {
	n := 0
	switch {
	case strings.HasPrefix(s, "**"):
		for n < len(s) && s[n] == '*' {
			n++
		}
	case strings.HasPrefix(s, "..."):
		for n < len(s) && s[n] == '.' {
			n++
		}
	case strings.HasPrefix(s, "…"):
		for strings.HasPrefix(s[n:], "…") {
			n += len("…")
		}
	}
	return n
}

// keyChar: the characters API keys are made of.
func keyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
