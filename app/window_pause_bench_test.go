package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tandem/backend"
	"tandem/internal/modeltest"
	"tandem/internal/uicheck"
	"tandem/internal/xvfb"
	"tandem/vphone"
	"tandem/vphone/vphonetest"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/damage"
	"github.com/jezek/xgb/xfixes"
	"github.com/jezek/xgb/xproto"
	openai "github.com/sashabaranov/go-openai"
)

// BenchmarkWindowPause measures how soon the production window answers the
// person and shows the engine's state, while the model streams its reply a
// few characters at a time (hundreds of thought events a second, the flood
// a real reply makes). With the run thinking on the virtual phone, xdotool
// presses Space; the screen is read until
//
//   - the control bar's status dot turns the pause colour (the pending
//     "Pausing…" or Paused itself): click-to-pixel-ms, from just before
//     xdotool starts;
//   - the pause panel's heading shows (the Paused state itself):
//     click-to-state-ms from the same moment, and event-to-pixel-ms from the
//     Paused state's time in the run's record (the engine's event);
//
// engine-ms is from the click to that event. Space again resumes; the
// panel going is timed from the record's Planning (event-to-pixel too).
// load is the machine's one-minute load average at the end.
//
// The screen is read when the X server says it changed (screenChanges),
// not every 2 ms: that polling cost the benchmark 2–4 ms of CPU a state
// change on an idle machine and up to 13 on a busy one, where it shares the
// window's part of the CPU (the kernel's autogroup gives each session one).
// bench-cpu-ms is the benchmark process's CPU a state change: the virtual
// phone, the model server and the reading. draws is how often the screen
// changed a state change (countDraws): the click's answer and the state
// itself make two.
//
//	TANDEM_BIN=build/bin/tandem go test -tags webkit2_41 -run '^$' -bench WindowPause -benchtime 10x ./app
func BenchmarkWindowPause(b *testing.B) {
	b.Run("quiet", func(b *testing.B) { benchPause(b, false, 0) })
	b.Run("streaming", func(b *testing.B) { benchPause(b, true, 0) })
	// long: the same as quiet after 40 steps, their cards and pictures in
	// the Steps list (the page's work for an event must not grow with
	// the run).
	b.Run("long", func(b *testing.B) { benchPause(b, false, 40) })
}

// BenchmarkWindowWatching measures what the production window costs the
// machine while the person watches and nothing changes: the CPU of its
// page and of the app a second, over 10 s a round, while the model thinks
// about a task on the virtual phone (thinking; thinking-long after eight
// steps, its Steps list scrolling), while that run is paused (paused-long),
// and while the window is the bar of a task on this computer (bar). Every
// change on screen is a repaint in software, so an animation pays this on
// each of its frames.
// draws-per-s is how often the screen changed: the X server's reports of
// a change, each cleared at once (a drawing may make more than one).
//
//	TANDEM_BIN=build/bin/tandem go test -tags webkit2_41 -run '^$' -bench WindowWatching -benchtime 2x ./app
func BenchmarkWindowWatching(b *testing.B) {
	b.Run("thinking", func(b *testing.B) {
		w := startBenchWindow(b, false, 0)
		watchCPU(b, w.pid, w.d.Name)
	})
	// After eight steps, their cards filling more than the Steps list
	// shows: it scrolls (WebKitGTK's overlay scrollbars faded out on each
	// tick, 60 frames a second, before 2026-11-28).
	b.Run("thinking-long", func(b *testing.B) {
		w := startBenchWindow(b, false, 8)
		watchCPU(b, w.pid, w.d.Name)
	})
	b.Run("paused-long", func(b *testing.B) {
		w := startBenchWindow(b, false, 8)
		w.xdo("key", "space")
		w.awaitRecord("Paused", 1)
		watchCPU(b, w.pid, w.d.Name)
	})
	b.Run("bar", func(b *testing.B) {
		w := startBar(b)
		watchCPU(b, w.pid, w.s.d.Name)
	})
}

// watchCPU reports the CPU a second of window process pid and its page,
// and how often the screen of display changed.
func watchCPU(b *testing.B, pid int, display string) {
	const span = 10 * time.Second
	draws := countDraws(b, display)
	var web, app time.Duration
	var drawn int64
	rounds := 0
	for b.Loop() {
		w0, a0, d0 := pageCPU(pid), procCPU(pid), draws.Load()
		time.Sleep(span) // the span measured: the window is left alone
		web, app, drawn = web+pageCPU(pid)-w0, app+procCPU(pid)-a0, drawn+draws.Load()-d0
		rounds++
	}
	if rounds > 0 {
		secs := span.Seconds() * float64(rounds)
		b.ReportMetric(ms(web)/secs, "web-cpu-ms-per-s")
		b.ReportMetric(ms(app)/secs, "app-cpu-ms-per-s")
		b.ReportMetric(float64(drawn)/secs, "draws-per-s")
	}
}

// countDraws counts the changes to display's screen from now on: each
// report of the X server's, cleared at once so that the next change makes
// the next report.
func countDraws(tb testing.TB, display string) *atomic.Int64 {
	tb.Helper()
	x, err := xgb.NewConnDisplay(display)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(x.Close)
	c := watchScreen(tb, x)
	var n atomic.Int64
	go func() {
		for range c.changed {
			n.Add(1)
			c.rearm()
		}
	}()
	return &n
}

func benchPause(b *testing.B, streaming bool, steps int) {
	s := startBenchWindow(b, streaming, steps)
	x, err := xgb.NewConnDisplay(s.d.Name)
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	s.changes = watchScreen(b, x)
	// The footer's left part, where the control bar's status dot is; the
	// right column's top, where the pause panel's heading shows (the
	// timeline's person entries below, with the same colour, stay out).
	// Small, so that reading them every 2 ms costs the X server little.
	dot := image.Rect(0, s.d.Height*93/100, s.d.Width/4, s.d.Height)
	panel := image.Rect(s.d.Width*70/100, s.d.Height*9/100, s.d.Width, s.d.Height*15/100)
	baseDot, basePanel := countWarn(b, x, dot), countWarn(b, x, panel)
	shows := func(r image.Rectangle, base int) func() bool {
		return func() bool { return countWarn(b, x, r) >= base+12 }
	}
	var m pauseFigures
	draws := countDraws(b, s.d.Name)
	cpu0, ui0, self0, changes := s.webCPU(), procCPU(s.pid), procCPU(os.Getpid()), 0
	draws0 := draws.Load()
	for i := 0; b.Loop(); i++ {
		changes += 2
		t0 := time.Now()
		s.xdo("key", "space")
		m.pending = append(m.pending, ms(s.until(shows(dot, baseDot), true).Sub(t0)))
		seen := s.until(shows(panel, basePanel), true)
		m.state = append(m.state, ms(seen.Sub(t0)))
		at := s.awaitRecord("Paused", i+1)
		m.engine = append(m.engine, ms(at.Sub(t0)))
		m.event = append(m.event, ms(seen.Sub(at)))
		s.xdo("key", "space")
		gone := s.until(shows(panel, basePanel), false)
		m.event = append(m.event, ms(gone.Sub(s.awaitRecord("Planning", steps+i+2))))
		s.until(shows(dot, baseDot), false)
	}
	if changes > 0 {
		m.draws = float64(draws.Load()-draws0) / float64(changes)
		m.cpu = ms(s.webCPU()-cpu0) / float64(changes)
		m.uiCPU = ms(procCPU(s.pid)-ui0) / float64(changes)
		m.selfCPU = ms(procCPU(os.Getpid())-self0) / float64(changes)
	}
	m.report(b)
}

// procStat returns the fields of /proc/<pid>/stat after the command
// (state, ppid, … utime is the 12th of them, stime the 13th) and the
// command (a thread's name: its last 15 characters).
func procStat(pid string) (comm string, fields []string, ok bool) {
	raw, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	i, j := bytes.IndexByte(raw, '('), bytes.LastIndexByte(raw, ')')
	if err != nil || i < 0 || j < i {
		return "", nil, false
	}
	fields = strings.Fields(string(raw[j+1:]))
	return string(raw[i+1 : j]), fields, len(fields) >= 13
}

// cpuOf is the CPU time (user and system, all threads) of a process's stat fields.
func cpuOf(fields []string) time.Duration {
	u, _ := strconv.ParseInt(fields[11], 10, 64)
	st, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(u+st) * 10 * time.Millisecond // USER_HZ: 100 on Linux
}

// pageProcs lists the pids of pid's page processes (WebKitWebProcess).
func pageProcs(pid int) []string { return children(pid, "WebKitWebProces") }

// children lists the pids of pid's child processes named comm (its first
// 15 characters).
func children(pid int, comm string) []string {
	procs, _ := os.ReadDir("/proc")
	var out []string
	for _, p := range procs {
		if c, f, ok := procStat(p.Name()); ok && c == comm && f[1] == strconv.Itoa(pid) {
			out = append(out, p.Name())
		}
	}
	return out
}

// procCPU is the CPU time process pid has used so far (all its threads).
func procCPU(pid int) time.Duration {
	if _, f, ok := procStat(strconv.Itoa(pid)); ok {
		return cpuOf(f)
	}
	return 0
}

// webCPU is the CPU time the window's page (its WebKitWebProcess) has
// used so far.
func (s *benchWindow) webCPU() time.Duration { return pageCPU(s.pid) }

// pageCPU is the CPU time the page processes of window process pid have
// used so far.
func pageCPU(pid int) time.Duration {
	var d time.Duration
	for _, p := range pageProcs(pid) {
		if _, f, ok := procStat(p); ok {
			d += cpuOf(f)
		}
	}
	return d
}

// startBenchWindow starts the production window on a virtual phone with a
// model that holds its reply after one chunk, or (streaming) streams it two
// characters a chunk for a minute, and starts a run: it returns once the
// run is thinking. With steps, the model first opens the Counter app and
// presses +1, that many steps in all. extraEnv goes to the window's
// environment.
func startBenchWindow(b testing.TB, streaming bool, steps int, extraEnv ...string) *benchWindow {
	bin := productionBinary(b, "xdotool", "import")
	phone, env := vphonetest.Start(b)
	flood := strings.Repeat("Looking at the screen for the launcher. ", 1000)
	var asked atomic.Int32
	srv := modeltest.NewFunc(b, func(modeltest.Request) modeltest.Reply {
		if int(asked.Add(1)) <= steps {
			if phone.State().Foreground != vphone.PkgCounter {
				return modeltest.Reply{Content: "Open the counter.", ToolCalls: []openai.ToolCall{call("launch", `{"app":"Counter"}`)}}
			}
			w, h := phone.Size()
			if b, ok := phone.BoundsOfText("+1"); ok {
				c := b.Min.Add(b.Max).Div(2)
				return modeltest.Reply{Content: "Press +1.", ToolCalls: []openai.ToolCall{call("tap", fmt.Sprintf(`{"x":%d,"y":%d}`, c.X*1000/w, c.Y*1000/h))}}
			}
		}
		if !streaming {
			return modeltest.Reply{Content: "Looking at the screen…", Chunks: 2, Hold: true, HoldAfter: 1}
		}
		return modeltest.Reply{Content: flood, Chunks: len(flood) / 2, ChunkDelay: 3 * time.Millisecond, Hold: true, HoldAfter: len(flood) / 2}
	})
	cfg, data := b.TempDir(), b.TempDir()
	seedProfile(b, cfg, data, srv.URL)

	d := xvfb.Start(b, 1280, 820)
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(d.Env(), "TANDEM_CONFIG_DIR="+cfg, "TANDEM_DATA_DIR="+data, "LANG=en_US.UTF-8",
		"TANDEM_ADB_PORT="+strconv.Itoa(env.Port), "ADB_LOCAL_TRANSPORT_MAX_PORT=0")
	cmd.Env = append(cmd.Env, extraEnv...)
	var logs lockedBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	s := &benchWindow{b: b, d: d, logs: &logs, runs: filepath.Join(data, "runs"), pid: cmd.Process.Pid}
	s.await("the window", func(img image.Image) bool { return uicheck.LooksLikeTandem(img) })
	s.focus()
	s.xdo("type", "--delay", "15", "Wait on the launcher")
	s.xdo("key", "ctrl+Return")
	s.awaitRecord("Planning", steps+1)
	return s
}

// pauseFigures are one benchmark's samples, in milliseconds.
type pauseFigures struct {
	pending, state, engine, event []float64
	cpu                           float64 // the page's CPU ms a state change
	uiCPU                         float64 // the app process's (Go and the window's GTK side)
	selfCPU                       float64 // the benchmark's own (the phone, the model, reading the screen)
	draws                         float64 // the screen's changes a state change
}

func (m pauseFigures) report(b *testing.B) {
	for _, f := range []struct {
		name string
		v    []float64
	}{{"click-to-pixel", m.pending}, {"click-to-state", m.state}, {"engine", m.engine}, {"event-to-pixel", m.event}} {
		b.ReportMetric(percentile(f.v, 50), f.name+"-ms-p50")
		b.ReportMetric(slices.Max(append([]float64{0}, f.v...)), f.name+"-ms-max")
	}
	b.ReportMetric(m.cpu, "web-cpu-ms")
	b.ReportMetric(m.uiCPU, "app-cpu-ms")
	b.ReportMetric(m.selfCPU, "bench-cpu-ms")
	b.ReportMetric(m.draws, "draws")
	b.ReportMetric(load1(), "load")
}

// load1 is the machine's one-minute load average (0 where it cannot be read).
func load1() float64 {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(raw))
	if len(f) == 0 {
		return 0
	}
	load, _ := strconv.ParseFloat(f[0], 64)
	return load
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// seedProfile stores a tools-dialect profile for url and puts the welcome away.
func seedProfile(tb testing.TB, cfg, data, url string) {
	tb.Helper()
	seed := New(Config{ConfigDir: cfg, DataDir: data, KeyFile: true})
	if _, err := seed.api.Settings.SaveProfile(backend.Profile{Name: "Scripted model", BaseURL: url, Model: "scripted", Dialect: "tools", Variant: "rel1000"}, "sk-window-bench-0000"); err != nil {
		tb.Fatal(err)
	}
	loaded, err := seed.api.Settings.GetSettings()
	if err != nil {
		tb.Fatal(err)
	}
	set := loaded.Settings
	set.WelcomeDone = true
	if _, err := seed.api.Settings.SaveSettings(set); err != nil {
		tb.Fatal(err)
	}
}

// countWarn reads r of the root window and counts pixels of the pause
// colour (--warn, #c98a0b, light theme).
func countWarn(tb testing.TB, x *xgb.Conn, r image.Rectangle) int {
	root := xproto.Setup(x).DefaultScreen(x).Root
	img, err := xproto.GetImage(x, xproto.ImageFormatZPixmap, xproto.Drawable(root),
		int16(r.Min.X), int16(r.Min.Y), uint16(r.Dx()), uint16(r.Dy()), 0xffffffff).Reply()
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	for i := 0; i+3 < len(img.Data); i += 4 { // BGRX on a 24-bit Xvfb
		if near8(uint32(img.Data[i+2]), 0xc9) && near8(uint32(img.Data[i+1]), 0x8a) && near8(uint32(img.Data[i]), 0x0b) {
			n++
		}
	}
	return n
}

func percentile(v []float64, p int) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

// benchWindow is stateShooter's little brother for a benchmark.
type benchWindow struct {
	b       testing.TB
	d       *xvfb.Display
	changes *screenChanges // the screen's changes, on benchPause's X connection
	logs    *lockedBuffer
	runs    string
	pid     int // the window's process
}

func (s *benchWindow) await(what string, ok func(image.Image) bool) {
	s.b.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if img, _ := captureScreen(s.d); img != nil && ok(img) {
			return
		}
		time.Sleep(150 * time.Millisecond) // polling the screen until the condition holds
	}
	s.b.Fatalf("timed out waiting for %s\n%s", what, s.logs.String())
}

// until reads the screen each time it changes until cond is want, and
// returns when that was seen.
func (s *benchWindow) until(cond func() bool, want bool) time.Time {
	s.b.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s.changes.rearm()
		if cond() == want {
			return time.Now()
		}
		if time.Now().After(deadline) {
			if _, raw := captureScreen(s.d); raw != nil {
				_ = os.MkdirAll(filepath.Join("..", "test-artifacts"), 0o755)
				_ = os.WriteFile(filepath.Join("..", "test-artifacts", "bench-window-pause-failed.png"), raw, 0o644)
			}
			s.b.Fatalf("the window never showed the change (want %v)\n%s", want, s.logs.String())
		}
		s.changes.wait()
	}
}

// screenChanges tells when the X server's screen has changed since it was
// last re-armed (the DAMAGE extension, at its NonEmpty level: one event
// until the next re-arm).
type screenChanges struct {
	x       *xgb.Conn
	id      damage.Damage
	changed chan struct{}
}

// watchScreen starts watching the root window of x's screen. Reads of the
// screen made on x after a rearm see every change the next event reports.
func watchScreen(tb testing.TB, x *xgb.Conn) *screenChanges {
	tb.Helper()
	if err := xfixes.Init(x); err != nil {
		tb.Fatal(err)
	}
	if err := damage.Init(x); err != nil {
		tb.Fatal(err)
	}
	// The protocol needs each client to say which versions it speaks.
	if _, err := xfixes.QueryVersion(x, 5, 0).Reply(); err != nil {
		tb.Fatal(err)
	}
	if _, err := damage.QueryVersion(x, 1, 1).Reply(); err != nil {
		tb.Fatal(err)
	}
	id, err := damage.NewDamageId(x)
	if err != nil {
		tb.Fatal(err)
	}
	root := xproto.Setup(x).DefaultScreen(x).Root
	if err := damage.CreateChecked(x, id, xproto.Drawable(root), damage.ReportLevelNonEmpty).Check(); err != nil {
		tb.Fatal(err)
	}
	c := &screenChanges{x: x, id: id, changed: make(chan struct{}, 1)}
	go func() {
		for {
			ev, err := x.WaitForEvent()
			if ev == nil && err == nil {
				close(c.changed)
				return // the connection closed
			}
			if _, ok := ev.(damage.NotifyEvent); ok {
				select {
				case c.changed <- struct{}{}:
				default:
				}
			}
		}
	}()
	return c
}

// rearm forgets the changes so far: the next one sends an event.
func (c *screenChanges) rearm() { damage.Subtract(c.x, c.id, 0, 0) }

// wait returns when the screen has changed, or after 100 ms (the deadline
// is checked that often even on a screen that stays still).
func (c *screenChanges) wait() {
	select {
	case <-c.changed:
	case <-time.After(100 * time.Millisecond):
	}
}

func (s *benchWindow) xdo(args ...string) {
	s.b.Helper()
	cmd := exec.Command("xdotool", args...)
	cmd.Env = s.d.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		s.b.Fatalf("xdotool %v: %v %s", args, err, out)
	}
}

func (s *benchWindow) focus() {
	s.b.Helper()
	cmd := exec.Command("xdotool", "search", "--name", "^Tandem$")
	cmd.Env = s.d.Env()
	out, err := cmd.Output()
	ids := bytes.Fields(out)
	if err != nil || len(ids) == 0 {
		s.b.Fatalf("cannot find Tandem's window: %v", err)
	}
	s.xdo("windowfocus", string(ids[len(ids)-1]))
}

// awaitRecord waits until the record holds the n-th change to state and
// returns that change's time (the deadline grows with n: a long run's 40
// steps take a minute on a very busy machine).
func (s *benchWindow) awaitRecord(state string, n int) time.Time {
	s.b.Helper()
	deadline := time.Now().Add(30*time.Second + time.Duration(n)*2*time.Second)
	for time.Now().Before(deadline) {
		if at := recordStateTimes(s.runs, state); len(at) >= n {
			return at[n-1]
		}
		time.Sleep(20 * time.Millisecond) // polling the record until the condition holds
	}
	var seen []string
	dirs, _ := os.ReadDir(s.runs)
	for _, d := range dirs {
		raw, _ := os.ReadFile(filepath.Join(s.runs, d.Name(), "record.jsonl"))
		for _, line := range bytes.Split(raw, []byte("\n")) {
			var e struct{ Kind, State, Reason string }
			if json.Unmarshal(line, &e) == nil && e.Kind == "state" {
				seen = append(seen, e.State+" "+e.Reason)
			}
		}
	}
	if _, raw := captureScreen(s.d); raw != nil {
		_ = os.MkdirAll(filepath.Join("..", "test-artifacts"), 0o755)
		_ = os.WriteFile(filepath.Join("..", "test-artifacts", "bench-window-pause-failed.png"), raw, 0o644)
	}
	s.b.Fatalf("the run never reached %s (#%d); its states: %q\n%s", state, n, seen, s.logs.String())
	return time.Time{}
}

// recordStateTimes lists when the runs' records changed to state, in order.
func recordStateTimes(runs, state string) []time.Time {
	var out []time.Time
	dirs, _ := os.ReadDir(runs)
	for _, d := range dirs {
		raw, err := os.ReadFile(filepath.Join(runs, d.Name(), "record.jsonl"))
		if err != nil {
			continue
		}
		for _, line := range bytes.Split(raw, []byte("\n")) {
			var e struct {
				T     time.Time `json:"t"`
				Kind  string    `json:"kind"`
				State string    `json:"state"`
			}
			if json.Unmarshal(line, &e) == nil && e.Kind == "state" && e.State == state {
				out = append(out, e.T)
			}
		}
	}
	return out
}
