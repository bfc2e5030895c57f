//go:build race

package sim

// raceOn: under the race detector a run costs several times as much, so
// the gate runs fewer seeds (make sim runs any number).
const raceOn = true
