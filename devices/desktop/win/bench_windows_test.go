//go:build windows

package win

import (
	"context"
	"testing"

	"tandem/engine/action"
)

// BenchmarkDesktopCapture: one full-display capture (kbinani's GDI BitBlt).
func BenchmarkDesktopCapture(b *testing.B) {
	d, err := Open(context.Background(), "desktop:0", Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := d.ScreenshotInto(ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
	s := d.info.Screen
	b.ReportMetric(float64(s.W*s.H), "px/op")
}

// BenchmarkDesktopClick: one tap (move, press, release) into a Win32 window.
func BenchmarkDesktopClick(b *testing.B) {
	d, err := Open(context.Background(), "desktop:0", Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := d.Do(ctx, action.Action{Type: action.Tap, X: 20 + i%50, Y: 20}); err != nil {
			b.Fatal(err)
		}
	}
}
