package adb

import (
	"context"
	"testing"
	"time"

	"tandem/engine/action"
	"tandem/vphone"
)

// The benchmarks run through a private adb server to the virtual phone, so
// they measure this driver plus adb's transport, not a real phone's
// screencap or uiautomator (which dominate on hardware: see adb.md §6).

func benchDevice(b *testing.B) *Device {
	b.Helper()
	r := startPhone(b, vphone.WithSize(1080, 2400))
	if err := r.phone.Launch(vphone.PkgCounter); err != nil {
		b.Fatal(err)
	}
	return r.dev
}

func reportMs(b *testing.B, start time.Time) {
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/op")
}

func BenchmarkScreenshot(b *testing.B) {
	d := benchDevice(b)
	ctx := context.Background()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := d.Screenshot(ctx); err != nil {
			b.Fatal(err)
		}
	}
	reportMs(b, start)
}

func BenchmarkUITree(b *testing.B) {
	d := benchDevice(b)
	ctx := context.Background()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := d.UITree(ctx); err != nil {
			b.Fatal(err)
		}
	}
	reportMs(b, start)
}

func BenchmarkTap(b *testing.B) {
	d := benchDevice(b)
	ctx := context.Background()
	a := action.Action{Type: action.Tap, X: 540, Y: 600} // the counter's value: a tap that changes nothing
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if err := d.Do(ctx, a); err != nil {
			b.Fatal(err)
		}
	}
	reportMs(b, start)
}
