package sim

import "strings"

// Shrink replays a failing seed and looks for a shorter run that breaks
// the same invariant, by editing the seed's tape of choices (see tape):
// cutting its tail, dropping runs of choices, and making single choices
// plainer (0: the oldest item runs next, no fault, the person stops). Each
// candidate is replayed; one that still fails the same way with a shorter
// trace (or as short, with fewer or plainer choices) becomes the new best.
// It stops when no edit helps or after budget replays, and returns the
// shortest run found; ok is false when the seed does not fail. Every
// replay is exact, so Shrink of a seed always ends at the same trace.
func Shrink(seed uint64, opt Options, budget int) (best Outcome, ok bool) {
	best = Simulate(seed, opt)
	if !best.Failed() {
		return best, false
	}
	kind := violationKind(best.Violations[0])
	tries := 0
	try := func(choices []int) bool {
		if tries >= budget {
			return false
		}
		tries++
		o := simulate(seed, replayTape(choices), opt)
		if !o.Failed() || violationKind(o.Violations[0]) != kind || !simpler(o, best) {
			return false
		}
		best = o
		return true
	}
	for improved := true; improved && tries < budget; {
		improved = cutTail(&best, try) || dropRuns(&best, try) || plainer(&best, try)
	}
	return best, true
}

// cutTail tries the tape without its last half, quarter, ..., one choice.
func cutTail(best *Outcome, try func([]int) bool) bool {
	improved := false
	for n := len(best.Choices) / 2; n >= 1; n /= 2 {
		for n <= len(best.Choices) && try(best.Choices[:len(best.Choices)-n]) {
			improved = true
		}
	}
	return improved
}

// dropRuns tries the tape without each run of 8, 4, 2 and 1 choices, from
// the end (late choices matter least to what went before).
func dropRuns(best *Outcome, try func([]int) bool) bool {
	improved := false
	for size := 8; size >= 1; size /= 2 {
		for i := len(best.Choices) - size; i >= 0; i-- {
			c := best.Choices
			if i+size > len(c) {
				continue
			}
			cand := append(append(make([]int, 0, len(c)-size), c[:i]...), c[i+size:]...)
			if try(cand) {
				improved = true
			}
		}
	}
	return improved
}

// plainer tries each choice as 0, then as half of itself.
func plainer(best *Outcome, try func([]int) bool) bool {
	improved := false
	for i := len(best.Choices) - 1; i >= 0; i-- {
		c := best.Choices
		if i >= len(c) || c[i] == 0 {
			continue
		}
		for _, v := range []int{0, c[i] / 2} {
			cand := append([]int(nil), c...)
			cand[i] = v
			if v < c[i] && try(cand) {
				improved = true
				break
			}
		}
	}
	return improved
}

// simpler orders runs: a shorter trace, then fewer choices, then plainer
// ones.
func simpler(a, b Outcome) bool {
	if len(a.Trace) != len(b.Trace) {
		return len(a.Trace) < len(b.Trace)
	}
	if len(a.Choices) != len(b.Choices) {
		return len(a.Choices) < len(b.Choices)
	}
	return sum(a.Choices) < sum(b.Choices)
}

func sum(c []int) int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// violationKind is what a violation is about ("invariant 2", ...): a
// shrunk run must break the same promise, not stumble on another.
func violationKind(v string) string {
	if i := strings.Index(v, ":"); i > 0 {
		return v[:i]
	}
	return v
}
