package benchrelease

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"tandem/internal/modeltest"
)

// fourSteps is each run's steps in BenchmarkFourRelease.
const fourSteps = 25

// BenchmarkFourRelease is issue 48's "four phones at the pace of one"
// through the door a person uses: `tandem run --device` with one phone,
// then with four at once (one process, four runs), each phone a `tandem
// vphone` process of its own behind one private adb server, the model
// answering at once. Rounds alternate one and four (ABBA). It reports the
// medians of the wall time a step (the model's own time is nil, so this is
// the framework's), four against one (step-ratio), the process's CPU a
// step, and the process memory an extra device costs: the maximum resident
// set of four runs less that of one, over three. Beside it, the CPU the
// phones' processes and the adb server spent a step (phones-cpu-ms and
// adb-cpu-ms, from /proc), so the floor of the wall time on this machine's
// cores can be told from time lost to waiting on each other. TANDEM_BIN
// names the binary (make bench-four).
func BenchmarkFourRelease(b *testing.B) {
	bin := os.Getenv("TANDEM_BIN")
	if bin == "" {
		b.Skip("TANDEM_BIN names the binary (make bench-four)")
	}
	ctx := b.Context()
	model := modeltest.NewFunc(b, func(modeltest.Request) modeltest.Reply { return modeltest.Reply{Content: tap, Chunks: 1} })
	phones, others := startPhones(ctx, b, bin, 4)
	var wall1, wall4, cpu1, cpu4, rss1, rss4, ph1, ph4, adb1, adb4 []float64
	b.Logf("load before: %s", loadavg())
	for i := 0; b.Loop(); i++ {
		for k := range 2 {
			n := []int{1, 4}[(k+i)%2]
			p0, a0 := others.phones(), others.adb()
			c := runMany(ctx, b, bin, model.URL, phones[:n])
			per := float64(n * fourSteps)
			ph, adb := (others.phones()-p0)/per, (others.adb()-a0)/per
			if n == 1 {
				wall1, cpu1, rss1 = append(wall1, c.wall/fourSteps), append(cpu1, c.cpu/per), append(rss1, c.rssMB)
				ph1, adb1 = append(ph1, ph), append(adb1, adb)
			} else {
				wall4, cpu4, rss4 = append(wall4, c.wall/fourSteps), append(cpu4, c.cpu/per), append(rss4, c.rssMB)
				ph4, adb4 = append(ph4, ph), append(adb4, adb)
			}
		}
	}
	b.Logf("load after: %s", loadavg())
	b.ReportMetric(med(wall1), "wall-ms/step-1")
	b.ReportMetric(med(wall4), "wall-ms/step-4")
	b.ReportMetric(med(wall4)/med(wall1), "step-ratio")
	b.ReportMetric(med(cpu1), "cpu-ms/step-1")
	b.ReportMetric(med(cpu4), "cpu-ms/step-4")
	b.ReportMetric(med(ph1), "phones-cpu-ms/step-1")
	b.ReportMetric(med(ph4), "phones-cpu-ms/step-4")
	b.ReportMetric(med(adb1), "adb-cpu-ms/step-1")
	b.ReportMetric(med(adb4), "adb-cpu-ms/step-4")
	b.ReportMetric(med(rss1), "rss-mb-1")
	b.ReportMetric(med(rss4), "rss-mb-4")
	b.ReportMetric((med(rss4)-med(rss1))/3, "mb/extra-device")
}

func med(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// manyCost is one tandem run process: wall and CPU in ms, max RSS in MB.
type manyCost struct{ wall, cpu, rssMB float64 }

// helpers are the processes beside tandem run: the phones and the adb
// server.
type helpers struct{ phonePIDs, adbPID []int }

func (h helpers) phones() float64 { return cpuMs(h.phonePIDs) }
func (h helpers) adb() float64    { return cpuMs(h.adbPID) }

// cpuMs is the user and system time of the processes so far, in ms
// (/proc/PID/stat's utime and stime, in clock ticks of 10 ms).
func cpuMs(pids []int) float64 {
	var ticks float64
	for _, pid := range pids {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		// The fields after the command's closing parenthesis: utime is the
		// 12th of them, stime the 13th.
		f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseFloat(f[11], 64)
		st, _ := strconv.ParseFloat(f[12], 64)
		ticks += u + st
	}
	return ticks * 10
}

// startPhones starts an adb server on a free port and n of bin's virtual
// phones attached to it, each on the counter app; all end with b.
func startPhones(ctx context.Context, b *testing.B, bin string, n int) ([]*phone, helpers) {
	adb, err := exec.LookPath("adb")
	if err != nil {
		b.Skip("no adb (scripts/setup.sh installs it)")
	}
	port, dir := strconv.Itoa(freePort(b)), b.TempDir()
	srv := exec.CommandContext(ctx, adb, "-P", port, "nodaemon", "server")
	srv.Env = append(os.Environ(), "ADB_LOCAL_TRANSPORT_MAX_PORT=0")
	if err := srv.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	var out []*phone
	h := helpers{adbPID: []int{srv.Process.Pid}}
	for range n {
		vp := exec.CommandContext(ctx, bin, "vphone", "--adb-port", port)
		stdout, err := vp.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := vp.Start(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = vp.Process.Kill(); _ = vp.Wait() })
		h.phonePIDs = append(h.phonePIDs, vp.Process.Pid)
		r := bufio.NewReader(stdout)
		line, err := r.ReadString('\n') // its address, the serial the adb server lists
		if err != nil {
			b.Fatalf("tandem vphone: %v", err)
		}
		ph := &phone{port: port, serial: strings.TrimSpace(line), dir: dir}
		if err := exec.CommandContext(ctx, adb, "-P", port, "-s", ph.serial, "wait-for-device").Run(); err != nil {
			b.Fatalf("adb wait-for-device: %v", err)
		}
		go func() { _, _ = r.WriteTo(discard{}) }()
		ph.shell(ctx, b, "monkey", "-p", "com.tandem.counter", "-c", "android.intent.category.LAUNCHER", "1")
		out = append(out, ph)
	}
	return out, h
}

// runMany is one headless `tandem run` of fourSteps taps on each of
// phones at once, without the runs' videos.
func runMany(ctx context.Context, b *testing.B, bin, url string, phones []*phone) manyCost {
	dir, err := os.MkdirTemp(phones[0].dir, "run")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	args := []string{"run", "--goal", "tap +1", "--base-url", url, "--model", "m", "--max-steps", strconv.Itoa(fourSteps), "--no-video"}
	for _, ph := range phones {
		ph.shell(ctx, b, "input", "tap", "540", "1480") // Reset: every run starts from 0
		args = append(args, "--device", ph.serial)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "TANDEM_ADB_PORT="+phones[0].port, "TANDEM_CONFIG_DIR="+filepath.Join(dir, "cfg"),
		"TANDEM_DATA_DIR="+filepath.Join(dir, "data"), "XDG_CONFIG_HOME="+filepath.Join(dir, "xdg"))
	t0 := time.Now()
	out, err := cmd.CombinedOutput() // the step budget ends each run
	wall := time.Since(t0)
	if cmd.ProcessState == nil || strings.Count(string(out), "step limit ("+strconv.Itoa(fourSteps)+")") < len(phones) {
		b.Fatalf("%s run: %v\n%s", bin, err, out)
	}
	ps := cmd.ProcessState
	ru, _ := ps.SysUsage().(*syscall.Rusage)
	rss := 0.0
	if ru != nil {
		rss = float64(ru.Maxrss) / 1024 // kB on Linux
	}
	return manyCost{float64(wall.Microseconds()) / 1000, float64((ps.UserTime() + ps.SystemTime()).Microseconds()) / 1000, rss}
}
