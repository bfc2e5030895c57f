package stream_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"tandem/mirror/stream"
	"tandem/vphone"
)

// BenchmarkScrcpyVersions is the scrcpy path with each scrcpy-server
// release the mirror speaks, on the virtual phone behind the real adb
// server (720x1600, video 800 px high). first-frame-ms: from Open (push,
// start, handshake) to the first key frame, median over b.N opens; fps:
// frames while the animation runs, over one second. "hidden" is a jar
// whose release cannot be read from it: the one refusal it costs is in
// its first-frame-ms.
func BenchmarkScrcpyVersions(b *testing.B) {
	for _, v := range append(supported, "hidden") {
		b.Run(v, func(b *testing.B) {
			p, o := setup(b)
			if v == "hidden" {
				o.ScrcpyJar = fakeJar(b)
				p.SetScrcpyVersion("3.1")
			} else {
				o.ScrcpyJar = jarOf(b, v)
			}
			if err := p.Launch(vphone.PkgAnim); err != nil {
				b.Fatal(err)
			}
			lat := make([]float64, 0, b.N)
			for b.Loop() {
				t0 := time.Now()
				src, c := open(b, o)
				c.waitFor(b, 20*time.Second, "the first key frame", func(ps []stream.Packet) bool { return frames(ps) > 0 })
				lat = append(lat, float64(time.Since(t0).Microseconds())/1000)
				src.Close()
			}
			b.StopTimer()
			src, c := open(b, o)
			defer src.Close()
			c.waitFor(b, 20*time.Second, "the first key frame", func(ps []stream.Packet) bool { return frames(ps) > 0 })
			r, _ := p.Bounds("start")
			m := r.Min.Add(r.Max).Div(2)
			p.Tap(m.X, m.Y) // 1.5 s of animation
			n0, t0 := frames(c.packets0()), time.Now()
			deadline := t0.Add(time.Second)
			for time.Now().Before(deadline) {
				_, ch := c.snapshot()
				select {
				case <-ch:
				case <-time.After(time.Until(deadline)):
				}
			}
			fps := float64(frames(c.packets0())-n0) / time.Since(t0).Seconds()
			sort.Float64s(lat)
			b.ReportMetric(lat[len(lat)/2], "first-frame-ms")
			b.ReportMetric(fps, "fps")
		})
	}
}

// open opens the scrcpy path (failing on any other) and collects packets.
func open(b *testing.B, o stream.Options) (stream.Source, *collector) {
	b.Helper()
	c := newCollector()
	src, why, err := stream.Open(context.Background(), o, c.emit)
	if err != nil || src.Path() != stream.PathScrcpy {
		b.Fatalf("path %v (%s) %v", src, why, err)
	}
	return src, c
}
