package sim

import (
	"os"
	"strconv"
	"testing"
)

// TestShow prints one seed's outcome (SIM_SEED=N), shrunk when it fails,
// for reproducing a failure.
func TestShow(t *testing.T) {
	s, err := strconv.ParseUint(os.Getenv("SIM_SEED"), 10, 64)
	if err != nil {
		t.Skip("SIM_SEED not set")
	}
	o := Simulate(s, Options{})
	if m, ok := Shrink(s, Options{}, shrinkBudget); ok {
		t.Logf("as drawn, a trace of %d lines; shrunk:", len(o.Trace))
		o = m
	}
	t.Log(o)
}
