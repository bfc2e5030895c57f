package engine

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"tandem/engine/action"
	"tandem/engine/model"
	"tandem/engine/model/dialect"
	"tandem/engine/model/modeltest"
)

// These benchmarks run on the in-package fake phone and scripted planner
// (not yet through the real adb server); see the package's report.

func pct(ds []time.Duration, p float64) float64 {
	slices.Sort(ds)
	i := int(float64(len(ds)-1) * p)
	return float64(ds[i].Microseconds()) / 1000
}

// BenchmarkStopLatency: Stop while a model call is in flight against a real
// local chat-completions server that holds its reply for 10 s.
func BenchmarkStopLatency(b *testing.B) {
	srv := modeltest.NewFunc(b, func(modeltest.Request) modeltest.Reply {
		return modeltest.Reply{Delay: 10 * time.Second, Content: "late"}
	})
	c, err := model.NewClient(model.ClientConfig{BaseURL: srv.URL, Model: "scripted", Retries: -1})
	if err != nil {
		b.Fatal(err)
	}
	d, err := dialect.New("tools", "rel1000")
	if err != nil {
		b.Fatal(err)
	}
	var ds []time.Duration
	for i := 0; i < b.N; i++ {
		phone := newFakePhone()
		r, err := New(Config{Goal: "wait", Device: phone, Planner: model.NewPlanner(c, d, model.PlannerOptions{})})
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		// Let the request reach the server.
		deadline := time.Now().Add(5 * time.Second)
		for len(srv.Requests()) <= i && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		t0 := time.Now()
		if err := r.Stop(context.Background()); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
		<-r.Done()
	}
	b.ReportMetric(pct(ds, 0.5), "p50-ms")
	b.ReportMetric(pct(ds, 0.99), "p99-ms")
}

func BenchmarkPauseLatency(b *testing.B) {
	var ds []time.Duration
	for i := 0; i < b.N; i++ {
		f := newFixture(b, Settings{}, blockUntilCancel)
		f.plan.started = make(chan int, 2)
		f.start()
		<-f.plan.started
		t0 := time.Now()
		if err := f.run.Pause(context.Background()); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
		_ = f.run.Stop(context.Background())
		<-f.run.Done()
	}
	b.ReportMetric(pct(ds, 0.99), "p99-ms")
}

func BenchmarkFormScenario(b *testing.B) {
	var calls, acts int
	for i := 0; i < b.N; i++ {
		typ := func(s string) action.Action { return action.Action{Type: action.TypeText, Text: s} }
		f := newFixture(b, Settings{}, reply(tap(100, 320), typ("Ann"), tap(100, 350), typ("Lee"), tap(100, 380), typ("a@b.c"), finish("form filled")))
		f.start()
		res := f.wait()
		calls += res.Calls
		acts += res.Steps
	}
	b.ReportMetric(float64(calls)/float64(acts), "calls/action")
}

func BenchmarkStabilityWait(b *testing.B) {
	p := newFakePhone()
	var extra, static []time.Duration
	for i := 0; i < b.N; i++ {
		p.mu.Lock()
		p.animUntil = time.Now().Add(600 * time.Millisecond)
		p.mu.Unlock()
		s, err := WaitStable(context.Background(), p.Screenshot, DefaultStability)
		if err != nil {
			b.Fatal(err)
		}
		extra = append(extra, s.Waited-600*time.Millisecond)
		s, err = WaitStable(context.Background(), p.Screenshot, DefaultStability)
		if err != nil {
			b.Fatal(err)
		}
		static = append(static, s.Waited)
	}
	b.ReportMetric(pct(extra, 0.5), "extra-ms")
	b.ReportMetric(pct(static, 0.5), "wait-ms")
}

// longRun runs steps taps, one model call each, and reports per-step time,
// heap and record size.
func longRun(b *testing.B, steps int, stab StabilityConfig) (msPerStep, heapMB, kbPerStep float64) {
	script := make([]step, 0, steps+1)
	for j := 0; j < steps; j++ {
		script = append(script, reply(tapNav))
	}
	script = append(script, reply(finish("done")))
	f := newFixture(b, Settings{Stability: stab, LoopK: 1 << 20}, script...)
	t0 := time.Now()
	f.start()
	f.wait()
	el := time.Since(t0)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var size int64
	_ = filepath.Walk(filepath.Join(f.dir, "run1"), func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			size += info.Size()
		}
		return nil
	})
	return float64(el.Milliseconds()) / float64(steps), float64(ms.HeapAlloc) / (1 << 20), float64(size) / 1024 / float64(steps)
}

func BenchmarkStepOverhead(b *testing.B) {
	var ms float64
	for i := 0; i < b.N; i++ {
		// A static screen settles after one interval; subtract it as the
		// screen's own settle cost is not engine overhead.
		m, _, _ := longRun(b, 20, StabilityConfig{Interval: 20 * time.Millisecond, StableFrames: 2, Max: time.Second})
		ms += m - 20
	}
	b.ReportMetric(ms/float64(b.N), "ms/step")
}

func BenchmarkLongRun(b *testing.B) {
	var heap, kb float64
	for i := 0; i < b.N; i++ {
		_, h, k := longRun(b, 200, StabilityConfig{Interval: 5 * time.Millisecond, StableFrames: 2, Max: time.Second})
		heap, kb = max(heap, h), max(kb, k)
	}
	b.ReportMetric(heap, "heap-mb")
	b.ReportMetric(kb, "record-kb/step")
}
