package app

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"tandem/backend"
	"tandem/internal/modeltest"
	"tandem/internal/uicheck"
	"tandem/internal/xvfb"
	"tandem/vphone/vphonetest"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// BenchmarkWindowPause measures how soon the production window answers the
// person: with a run thinking (a held model call) on the virtual phone,
// xdotool presses Space and the screen is read until the control bar's
// status dot turns the pause colour (the pending "Pausing…" or the Paused
// state itself, whichever comes first). click-to-pixel-ms is from just
// before xdotool starts to that pixel; engine-ms is from the same moment to
// the Paused state's time in the run's record, for comparison. Space again
// resumes, and the next round waits until the run thinks again.
//
//	TANDEM_BIN=build/bin/tandem go test -tags webkit2_41 -run '^$' -bench WindowPause -benchtime 20x ./app
func BenchmarkWindowPause(b *testing.B) {
	bin := os.Getenv("TANDEM_BIN")
	if bin == "" {
		b.Skip("TANDEM_BIN not set (make test sets it)")
	}
	for _, tool := range []string{"xdotool", "import"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Skipf("%s is needed: %v", tool, err)
		}
	}
	_, env := vphonetest.Start(b)
	srv := modeltest.NewFunc(b, func(modeltest.Request) modeltest.Reply {
		return modeltest.Reply{Content: "Looking at the screen…", Chunks: 2, Hold: true, HoldAfter: 1}
	})
	cfg, data := b.TempDir(), b.TempDir()
	seedProfile(b, cfg, data, srv.URL)

	d := xvfb.Start(b, 1280, 820)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(d.Env(), "TANDEM_CONFIG_DIR="+cfg, "TANDEM_DATA_DIR="+data, "LANG=en_US.UTF-8",
		"TANDEM_ADB_PORT="+strconv.Itoa(env.Port), "ADB_LOCAL_TRANSPORT_MAX_PORT=0")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	s := &benchWindow{b: b, d: d, logs: &logs, runs: filepath.Join(data, "runs")}
	s.await("the window", func(img image.Image) bool { return uicheck.LooksLikeTandem(img) })
	s.focus()
	s.xdo("type", "--delay", "15", "Wait on the launcher")
	s.xdo("key", "ctrl+Return")
	s.awaitRecord("Planning", 1)

	x, err := xgb.NewConnDisplay(d.Name)
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	// The footer's left part, where the control bar's status dot is.
	strip := image.Rect(0, d.Height*4/5, d.Width*45/100, d.Height)
	warn := func() int { return countWarn(b, x, strip) }
	base := warn()

	var pixel, engine []float64
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		s.xdo("key", "space")
		deadline := time.Now().Add(20 * time.Second)
		for warn() < base+12 {
			if time.Now().After(deadline) {
				b.Fatalf("round %d: the pause never showed\n%s", i, logs.String())
			}
			time.Sleep(2 * time.Millisecond) // polling the screen until the colour shows
		}
		pixel = append(pixel, float64(time.Since(t0).Microseconds())/1000)
		at := s.awaitRecord("Paused", i+1)
		engine = append(engine, float64(at.Sub(t0).Microseconds())/1000)
		s.xdo("key", "space")
		s.awaitRecord("Planning", i+2)
		for warn() >= base+12 {
			if time.Now().After(deadline.Add(20 * time.Second)) {
				b.Fatalf("round %d: the pause colour stayed after resuming", i)
			}
			time.Sleep(10 * time.Millisecond) // polling the screen until the colour goes
		}
	}
	b.ReportMetric(percentile(pixel, 50), "click-to-pixel-ms-p50")
	b.ReportMetric(percentile(pixel, 95), "click-to-pixel-ms-p95")
	b.ReportMetric(percentile(engine, 50), "engine-ms-p50")
	b.ReportMetric(percentile(engine, 95), "engine-ms-p95")
}

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
	b    *testing.B
	d    *xvfb.Display
	logs *bytes.Buffer
	runs string
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
// returns that change's time.
func (s *benchWindow) awaitRecord(state string, n int) time.Time {
	s.b.Helper()
	deadline := time.Now().Add(30 * time.Second)
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
