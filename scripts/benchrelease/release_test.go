package benchrelease

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"tandem/internal/modeltest"
)

// tap is the model's every reply: +1 on the counter (its 0-1000 grid), at
// once; --max-steps ends the run.
const tap = `<tool_call>{"name": "tap", "arguments": {"x": 702, "y": 500}}</tool_call>`

// Step counts of a short and a long run: their difference is what the
// extra steps cost, without the start and the end.
const short, long = 5, 25

// task is the step count of the whole task timed from start to end, as a
// person waits for it (issue 48: a 6-step task took 1.6–1.7× 5bde43b's
// time).
const task = 6

// BenchmarkRelease runs `tandem run` headless on one `tandem vphone` (a
// process of its own, so its CPU is not counted) with a model that answers
// at once, for the binary TANDEM_BIN and the previous release's
// TANDEM_OLD_BIN, alternated (old, new, new, old, ...) so both meet the
// same load; each b.N round runs each binary for 5 and 25 steps, without
// and with the run's video, and for a whole 6-step task. It reports the
// medians of CPU (user+sys of the tandem run process) and wall per extra
// step, the task's wall time, and new ÷ old. Without both binaries it is
// skipped.
func BenchmarkRelease(b *testing.B) {
	newBin, oldBin := os.Getenv("TANDEM_BIN"), os.Getenv("TANDEM_OLD_BIN")
	if newBin == "" || oldBin == "" {
		b.Skip("TANDEM_BIN and TANDEM_OLD_BIN name the two binaries (make bench-release)")
	}
	ctx := b.Context()
	model := modeltest.NewFunc(b, func(modeltest.Request) modeltest.Reply { return modeltest.Reply{Content: tap, Chunks: 1} })
	ph := startPhone(ctx, b, newBin)
	bins := []binary{{name: "old", path: oldBin}, {name: "new", path: newBin}}
	b.Logf("load before: %s", loadavg())
	for i := 0; b.Loop(); i++ {
		for k := range bins {
			// ABBA: each binary first in every other round.
			bn := &bins[(k+i)%2]
			for _, video := range []bool{false, true} {
				bn.add(video, ph.perStep(ctx, b, bn.path, model.URL, video))
			}
			for _, video := range []bool{false, true} {
				bn.addTask(video, ph.run(ctx, b, bn.path, model.URL, task, video).wall)
			}
		}
	}
	b.Logf("load after: %s", loadavg())
	for _, video := range []bool{false, true} {
		reportTasks(b, map[bool]string{false: "novideo", true: "video"}[video], bins[0].tasks[video], bins[1].tasks[video])
	}
	for _, video := range []bool{false, true} {
		name := map[bool]string{false: "novideo", true: "video"}[video]
		o, n := bins[0].median(video), bins[1].median(video)
		b.ReportMetric(o.cpu, "old-cpu-ms/step-"+name)
		b.ReportMetric(n.cpu, "new-cpu-ms/step-"+name)
		b.ReportMetric(n.cpu/o.cpu, "cpu-ratio-"+name)
		b.ReportMetric(o.wall, "old-wall-ms/step-"+name)
		b.ReportMetric(n.wall, "new-wall-ms/step-"+name)
		b.ReportMetric(n.wall/o.wall, "wall-ratio-"+name)
	}
}

// cost is one binary's CPU and wall time per extra step, in ms.
type cost struct{ cpu, wall float64 }

type binary struct {
	name, path string
	costs      []struct {
		video bool
		cost
	}
	tasks map[bool][]float64 // the whole task's wall time, ms, a round each, by video
}

func (bn *binary) addTask(video bool, ms float64) {
	if bn.tasks == nil {
		bn.tasks = map[bool][]float64{}
	}
	bn.tasks[video] = append(bn.tasks[video], ms)
}

// reportTasks reports the medians of the whole task's wall time and the
// median of the rounds' new ÷ old (the two ran in the same minutes, so the
// ratio moves less than either). An old binary that keeps no video runs
// the same either way.
func reportTasks(b *testing.B, name string, old, new []float64) {
	var ratios []float64
	for i := range min(len(old), len(new)) {
		ratios = append(ratios, new[i]/old[i])
	}
	for _, xs := range [][]float64{old, new, ratios} {
		slices.Sort(xs)
	}
	b.ReportMetric(old[len(old)/2], "old-task-ms-"+name)
	b.ReportMetric(new[len(new)/2], "new-task-ms-"+name)
	b.ReportMetric(ratios[len(ratios)/2], "task-ratio-"+name)
}

func (bn *binary) add(video bool, c cost) {
	bn.costs = append(bn.costs, struct {
		video bool
		cost
	}{video, c})
}

func (bn *binary) median(video bool) cost {
	var cpu, wall []float64
	for _, c := range bn.costs {
		if c.video == video {
			cpu, wall = append(cpu, c.cpu), append(wall, c.wall)
		}
	}
	slices.Sort(cpu)
	slices.Sort(wall)
	return cost{cpu[len(cpu)/2], wall[len(wall)/2]}
}

// phone is a virtual phone behind a private adb server.
type phone struct {
	port, serial string
	dir          string
}

// startPhone starts an adb server on a free port and bin's virtual phone
// attached to it, on the counter app; both end with the benchmark.
func startPhone(ctx context.Context, b *testing.B, bin string) *phone {
	phones, _ := startPhones(ctx, b, bin, 1)
	return phones[0]
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func (ph *phone) shell(ctx context.Context, b *testing.B, args ...string) {
	cmd := exec.CommandContext(ctx, "adb", append([]string{"-P", ph.port, "-s", ph.serial, "shell"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("adb shell %v: %v: %s", args, err, out)
	}
}

// perStep runs bin for the short and the long run and returns what the
// long one's extra steps cost, a step.
func (ph *phone) perStep(ctx context.Context, b *testing.B, bin, url string, video bool) cost {
	s, l := ph.run(ctx, b, bin, url, short, video), ph.run(ctx, b, bin, url, long, video)
	n := float64(long - short)
	return cost{(l.cpu - s.cpu) / n, (l.wall - s.wall) / n}
}

// run is one headless tandem run of steps taps, its own settings and data
// folders; it returns the process's CPU and wall time in ms.
func (ph *phone) run(ctx context.Context, b *testing.B, bin, url string, steps int, video bool) cost {
	ph.shell(ctx, b, "input", "tap", "540", "1480") // Reset: every run starts from 0
	dir, err := os.MkdirTemp(ph.dir, "run")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	args := []string{"run", "--device", ph.serial, "--goal", "tap +1", "--base-url", url, "--model", "m",
		"--max-steps", strconv.Itoa(steps)}
	if !video && hasFlag(bin, "no-video") {
		args = append(args, "--no-video")
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "TANDEM_ADB_PORT="+ph.port, "TANDEM_CONFIG_DIR="+filepath.Join(dir, "cfg"),
		"TANDEM_DATA_DIR="+filepath.Join(dir, "data"), "XDG_CONFIG_HOME="+filepath.Join(dir, "xdg"))
	t0 := time.Now()
	out, err := cmd.CombinedOutput() // the step budget ends it: exit 1, the empty answer stops
	wall := time.Since(t0)
	if cmd.ProcessState == nil || !strings.Contains(string(out), fmt.Sprintf("step limit (%d)", steps)) {
		b.Fatalf("%s run: %v\n%s", bin, err, out)
	}
	ps := cmd.ProcessState
	return cost{float64((ps.UserTime() + ps.SystemTime()).Microseconds()) / 1000, float64(wall.Microseconds()) / 1000}
}

// hasFlag says whether bin's tandem run has --name (an older release may
// not: 82be534 keeps no video and has no --no-video).
func hasFlag(bin, name string) bool {
	out, _ := exec.Command(bin, "run", "-h").CombinedOutput()
	return strings.Contains(string(out), "-"+name+"\n") || strings.Contains(string(out), "-"+name+" ")
}

func freePort(b *testing.B) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func loadavg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(data))[:3], " ")
}
