package sim

import (
	"os"
	"sort"
	"strings"
	"testing"
)

// TestCensus lists which invariants break and the first seed of each
// (SIM_CENSUS=N to run; a tool for finding defects, not a gate).
func TestCensus(t *testing.T) {
	n := 0
	for _, c := range os.Getenv("SIM_CENSUS") {
		n = n*10 + int(c-'0')
	}
	if n == 0 {
		t.Skip("SIM_CENSUS not set")
	}
	first := map[string]uint64{}
	count := map[string]int{}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		for _, v := range Simulate(seed, Options{}).Violations {
			k := v
			if i := strings.Index(v, ":"); i > 0 {
				k = v[:i]
			}
			if len(k) > 60 {
				k = k[:60]
			}
			if _, ok := first[k]; !ok {
				first[k] = seed
			}
			count[k]++
		}
	}
	keys := make([]string, 0, len(first))
	for k := range first {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%5d  first seed %5d  %s", count[k], first[k], k)
	}
}
