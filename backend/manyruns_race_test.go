//go:build race

package backend

// raceOn: the race detector costs the simulation of several runs several
// times its time, so it runs fewer seeds.
const raceOn = true
