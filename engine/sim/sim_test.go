package sim

import (
	"flag"
	"strings"
	"testing"
)

var seeds = flag.Int("seeds", 10000, "how many seeds TestSimulation runs (make sim SEEDS=N)")

// shrinkBudget is how many replays TestSimulation spends shrinking a
// failing seed's reproduction.
const shrinkBudget = 3000

// TestSimulation runs many seeds and fails with the shortest reproduction
// found of the first that breaks an invariant: its trace, which replays
// exactly (SIM_SEED=N go test -run TestShow prints it again).
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
		o, ok := Shrink(s.First.Seed, Options{}, shrinkBudget)
		if !ok {
			t.Fatalf("seed %d failed once and not on its replay: the simulation is not deterministic\n%s", s.First.Seed, *s.First)
		}
		t.Fatalf("%d of %d runs broke an invariant; the first, seed %d, had a trace of %d lines; shrunk:\n%s",
			s.Failed, s.Runs, s.First.Seed, len(s.First.Trace), o)
	}
}

// pinnedSeeds are fresh seeds, past the ones TestSimulation draws, that
// once broke an invariant: each runs on every test, so a defect found at
// one run in many thousands stays fixed (the engine's own test of each
// names its seed).
var pinnedSeeds = []uint64{
	712157, // invariant 5: the person's edit, taken while an action ran, dropped by the loop nudge
	26193,  // invariant 4: the call adopted from a glimpse began after a take over (cancelled from a goroutine, late)
}

// TestPinnedSeeds: every pinned seed keeps every promise.
func TestPinnedSeeds(t *testing.T) {
	for _, seed := range pinnedSeeds {
		if o := Simulate(seed, Options{}); o.Failed() {
			t.Errorf("seed %d:\n%s", seed, o)
		}
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

// TestCrashesAreResumed: the seeds that crash do crash, and the runs
// resumed from the copied record go on to act on the phone, so invariant 6
// is checked on runs that did something after their resume.
func TestCrashesAreResumed(t *testing.T) {
	n := uint64(300)
	if raceOn {
		n = 100
	}
	crashed, acted := 0, 0
	for seed := uint64(8); seed <= 8*n; seed += 8 {
		o := Simulate(seed, Options{})
		if o.Failed() {
			t.Fatalf("%s", o)
		}
		after := false
		for _, line := range o.Trace {
			if strings.Contains(line, "resumed the crashed run") {
				after = true
				crashed++
			}
			if after && strings.HasPrefix(line, "device: ") && strings.Contains(line, "person false") {
				acted++
				break
			}
		}
	}
	t.Logf("%d seeds that may crash: %d resumes, %d resumed runs acted", n, crashed, acted)
	if crashed < int(n/15) || acted < int(n/30) {
		t.Errorf("too few crashes resumed (%d) or resumed runs that acted (%d) to check anything", crashed, acted)
	}
}
