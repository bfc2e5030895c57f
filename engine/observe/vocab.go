package observe

import (
	_ "embed"
	"encoding/binary"
	"math"
)

// o200kTable is the o200k_base vocabulary in a pointer-free form, written by
// `go test ./engine/observe -run VocabTable -update-vocab` from
// github.com/tiktoken-go/tokenizer's (TestVocabTable checks it is the same).
// The library keeps its vocabulary as a map of 200,000 strings for the life
// of the process once loaded, and the garbage collector walked its 7 MB at
// every cycle, about one a step (issue 48); these bytes are in the binary's
// read-only data, never scanned, shared by every counter.
//
// Layout, little-endian uint32 words then bytes: n (ids), s (slots, a power
// of two), n+1 offsets of each id's bytes, s slots of an open-addressed
// hash (id+1; 0 is empty), then the tokens' bytes one after another.
//
//go:embed o200k.bin
var o200kTable []byte

// vocab looks up a token's rank (its id) by its bytes, in a table such as
// o200kTable.
type vocab struct {
	n, mask uint32
	offsets []byte // n+1 uint32
	slots   []byte // mask+1 uint32
	bytes   []byte
}

func newVocab(b []byte) vocab {
	n := binary.LittleEndian.Uint32(b)
	s := binary.LittleEndian.Uint32(b[4:])
	at := 8 + 4*(int(n)+1)
	end := at + 4*int(s)
	return vocab{n: n, mask: s - 1, offsets: b[8:at], slots: b[at:end], bytes: b[end:]}
}

// hashToken is 32-bit FNV-1a: the same at build and run time, unlike maphash.
func hashToken(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// token returns id's bytes.
func (v vocab) token(id uint32) []byte {
	from := binary.LittleEndian.Uint32(v.offsets[4*id:])
	to := binary.LittleEndian.Uint32(v.offsets[4*id+4:])
	return v.bytes[from:to]
}

// rank returns the token s's id, or noRank when s is no token.
func (v vocab) rank(s string) uint32 {
	for h := hashToken(s) & v.mask; ; h = (h + 1) & v.mask {
		slot := binary.LittleEndian.Uint32(v.slots[4*h:])
		if slot == 0 {
			return noRank
		}
		if t := v.token(slot - 1); string(t) == s {
			return slot - 1
		}
	}
}

// buildVocab writes the table of tokens (by id; an empty one is no token).
func buildVocab(tokens [][]byte) []byte {
	s := uint32(1)
	for s < 2*uint32(len(tokens)) {
		s <<= 1
	}
	var size int
	for _, t := range tokens {
		size += len(t)
	}
	n := uint32(len(tokens))
	out := make([]byte, 8+4*(int(n)+1)+4*int(s), 8+4*(int(n)+1)+4*int(s)+size)
	binary.LittleEndian.PutUint32(out, n)
	binary.LittleEndian.PutUint32(out[4:], s)
	slots := out[8+4*(n+1):]
	var off uint32
	for id, t := range tokens {
		binary.LittleEndian.PutUint32(out[8+4*id:], off)
		off += uint32(len(t))
		out = append(out, t...)
		if len(t) == 0 {
			continue
		}
		h := hashToken(string(t)) & (s - 1)
		for binary.LittleEndian.Uint32(slots[4*h:]) != 0 {
			h = (h + 1) & (s - 1)
		}
		binary.LittleEndian.PutUint32(slots[4*h:], uint32(id)+1)
	}
	binary.LittleEndian.PutUint32(out[8+4*n:], off)
	return out
}

// noRank marks a pair that does not merge (or a piece that is no token).
const noRank = math.MaxUint32

// bpeCount is the number of tokens byte-pair encoding splits piece into:
// the leftmost pair of lowest rank merges first, as tiktoken does (ported
// from github.com/tiktoken-go/tokenizer's codec, MIT: a scan for short
// pieces, a heap for long ones, both the same merges).
func (v vocab) bpeCount(piece string) int {
	if v.rank(piece) != noRank {
		return 1
	}
	if len(piece) < mergeHeapThreshold {
		return v.mergeScan(piece)
	}
	return v.mergeHeap(piece)
}

// mergeHeapThreshold is the piece length from which mergeHeap is used.
const mergeHeapThreshold = 96

type part struct {
	offset int
	rank   uint32
}

func (v vocab) mergeScan(piece string) int {
	var buf [mergeHeapThreshold + 1]part
	parts := buf[:len(piece)+1]
	for i := range parts {
		parts[i] = part{i, noRank}
	}
	rankAt := func(i, skip int) uint32 {
		if i+skip+2 < len(parts) {
			return v.rank(piece[parts[i].offset:parts[i+skip+2].offset])
		}
		return noRank
	}
	for i := 0; i < len(parts)-2; i++ {
		parts[i].rank = rankAt(i, 0)
	}
	for len(parts) > 1 {
		least, at := uint32(noRank), 0
		for i, p := range parts[:len(parts)-1] {
			if p.rank < least {
				least, at = p.rank, i
			}
		}
		if least == noRank {
			break
		}
		parts[at].rank = rankAt(at, 1)
		if at > 0 {
			parts[at-1].rank = rankAt(at-1, 1)
		}
		parts = append(parts[:at+1], parts[at+2:]...)
	}
	return len(parts) - 1
}
