//go:build !amd64 || purego

package engine

// lumsSIMD does nothing here: FingerprintOf's loop takes every sample.
func lumsSIMD([]uint32, []uint8, int) int { return 0 }
