package cputime

import (
	"testing"
	"time"
)

// Work on this goroutine shows in Self, and Self never goes back.
func TestSelfCountsThisProcesssWork(t *testing.T) {
	start := Self()
	sum := 0
	for deadline := time.Now().Add(10 * time.Second); Self()-start < 20*time.Millisecond; {
		if time.Now().After(deadline) {
			t.Fatalf("10 s of a busy loop added %v of CPU", Self()-start)
		}
		for i := range 1_000_000 {
			sum += i
		}
	}
	if sum == 0 || Self() < start {
		t.Fatal("the CPU time went back")
	}
}
