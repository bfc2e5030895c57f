package desktop

import (
	"context"
	"image"
	"strconv"
	"testing"
	"time"

	"github.com/kbinani/screenshot"

	"tandem/engine/action"
)

// benchDisplay opens a display of w x h: the whole 1920x1080 test screen, or
// a monitor of that size added with xrandr --setmonitor.
func benchDisplay(b *testing.B, w, h int) *Driver {
	b.Helper()
	ctx := context.Background()
	if w != screenW || h != screenH {
		name := "tandem-bench"
		cmd := execIn("xrandr", "--setmonitor", name, strconv.Itoa(w)+"/300x"+strconv.Itoa(h)+"/200+0+0", "none")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("xrandr: %v %s", err, out)
		}
		b.Cleanup(func() { execIn("xrandr", "--delmonitor", name).Run() })
	}
	infos, err := Displays(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for _, in := range infos {
		if in.Screen == (action.Size{W: w, H: h}) {
			d, err := Open(ctx, in.ID, Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { d.Close() })
			return d
		}
	}
	b.Fatalf("no %dx%d display in %+v", w, h, infos)
	return nil
}

var captureSizes = []struct {
	name string
	w, h int
}{{"1920x1080", 1920, 1080}, {"1280x720", 1280, 720}}

// BenchmarkDesktopCapture measures Screenshot, the driver's capture path.
func BenchmarkDesktopCapture(b *testing.B) {
	for _, s := range captureSizes {
		b.Run(s.name, func(b *testing.B) {
			d := benchDisplay(b, s.w, s.h)
			ctx := context.Background()
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				img, err := d.Screenshot(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if img.Bounds().Dx() != s.w {
					b.Fatalf("captured %v", img.Bounds())
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "fps")
		})
	}
}

// BenchmarkKbinaniCapture is kbinani/screenshot.CaptureRect on the same
// rectangles, for comparison with BenchmarkDesktopCapture.
func BenchmarkKbinaniCapture(b *testing.B) {
	for _, s := range captureSizes {
		b.Run(s.name, func(b *testing.B) {
			r := image.Rect(0, 0, s.w, s.h)
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if _, err := screenshot.CaptureRect(r); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "fps")
		})
	}
}

// BenchmarkDesktopClick measures one tap action: exclusion check, takeover
// checks, move, press and release, each synced with the X server.
func BenchmarkDesktopClick(b *testing.B) {
	d := benchDisplay(b, screenW, screenH)
	ctx := context.Background()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if err := d.Do(ctx, action.Action{Type: action.Tap, X: 100 + i%800, Y: 100 + i%600}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/op")
}
