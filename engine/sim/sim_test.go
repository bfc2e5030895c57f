package sim

import (
	"flag"
	"testing"
)

var seeds = flag.Int("seeds", 10000, "how many seeds TestSimulation runs (make sim SEEDS=N)")

// TestSimulation runs many seeds and fails with a minimal reproduction of
// the first that breaks an invariant.
func TestSimulation(t *testing.T) {
	n := *seeds
	if testing.Short() {
		n = min(n, 500)
	}
	if raceOn {
		n = min(n, 1000)
	}
	s := Many(1, n, Options{})
	t.Logf("%d runs, %d invariant checks in %s", s.Runs, s.Checks, s.Elapsed)
	if s.First != nil {
		o, ok := Minimize(s.First.Seed, Options{}, 5)
		if !ok {
			o = *s.First
		}
		t.Fatalf("%d of %d runs broke an invariant; first:\n%s", s.Failed, s.Runs, o)
	}
}

func BenchmarkSimulation(b *testing.B) {
	var checks int64
	seed := uint64(1)
	for b.Loop() {
		o := Simulate(seed, Options{})
		checks += o.Checks
		seed++
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)/sec, "runs/s")
	b.ReportMetric(float64(checks)/sec, "invariant-checks/s")
}
