//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Self is the CPU time this process has used so far (getrusage's
// RUSAGE_SELF: every thread, user and system).
func Self() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
