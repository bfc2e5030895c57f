package stream

import (
	"bytes"
	"time"
)

// NAL unit types that matter here.
const (
	nalSlice = 1
	nalIDR   = 5
	nalSEI   = 6
	nalSPS   = 7
	nalPPS   = 8
	nalAUD   = 9
)

// splitter cuts a raw Annex-B byte stream (screenrecord's output) into
// packets: one codec-config packet per SPS/PPS run, and one access unit per
// frame, flagged key when it holds an IDR slice.
//
// A NAL unit is known to be complete only when the next start code arrives,
// which for the last frame of a burst (frames come only on change) could be
// seconds later. So when no byte has arrived for idle, the pending data is
// taken as complete — encoders write each frame in one go. If bytes then
// continue the same NAL unit (the guess was wrong), the frame was already
// sent cut: the splitter drops the rest up to the next start code and
// doubles idle, so a slow link costs latency, not pictures, from then on.
type splitter struct {
	idle time.Duration
	emit func(Packet)

	pending []byte // from the last start code: a NAL unit not yet known complete
	config  []byte // SPS/PPS waiting to be emitted
	au      []byte // NAL units of the current access unit
	slices  bool   // au holds a slice
	key     bool   // au holds an IDR slice
	flushed bool   // the last NAL unit was completed by the idle timer
	skip    bool   // dropping bytes up to the next start code
	size    [2]int // video size from the newest SPS
	cuts    int    // idle guesses that proved wrong
}

func newSplitter(idle time.Duration, emit func(Packet)) *splitter {
	return &splitter{idle: idle, emit: emit}
}

// write takes the next bytes of the stream.
func (s *splitter) write(b []byte) {
	if s.flushed && len(b) > 0 {
		s.flushed = false
		if !startsWithStartCode(b) && len(s.pending) == 0 {
			s.cuts++
			s.idle = min(s.idle*2, 200*time.Millisecond)
			s.skip = true
		}
	}
	if s.skip {
		i := indexStartCode(b)
		if i < 0 {
			return
		}
		s.skip = false
		b = b[i:]
	}
	s.pending = append(s.pending, b...)
	// Complete every NAL unit followed by a start code. Search from 1 so the
	// pending unit's own start code is not found again.
	for {
		if len(s.pending) < 4 {
			return
		}
		body := startCodeLen(s.pending)
		if body == 0 {
			// Junk before the first start code (a shell message): drop it.
			i := indexStartCode(s.pending)
			if i < 0 {
				s.pending = s.pending[:0]
				return
			}
			s.pending = s.pending[i:]
			continue
		}
		i := indexStartCode(s.pending[body:])
		if i < 0 {
			return
		}
		n := body + i
		s.nal(s.pending[:n])
		s.pending = s.pending[n:]
	}
}

// flush takes the pending bytes as a complete NAL unit and emits the access
// unit (no byte arrived for idle).
func (s *splitter) flush() {
	if len(s.pending) > startCodeLen(s.pending) && startCodeLen(s.pending) > 0 {
		s.nal(s.pending)
		s.pending = nil
		s.flushed = true
	}
	s.endAU()
	s.emitConfig()
}

func (s *splitter) emitConfig() {
	if len(s.config) > 0 {
		s.emit(Packet{Config: true, Data: s.config, Width: s.size[0], Height: s.size[1]})
		s.config = nil
	}
}

func (s *splitter) endAU() {
	if s.slices {
		s.emit(Packet{Key: s.key, Data: s.au, Width: s.size[0], Height: s.size[1]})
		s.au, s.slices, s.key = nil, false, false
	}
}

// nal handles one complete NAL unit with its start code.
func (s *splitter) nal(n []byte) {
	n = bytes.Clone(n)
	h := startCodeLen(n)
	if h == 0 || len(n) <= h {
		return
	}
	typ := n[h] & 0x1f
	switch typ {
	case nalSPS, nalPPS:
		s.endAU()
		if typ == nalSPS {
			if w, hh, err := spsSize(n[h:]); err == nil {
				s.size = [2]int{w, hh}
			}
		}
		s.config = append(s.config, n...)
	case nalAUD, nalSEI:
		s.endAU()
		s.au = append(s.au, n...)
	case nalSlice, nalIDR:
		// first_mb_in_slice == 0 (ue(v) "1") starts a new picture.
		if s.slices && len(n) > h+1 && n[h+1]&0x80 != 0 {
			s.endAU()
		}
		s.emitConfig()
		s.au = append(s.au, n...)
		s.slices = true
		s.key = s.key || typ == nalIDR
	default:
		s.au = append(s.au, n...)
	}
}

// startCodeLen is 3 or 4 when b starts with a start code, else 0.
func startCodeLen(b []byte) int {
	switch {
	case len(b) >= 4 && b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] == 1:
		return 4
	case len(b) >= 3 && b[0] == 0 && b[1] == 0 && b[2] == 1:
		return 3
	}
	return 0
}

func startsWithStartCode(b []byte) bool {
	return startCodeLen(b) > 0 || len(b) < 4 && bytes.HasPrefix([]byte{0, 0, 0, 1}, b)
}

// indexStartCode finds the first start code (its leading zero of a 4-byte
// code when there is one).
func indexStartCode(b []byte) int {
	i := bytes.Index(b, []byte{0, 0, 1})
	if i < 0 {
		return -1
	}
	if i > 0 && b[i-1] == 0 {
		return i - 1
	}
	return i
}
