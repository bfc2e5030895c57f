package backend

import (
	"flag"
	"os"
	"slices"
	"strconv"
	"testing"
)

var manySeeds = flag.Int("manyseeds", 100, "how many seeds TestManyRunsOnePerson runs (make sim SEEDS=N)")

// TestManyRunsOnePerson: 2 to 4 runs in one backend and one person acting
// on their tiles, many seeds; a failing seed is printed with its trace
// and replays (TestManyRunsShow).
func TestManyRunsOnePerson(t *testing.T) {
	n := *manySeeds
	if testing.Short() {
		n = min(n, 40)
	}
	if raceOn {
		n = min(n, 15)
	}
	checks, notes, acts := 0, 0, map[string]int{}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		o := simulateMany(seed, manyOptions{})
		if o.failed() {
			t.Fatalf("%s", o)
		}
		checks += o.checks
		notes += o.notes
		for k, v := range o.acts {
			acts[k] += v
		}
	}
	t.Logf("%d seeds, %d checks, %d notifications; accepted acts: %v", n, checks, notes, acts)
	if notes < n {
		t.Errorf("only %d notifications in %d seeds: invariant 5 hardly checks anything", notes, n)
	}
	// The checks saw each kind of act go through, not only refusals.
	for _, k := range []string{"start", "tap", "drag", "type", "confirm", "deny", "answer", "pause", "resume", "take_over", "hand_back", "stop", "stop_after"} {
		if acts[k] < n/20 {
			t.Errorf("only %d accepted %s in %d seeds: the simulation hardly checks it", acts[k], k, n)
		}
	}
}

// TestManyRunsPlantedFaultsAreCaught: a backend that routes the person's
// input to another phone's desk, or a command to another run (a
// confirmation, a pause, a stop), breaks the invariants within a few
// seeds, each the invariant it should.
func TestManyRunsPlantedFaultsAreCaught(t *testing.T) {
	seeds := uint64(40)
	if raceOn {
		seeds = 24
	}
	plants := map[string][]string{"wrong-desk": {"invariant 1"}, "wrong-run": {"invariant 2", "invariant 3"}, "note-wrong-phone": {"invariant 5"}}
	for plant, want := range plants {
		caught, first := 0, map[string]string{}
		for seed := uint64(1); seed <= seeds; seed++ {
			o := simulateMany(seed, manyOptions{plant: plant})
			if !o.failed() {
				continue
			}
			caught++
			v := o.violations[0]
			inv := v[:min(len(v), len("invariant 1"))]
			if !slices.Contains(want, inv) {
				t.Errorf("%s: seed %d broke something else: %s", plant, seed, v)
			}
			if _, ok := first[inv]; !ok {
				first[inv] = v
				t.Logf("%s: seed %d: %s", plant, seed, v)
			}
		}
		t.Logf("%s: caught in %d of %d seeds", plant, caught, seeds)
		if caught < int(seeds)/4 {
			t.Errorf("%s: the planted fault broke only %d of %d seeds", plant, caught, seeds)
		}
		for _, inv := range want {
			if first[inv] == "" {
				t.Errorf("%s: %s never caught it", plant, inv)
			}
		}
	}
}

// TestManyRunsReplays: a seed is one interleaving: run twice, it makes the
// same trace.
func TestManyRunsReplays(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		a, b := simulateMany(seed, manyOptions{}), simulateMany(seed, manyOptions{})
		if !slices.Equal(a.trace, b.trace) {
			for i := range min(len(a.trace), len(b.trace)) {
				if a.trace[i] != b.trace[i] {
					t.Fatalf("seed %d differs at line %d:\n%s\n%s", seed, i, a.trace[i], b.trace[i])
				}
			}
			t.Fatalf("seed %d: %d lines, then %d", seed, len(a.trace), len(b.trace))
		}
	}
}

// TestManyRunsShow prints the trace of MANYRUNS_SEED.
func TestManyRunsShow(t *testing.T) {
	v := os.Getenv("MANYRUNS_SEED")
	if v == "" {
		t.Skip("MANYRUNS_SEED is not set")
	}
	seed, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", simulateMany(seed, manyOptions{plant: os.Getenv("MANYRUNS_PLANT")}))
}
