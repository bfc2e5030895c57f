package observe

// mergeNode is a part boundary in mergeHeap's doubly linked list; rank is
// that of the token this part and the next would merge into.
type mergeNode struct {
	prev, next int32
	rank       uint32
}

type mergeCandidate struct {
	rank   uint32
	offset int32
}

// mergeHeap counts the same parts as mergeScan in O(n log n), for long
// pieces.
func (v vocab) mergeHeap(piece string) int {
	n := int32(len(piece))
	nodes := make([]mergeNode, n+1)
	for i := range nodes {
		nodes[i] = mergeNode{prev: int32(i) - 1, next: int32(i) + 1, rank: noRank}
	}
	nodes[n].next = -1
	rankOf := func(i int32) uint32 {
		j := nodes[i].next
		if j < 0 {
			return noRank
		}
		k := nodes[j].next
		if k < 0 {
			return noRank
		}
		return v.rank(piece[i:k])
	}
	h := make(candidates, 0, n)
	for i := int32(0); i+2 <= n; i++ {
		if r := rankOf(i); r != noRank {
			nodes[i].rank = r
			h = append(h, mergeCandidate{r, i})
		}
	}
	h.init()
	for len(h) > 0 {
		top := h.pop()
		i := top.offset
		if nodes[i].rank != top.rank {
			continue
		}
		j := nodes[i].next
		k := nodes[j].next
		nodes[j].rank = noRank
		nodes[i].next = k
		if k >= 0 {
			nodes[k].prev = i
		}
		for _, b := range [2]int32{i, nodes[i].prev} {
			if b < 0 {
				continue
			}
			if nodes[b].rank = rankOf(b); nodes[b].rank != noRank {
				h.push(mergeCandidate{nodes[b].rank, b})
			}
		}
	}
	parts := 0
	for i := int32(0); i >= 0; i = nodes[i].next {
		parts++
	}
	return parts - 1
}

// candidates is a binary min-heap by rank, then offset: among equal ranks
// the leftmost pair merges first.
type candidates []mergeCandidate

func (h candidates) less(a, b int) bool {
	if h[a].rank != h[b].rank {
		return h[a].rank < h[b].rank
	}
	return h[a].offset < h[b].offset
}

func (h candidates) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *candidates) push(c mergeCandidate) {
	*h = append(*h, c)
	h.up(len(*h) - 1)
}

func (h *candidates) pop() mergeCandidate {
	old := *h
	top := old[0]
	last := len(old) - 1
	old[0] = old[last]
	*h = old[:last]
	h.down(0)
	return top
}

func (h candidates) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (h candidates) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
