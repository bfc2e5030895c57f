//go:build windows

package cputime

import (
	"syscall"
	"time"
)

// Self is the CPU time this process has used so far (GetProcessTimes:
// kernel and user).
func Self() time.Duration {
	h, err := syscall.GetCurrentProcess()
	if err != nil {
		return 0
	}
	var created, exited, kernel, user syscall.Filetime
	if err := syscall.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0
	}
	return ticks(kernel) + ticks(user)
}

// ticks is a FILETIME read as a length of time (its 100 ns units), not a
// date (Filetime.Nanoseconds counts from the Unix epoch).
func ticks(f syscall.Filetime) time.Duration {
	return time.Duration(int64(f.HighDateTime)<<32|int64(f.LowDateTime)) * 100
}
