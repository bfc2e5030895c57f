package sim

import "math/rand/v2"

// tape is every choice a simulated run makes, in the order it makes them:
// which waiting item the scheduler runs next, what the person does and
// when, what the model replies, which faults the phone has. Drawn from the
// seed, or replayed from a list (a shrunk reproduction); past the end of a
// replayed list every choice is 0, the plainest one (the oldest item runs
// next, no fault, the person stops), so a shorter list is a shorter run.
type tape struct {
	rng    *rand.Rand // nil: replaying
	replay []int
	used   []int // the choices made, each as a number below its range
}

func newTape(seed uint64) *tape { return &tape{rng: rand.New(rand.NewPCG(seed, 0x7a9e))} }

func replayTape(choices []int) *tape { return &tape{replay: choices} }

// IntN is a choice among n (n > 0).
func (t *tape) IntN(n int) int {
	var v int
	switch i := len(t.used); {
	case t.rng != nil:
		v = t.rng.IntN(n)
	case i < len(t.replay):
		v = t.replay[i] % n
	}
	t.used = append(t.used, v)
	return v
}

// chance is true with probability p; the choice 0 is false.
func (t *tape) chance(p float64) bool {
	const scale = 1 << 20
	if p <= 0 {
		return false
	}
	return t.IntN(scale) >= scale-int(p*scale)
}
