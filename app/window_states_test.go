package app

import (
	"bufio"
	"context"
	"encoding/json"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"tandem/internal/modeltest"
	"tandem/internal/uicheck"
	"tandem/internal/xvfb"
	"tandem/vphone"
	"tandem/vphone/vphonetest"

	openai "github.com/sashabaranov/go-openai"
)

// TestWindowStates drives the production window under Xvfb through a whole
// task with the keyboard alone — the goal box has the focus at start,
// Ctrl+Enter starts, Space pauses and resumes, T takes over, H hands back,
// the confirmation is answered with Tab and Enter — on the virtual phone and
// a scripted model, and keeps a capture of each main state in
// test-artifacts/window-<state>.png for a person to look at (the README
// shows some). Each capture waits for the state in the run's record and for
// the screen to settle, never for a fixed time.
func TestWindowStates(t *testing.T) {
	bin := productionBinary(t, "import", "xdotool")
	phone, env := vphonetest.Start(t)

	// The model: launch the counter, then think until interrupted (twice),
	// then press +1 flagged as sensitive, then finish.
	phases := make(chan phase, 1)
	phases <- thinking
	calls := make(chan int, 32)
	srv := statesModel(t, phone, phases, calls)
	cfg, data := t.TempDir(), t.TempDir()
	seedProfile(t, cfg, data, srv.URL)

	d := xvfb.Start(t, 1280, 820)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(d.Env(), "TANDEM_CONFIG_DIR="+cfg, "TANDEM_DATA_DIR="+data, "LANG=en_US.UTF-8",
		"TANDEM_ADB_PORT="+strconv.Itoa(env.Port), "ADB_LOCAL_TRANSPORT_MAX_PORT=0")
	var logs lockedBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &stateShooter{t: t, d: d, logs: &logs, runs: filepath.Join(data, "runs")}

	// Idle: the UI is up and the mirror shows the phone's launcher.
	s.await("the window showing the phone", func(img image.Image) bool {
		return uicheck.LooksLikeTandem(img) && countNear(img, 0x26, 0x32, 0x38) > 2000
	})
	s.focusWindow()
	s.shoot("idle")

	s.xdo("type", "--delay", "15", "Add one to the counter")
	s.xdo("key", "ctrl+Return")
	waitCall(t, calls, 2) // launched the counter; now the model "thinks"
	s.awaitRecord("Planning", 2)
	s.shoot("running")

	s.xdo("key", "space")
	s.awaitRecord("Paused", 1)
	s.shoot("paused")

	s.xdo("key", "space")
	waitCall(t, calls, 3)
	s.xdo("key", "t")
	s.awaitRecord("Manual", 1)
	s.shoot("manual")

	<-phases
	phases <- confirm
	s.xdo("key", "h")
	s.xdo("type", "--delay", "15", "All yours again")
	s.xdo("key", "ctrl+Return")
	s.awaitRecord("WaitingForUser", 1)
	s.shootDialog("confirm")
	if got := phone.State().Counter; got != 0 {
		t.Fatalf("the counter changed to %d before the person confirmed", got)
	}

	// The dialog opens with the focus in its reason box: its answers are the
	// list's (engine.Answers): Tab to Stop, Tab to Deny, Tab to Allow.
	s.xdo("key", "Tab", "Tab", "Tab", "Return")
	s.awaitRecord("Done", 1)
	if got := phone.State().Counter; got != 1 {
		t.Fatalf("after Allow the counter is %d, want 1", got)
	}
	s.shoot("done")
}

// phase is where the scripted model of TestWindowStates is.
type phase int

const (
	thinking phase = iota
	confirm
	finish
)

// statesModel launches the counter, then thinks until interrupted (twice),
// then (phase confirm) presses +1 flagged as sensitive, then finishes.
// calls gets each request's attempt number.
func statesModel(t *testing.T, phone *vphone.Phone, phases chan phase, calls chan<- int) *modeltest.Server {
	return modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		calls <- r.Attempt
		if phone.State().Foreground != vphone.PkgCounter {
			return openCounter()
		}
		p := <-phases
		defer func() { phases <- p }()
		switch p {
		case confirm:
			p = finish
			args, ok := plusArgs(phone, "adds one to the shared counter")
			if !ok {
				return modeltest.Reply{Status: 500, Message: "no +1 button on screen"}
			}
			return modeltest.Reply{Content: "The person is done; press +1, which needs their confirmation.", ToolCalls: []openai.ToolCall{call("tap", args)}}
		case finish:
			return modeltest.Reply{Content: "The counter shows 1.", ToolCalls: []openai.ToolCall{call("finish", `{"summary":"The counter shows 1, as asked.","success":true}`)}}
		case thinking: // below
		}
		return modeltest.Reply{Content: "The counter is open and shows 0. Next I will tap the +1 button once…", Chunks: 6, Hold: true, HoldAfter: 3}
	})
}

func waitCall(t *testing.T, calls <-chan int, n int) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case got := <-calls:
			if got >= n {
				return
			}
		case <-deadline:
			t.Fatalf("the model was not called %d times", n)
		}
	}
}

// stateShooter captures the Xvfb screen and watches the run's record.
type stateShooter struct {
	t    testing.TB
	d    *xvfb.Display
	logs *lockedBuffer
	runs string
}

func (s *stateShooter) capture() (image.Image, []byte) { return captureScreen(s.d) }

// await polls the screen until ok holds, for up to 90 s: generous, as a
// machine running two test suites beside CPU burners has taken over 40 s
// to list and mirror the phone in a freshly started window.
func (s *stateShooter) await(what string, ok func(image.Image) bool) {
	s.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if img, _ := s.capture(); img != nil && ok(img) {
			return
		}
		time.Sleep(150 * time.Millisecond) // polling the screen until the condition holds
	}
	// What the window showed instead, for whoever reads the failure.
	if _, raw := s.capture(); raw != nil {
		_ = os.MkdirAll(filepath.Join("..", "test-artifacts"), 0o755)
		_ = os.WriteFile(filepath.Join("..", "test-artifacts", "window-await-failed.png"), raw, 0o644)
	}
	s.t.Fatalf("timed out waiting for %s (the screen then: test-artifacts/window-await-failed.png)\n%s", what, s.logs.String())
}

// shoot waits until the screen settles (consecutive captures differ in
// fewer than 0.2% of pixels: a spinner may turn) and keeps the capture.
//
// On a loaded machine the live mirror's video may keep refining for a
// while; after 15 s the last capture is kept (and the change logged): the
// capture is an artifact, the states themselves are checked elsewhere.
// shoot keeps a still capture as test-artifacts/window-<name>.png and
// checks it shows Tandem's panels.
func (s *stateShooter) shoot(name string) {
	s.t.Helper()
	if img := s.still(name); !uicheck.LooksLikeTandem(img) {
		s.t.Fatalf("the %s capture does not show Tandem's UI", name)
	}
}

// shootDialog keeps a still capture with a dialog open, whose scrim dims
// the panels shoot looks for.
func (s *stateShooter) shootDialog(name string) {
	s.t.Helper()
	s.still(name)
}

// still waits for the screen to stop changing and keeps that capture as
// test-artifacts/window-<name>.png.
func (s *stateShooter) still(name string) image.Image {
	s.t.Helper()
	prev, _ := s.capture()
	deadline := time.Now().Add(15 * time.Second)
	var img image.Image
	var raw []byte
	for {
		time.Sleep(200 * time.Millisecond) // the gap between two captures compared
		img, raw = s.capture()
		if img != nil && prev != nil {
			changed := changedFraction(prev, img)
			if changed < 0.002 {
				break
			}
			if time.Now().After(deadline) {
				s.t.Logf("the screen kept changing (%.2f%% of pixels) for the %s capture; keeping the last one", changed*100, name)
				break
			}
		} else if time.Now().After(deadline) {
			s.t.Fatalf("no capture of the screen for %s", name)
		}
		prev = img
	}
	art := filepath.Join("..", "test-artifacts")
	_ = os.MkdirAll(art, 0o755)
	if err := os.WriteFile(filepath.Join(art, "window-"+name+".png"), raw, 0o644); err != nil {
		s.t.Fatal(err)
	}
	return img
}

func (s *stateShooter) xdo(args ...string) {
	s.t.Helper()
	cmd := exec.Command("xdotool", args...)
	cmd.Env = s.d.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Fatalf("xdotool %s: %v %s", strings.Join(args, " "), err, out)
	}
}

// focusWindow gives Tandem's window the keyboard (there is no window manager).
func (s *stateShooter) focusWindow() {
	s.t.Helper()
	cmd := exec.Command("xdotool", "search", "--name", "^Tandem$")
	cmd.Env = s.d.Env()
	out, err := cmd.Output()
	ids := strings.Fields(string(out))
	if err != nil || len(ids) == 0 {
		s.t.Fatalf("cannot find Tandem's window: %v", err)
	}
	s.xdo("windowfocus", ids[len(ids)-1])
}

// awaitRecord waits until the run's record holds the n-th change to state.
func (s *stateShooter) awaitRecord(state string, n int) {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if recordStates(s.runs, state) >= n {
			return
		}
		time.Sleep(50 * time.Millisecond) // polling the record until the condition holds
	}
	s.t.Fatalf("the run never reached %s (#%d)\n%s", state, n, s.logs.String())
}

func recordStates(runs, state string) int {
	dirs, _ := os.ReadDir(runs)
	count := 0
	for _, d := range dirs {
		f, err := os.Open(filepath.Join(runs, d.Name(), "record.jsonl"))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var e struct {
				Kind  string `json:"kind"`
				State string `json:"state"`
			}
			if json.Unmarshal(sc.Bytes(), &e) == nil && e.Kind == "state" && e.State == state {
				count++
			}
		}
		f.Close()
	}
	return count
}

func changedFraction(a, b image.Image) float64 {
	ab, bb := a.Bounds(), b.Bounds()
	if ab != bb {
		return 1
	}
	changed, total := 0, 0
	for y := ab.Min.Y; y < ab.Max.Y; y += 2 {
		for x := ab.Min.X; x < ab.Max.X; x += 2 {
			total++
			if a.At(x, y) != b.At(x, y) {
				changed++
			}
		}
	}
	return float64(changed) / float64(total)
}

func countNear(img image.Image, r, g, b uint32) int { return countNearIn(img, img.Bounds(), r, g, b) }

func near8(v, want uint32) bool { return v+6 >= want && v <= want+6 }
