package backend

import (
	"syscall"
	"testing"
	"time"
)

// BenchmarkMirrorDesktopIdle: a 1920x1080 display that does not change,
// mirrored through the feed and the mirror server to a WebSocket client.
// cpu-percent is this process's CPU time (user and system, every goroutine:
// capture, comparison, masking, server, client) over wall time, in percent
// of one core, once the first frame has arrived (median of b.N seconds).
func BenchmarkMirrorDesktopIdle(b *testing.B) {
	needFFmpeg(b)
	m, _ := desktopMirror(b, 1920, 1080)
	m.next(b, 10*time.Second)
	per := make([]float64, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c0, t0 := cpuTime(b), time.Now()
		if !m.quiet(time.Second) {
			b.Fatal("a frame of a static screen")
		}
		per = append(per, 100*(cpuTime(b)-c0).Seconds()/time.Since(t0).Seconds())
	}
	b.ReportMetric(median(per), "cpu-percent")
}

// cpuTime is the CPU time this process has used so far.
func cpuTime(tb testing.TB) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
