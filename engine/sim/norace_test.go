//go:build !race

package sim

const raceOn = false
