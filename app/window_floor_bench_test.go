package app

import (
	"context"
	"image"
	"io"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"tandem/internal/xvfb"

	"github.com/jezek/xgb"
)

// BenchmarkWindowFloor measures the least a Wails window on WebKitGTK takes
// to show a change (testdata/floorwindow: one box of a page, coloured by an
// event, with Tandem's window settings), the way BenchmarkWindowPause
// measures Tandem's: event-to-pixel from the moment the event is sent to
// the window's process until the X server shows the colour; web-cpu-ms and
// app-cpu-ms the page's and the window process's CPU a change. Beside
// BenchmarkWindowPause at the same load it tells what Tandem's page costs
// from what the platform does.
//
//	go test -tags webkit2_41 -run '^$' -bench WindowFloor -benchtime 40x ./app
func BenchmarkWindowFloor(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "floorwindow")
	build := exec.Command("go", "build", "-tags", "desktop,production,webkit2_41", "-o", bin, "./testdata/floorwindow")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building the floor window: %v\n%s", err, out)
	}
	d := xvfb.Start(b, 1280, 820)
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = d.Env()
	var logs lockedBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close() })
	x, err := xgb.NewConnDisplay(d.Name)
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	s := &benchWindow{b: b, d: d, logs: &logs, pid: cmd.Process.Pid, changes: watchScreen(b, x)}
	box := image.Rect(20, 20, 180, 80)
	shows := func() bool { return countWarn(b, x, box) > 1000 }
	tell := func(colour string) {
		if _, err := io.WriteString(in, colour+"\n"); err != nil {
			b.Fatalf("to the floor window: %v\n%s", err, logs.String())
		}
	}

	// Until its page is up, ask again now and then.
	for deadline := time.Now().Add(3 * time.Minute); !shows(); time.Sleep(500 * time.Millisecond) { // polling the screen until the page is up
		if time.Now().After(deadline) {
			b.Fatalf("the floor window never showed its page\n%s", logs.String())
		}
		tell("#c98a0b")
	}
	tell("#fff")
	s.until(shows, false)

	var event []float64
	web0, app0 := s.webCPU(), procCPU(s.pid)
	for b.Loop() {
		for _, c := range []struct {
			colour string
			want   bool
		}{{"#c98a0b", true}, {"#fff", false}} {
			t0 := time.Now()
			tell(c.colour)
			event = append(event, ms(s.until(shows, c.want).Sub(t0)))
		}
	}
	if n := float64(len(event)); n > 0 {
		b.ReportMetric(percentile(event, 50), "event-to-pixel-ms-p50")
		b.ReportMetric(percentile(event, 100), "event-to-pixel-ms-max")
		b.ReportMetric(ms(s.webCPU()-web0)/n, "web-cpu-ms")
		b.ReportMetric(ms(procCPU(s.pid)-app0)/n, "app-cpu-ms")
		b.ReportMetric(load1(), "load")
	}
}
