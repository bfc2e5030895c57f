package eval

import (
	"context"
	"strconv"
	"testing"
	"time"

	"tandem/backend"
	"tandem/internal/cputime"
	"tandem/vphone/vphonetest"
)

// BenchmarkOracleSuite is the whole suite of one seed played by the oracle
// through Tandem's normal runs on two virtual phones at once, as `tandem
// eval --oracle` plays it (issue 47 asks for at most 10 minutes on 2 cores).
// suite-s is the wall time of a suite, cpu-s the process's CPU for it
// (phones and oracle included), success the share of tasks done.
//
//	go test ./eval -run '^$' -bench OracleSuite -benchtime 1x
func BenchmarkOracleSuite(b *testing.B) {
	_, port := vphonetest.StartServer(b)
	tasks, err := Suite(1, Filter{})
	if err != nil {
		b.Fatal(err)
	}
	be := backend.New(backend.Config{ConfigDir: b.TempDir(), DataDir: b.TempDir(), ADB: "127.0.0.1:" + strconv.Itoa(port)})
	defer be.Shutdown()
	ctx := context.Background()
	o, err := StartOracle(ctx, tasks, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer o.Close()
	cfg := Config{Backend: be, ADB: be.ADBAddr(), Phones: 2, Seed: 1, ChoiceFor: func(t Task) backend.RunChoice {
		return backend.RunChoice{Model: &backend.Profile{Name: "oracle", BaseURL: o.BaseURL(), Model: ModelFor(t), Dialect: "tools", UITree: true}, Key: o.Key()}
	}}
	var wall time.Duration
	var cpu time.Duration
	done := 0
	b.ResetTimer()
	for range b.N {
		c0, t0 := cputime.Self(), time.Now()
		rs, err := Run(ctx, cfg, tasks)
		if err != nil {
			b.Fatal(err)
		}
		wall += time.Since(t0)
		cpu += cputime.Self() - c0
		for _, r := range rs {
			if r.Success {
				done++
			}
		}
	}
	b.ReportMetric(wall.Seconds()/float64(b.N), "suite-s")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s")
	b.ReportMetric(float64(done)/float64(b.N*len(tasks)), "success")
	b.ReportMetric(float64(len(tasks)), "tasks")
}
