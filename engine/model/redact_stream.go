package model

import (
	"unicode/utf8"
)

// maskedDeltas masks the key in a reply as it streams in, before a piece
// reaches the person (the UI's live thought, `tandem run --json`, the
// record). Everything Redact masks (the key, a piece of it, a masked form)
// is a run of bytes the key, its tokens and masks are made of; any other
// byte (a space, a quote, a newline, a Chinese character) ends every match.
// So the text up to the last such byte is final and is passed on, masked
// as Redact masks it; only the run after it is held back, until the next
// such byte or the reply's end. What is passed on, joined, is exactly
// Redact of the whole reply, and each byte is judged once.
type maskedDeltas struct {
	key     string
	out     func(string)
	pending []byte    // the held-back run
	part    [256]bool // the bytes a match can be made of
}

// newMaskedDeltas passes the pieces written to it on to out with the key
// masked; nil when out is nil.
func newMaskedDeltas(key string, out func(string)) *maskedDeltas {
	if out == nil {
		return nil
	}
	m := &maskedDeltas{key: key, out: out}
	for c := range 256 {
		m.part[c] = keyChar(byte(c)) || c == '*' || c == '.'
	}
	for _, c := range []byte(key + "…") { // letters are keyChars in either case

		m.part[c] = true
	}
	return m
}

// write takes the next piece of the reply.
func (m *maskedDeltas) write(d string) {
	if m == nil || d == "" {
		return
	}
	if len(m.key) < 4 { // too short to be masked (Redact)
		m.out(d)
		return
	}
	old := len(m.pending)
	m.pending = append(m.pending, d...)
	// Only the new bytes can hold a break: the run held back had none.
	for p := len(m.pending) - 1; p >= old && p > 0; p-- {
		if c := m.pending[p]; !m.part[c] && utf8.RuneStart(c) {
			m.pass(p)
			return
		}
	}
}

// end passes on what was held back: the reply is complete.
func (m *maskedDeltas) end() {
	if m != nil {
		m.pass(len(m.pending))
	}
}

// reset forgets the reply: the attempt failed and the next one starts it
// over. What was held back of it is dropped.
func (m *maskedDeltas) reset() {
	if m != nil {
		m.pending = m.pending[:0]
	}
}

// pass passes on the first n bytes held back, masked.
func (m *maskedDeltas) pass(n int) {
	if n == 0 {
		return
	}
	s := Redact(string(m.pending[:n]), m.key)
	m.pending = append(m.pending[:0], m.pending[n:]...)
	m.out(s)
}
