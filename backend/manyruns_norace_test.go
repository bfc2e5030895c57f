//go:build !race

package backend

const raceOn = false
