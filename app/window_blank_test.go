package app

import (
	"context"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tandem/internal/modeltest"
	"tandem/internal/uicheck"
	"tandem/internal/xvfb"
	"tandem/vphone"
	"tandem/vphone/vphonetest"

	openai "github.com/sashabaranov/go-openai"
)

// TestWindowMirrorNeverBlank drives the production window under Xvfb on the
// virtual phone (screenrecord) through what blanked the mirror in issue 30:
// pause, "Larger" entered while paused and the agent's taps after it, back
// to the panels, the person driving, the confirm and question dialogs, stop, and the
// phone going offline (the picture kept and dated, not called live). A watcher
// captures the screen all along and fails on any capture where the mirror
// shows no phone (the Counter app's blue bar missing from the mirror's
// top), keeping the first such capture in test-artifacts/.
func TestWindowMirrorNeverBlank(t *testing.T) {
	bin := productionBinary(t, "import", "xdotool")
	phone, env := vphonetest.Start(t)
	srv, phase := blankModel(t, phone)
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
	defer func() { cancel(); _ = cmd.Wait() }()
	s := &stateShooter{t: t, d: d, logs: &logs, runs: filepath.Join(data, "runs")}
	s.await("the window showing the phone", func(img image.Image) bool {
		return uicheck.LooksLikeTandem(img) && countNear(img, 0x26, 0x32, 0x38) > 2000
	})
	s.focusWindow()
	s.xdo("type", "--delay", "15", "Add three to the counter")
	s.xdo("key", "ctrl+Return")
	s.await("the mirror showing the Counter app", func(img image.Image) bool { return mirrorShowsPhone(img) })

	w := &blankWatcher{s: s}
	go w.run(ctx)
	defer w.stop()
	w.see("running", 3)

	s.xdo("key", "space")
	s.awaitRecord("Paused", 1)
	w.see("paused", 4)
	s.xdo("mousemove", "818", "97", "click", "1") // Larger
	w.see("larger while paused", 4)
	phase.Store(1)
	s.xdo("key", "space")
	awaitPhone(t, phone, 3)
	w.see("larger while the agent taps", 4)
	s.shoot("mirror-larger")
	s.xdo("mousemove", "1143", "37", "click", "1") // "Back to the panels", where Larger puts it
	w.see("back to the panels", 3)

	s.xdo("key", "t")
	s.awaitRecord("Manual", 1)
	w.see("manual", 3)
	s.shoot("mirror-manual")
	img, _ := s.capture()
	x, y, ok := plusOnMirror(img)
	if !ok {
		t.Fatal("no +1 button on the mirror (test-artifacts/window-mirror-manual.png)")
	}
	s.xdo("mousemove", strconv.Itoa(x), strconv.Itoa(y), "click", "1")
	awaitPhone(t, phone, 4)
	w.see("the person drove", 3)
	throughTheDialogs(t, s, w, phone, phase)
	s.xdo("key", "Escape")
	s.awaitRecord("Stopped", 1)
	w.see("stopped", 6)
	if os.Getenv("TANDEM_BLANK_NO_OFFLINE") == "" {
		awaitDatedWhenOffline(t, s, phone)
		w.see("offline", 3)
	}
	s.shoot("mirror-offline")
	w.stop()
	if n, first := w.blanks(); n > 0 {
		t.Fatalf("the mirror showed no phone in %d of %d captures; the first while %s (test-artifacts/window-mirror-blank.png)", n, w.total(), first)
	}
	t.Logf("%d captures checked, none blank", w.total())
}

// throughTheDialogs hands back, allows the agent's sensitive step in the
// confirm dialog and answers its question, the mirror watched behind each.
func throughTheDialogs(t *testing.T, s *stateShooter, w *blankWatcher, phone *vphone.Phone, phase *atomic.Int32) {
	t.Helper()
	phase.Store(2)
	s.xdo("key", "h")
	s.xdo("type", "--delay", "15", "All yours again")
	s.xdo("key", "ctrl+Return")
	s.awaitRecord("WaitingForUser", 1)
	w.see("behind the confirm dialog", 4)
	phase.Store(3) // the step after the one confirmed asks a question
	// From the reason box past Stop and Deny to Allow.
	s.xdo("key", "Tab", "Tab", "Tab", "Return")
	awaitPhone(t, phone, 5)
	w.see("after Allow", 3)
	s.awaitRecord("WaitingForUser", 2)
	w.see("behind the question dialog", 4)
	s.shootDialog("mirror-question")
	planned := recordStates(s.runs, "Planning")
	s.xdo("type", "--delay", "15", blankAnswer)
	s.xdo("key", "ctrl+Return")
	s.awaitRecord("Planning", planned+1) // the answer went in: the run plans again
	w.see("after the answer", 3)
}

// mirrorShowsPhone reports whether the top of the mirror (above any dialog,
// x 294..884, y 66..182 in a 1280x820 window, panels or Larger) shows the Counter app's blue
// title bar: phone pixels, not the panel's background.
func mirrorShowsPhone(img image.Image) bool {
	n := 0
	for y := 66; y < 182; y++ {
		for x := 294; x < 884; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			r, g, b = r>>8, g>>8, b>>8
			if b > 90 && g > r+35 && b > g+30 {
				n++
			}
		}
	}
	return n > 400
}

// mirrorDated reports whether the mirror panel's header (x 294..884,
// y 80..115) shows the warning-coloured "Last picture · N s ago" label.
func mirrorDated(img image.Image) bool {
	n := 0
	for y := 80; y < 115; y++ {
		for x := 294; x < 884; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			r, g, b = r>>8, g>>8, b>>8
			if r > 150 && g > 90 && g < 175 && b < 90 {
				n++
			}
		}
	}
	return n > 20
}

// plusOnMirror finds the Counter's +1 button on the mirror (its blue below
// the title bar, inside the mirror panel) and returns its centre.
func plusOnMirror(img image.Image) (int, int, bool) {
	x0, y0, x1, y1 := 1<<30, 1<<30, -1, -1
	for y := 200; y < 600; y++ {
		for x := 294; x < 884; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			r, g, b = r>>8, g>>8, b>>8
			if b > 150 && g > r+60 && b > g+40 {
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			}
		}
	}
	return (x0 + x1) / 2, (y0 + y1) / 2, x1 >= 0
}

// awaitPhone waits until the counter reaches n.
func awaitPhone(t *testing.T, phone *vphone.Phone, n int) {
	t.Helper()
	deadline := time.Now().Add(40 * time.Second)
	for phone.State().Counter < n {
		if time.Now().After(deadline) {
			t.Fatalf("the counter is %d, want %d", phone.State().Counter, n)
		}
		time.Sleep(50 * time.Millisecond) // polling the phone until the condition holds
	}
}

// blankWatcher captures the screen continuously and counts the captures
// whose mirror shows no phone.
type blankWatcher struct {
	s    *stateShooter
	mu   sync.Mutex
	what string
	seen int // captures of the moment named last
	all  int
	bad  int
	at   string
	done chan struct{}
}

func (w *blankWatcher) run(ctx context.Context) {
	w.mu.Lock()
	w.done = make(chan struct{})
	w.mu.Unlock()
	defer close(w.done)
	for ctx.Err() == nil {
		img, raw := w.s.capture()
		if img == nil {
			continue
		}
		blank := !mirrorShowsPhone(img)
		w.mu.Lock()
		if w.what == "stop" {
			w.mu.Unlock()
			return
		}
		w.seen++
		w.all++
		if blank {
			w.bad++
			if w.bad == 1 {
				w.at = w.what
				art := filepath.Join("..", "test-artifacts")
				_ = os.MkdirAll(art, 0o755)
				_ = os.WriteFile(filepath.Join(art, "window-mirror-blank.png"), raw, 0o644)
			}
		}
		w.mu.Unlock()
	}
}

// see names the moment and waits for n captures of it.
func (w *blankWatcher) see(what string, n int) {
	w.s.t.Helper()
	w.mu.Lock()
	w.what, w.seen = what, 0
	w.mu.Unlock()
	deadline := time.Now().Add(60 * time.Second)
	for {
		w.mu.Lock()
		seen := w.seen
		w.mu.Unlock()
		if seen >= n {
			return
		}
		if time.Now().After(deadline) {
			w.s.t.Fatalf("no %d captures while %s", n, what)
		}
		time.Sleep(50 * time.Millisecond) // polling the watcher until it has the captures
	}
}

func (w *blankWatcher) blanks() (int, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.bad, w.at
}

func (w *blankWatcher) total() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.all
}

func (w *blankWatcher) stop() {
	w.mu.Lock()
	if w.what == "stop" {
		w.mu.Unlock()
		return
	}
	w.what = "stop"
	done := w.done
	w.mu.Unlock()
	if done != nil {
		<-done
	}
}

// blankAnswer is the person's answer to the model's question.
const blankAnswer = "Five is enough"

// blankModel plays the agent by the phone's counter and the test's phase,
// never by the number of requests: a call started on a screen that then
// moved is dropped (engine/speculate.go) and must not use up a line of the
// script. Phase 0: it thinks and holds (the person pauses); 1: it taps +1
// up to three, then holds (the person takes over and taps); 2: after the
// hand back it taps +1 once more as a sensitive step; 3 (set while that
// step waits for the person): it asks the person a question (the question
// dialog), and holds once the answer is in the conversation.
func blankModel(t *testing.T, phone *vphone.Phone) (*modeltest.Server, *atomic.Int32) {
	phase := new(atomic.Int32)
	think := modeltest.Reply{Content: "The counter is open. Next I will look again…", Chunks: 6, Hold: true, HoldAfter: 3}
	return modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		st := phone.State()
		if st.Foreground != vphone.PkgCounter {
			return openCounter()
		}
		p := phase.Load()
		if p == 3 {
			if strings.Contains(r.Text(), blankAnswer) {
				return think
			}
			return modeltest.Reply{Content: "Only the person knows.", ToolCalls: []openai.ToolCall{call("ask_user", `{"question":"Is five enough?"}`)}}
		}
		why := ""
		if p == 2 {
			why = "adds one to the shared counter"
		}
		args, ok := plusArgs(phone, why)
		if !ok || p == 0 || p == 1 && st.Counter >= 3 || p == 2 && st.Counter >= 5 {
			return think
		}
		return modeltest.Reply{Content: "Press +1.", ToolCalls: []openai.ToolCall{call("tap", args)}}
	}), phase
}

// awaitDatedWhenOffline takes the phone offline: no fresh frame can come,
// so the mirror keeps its last picture and dates it (the header's
// warning-coloured label) instead of calling it live.
func awaitDatedWhenOffline(t *testing.T, s *stateShooter, phone *vphone.Phone) {
	t.Helper()
	phone.SetOffline(true)
	t.Cleanup(func() { phone.SetOffline(false) })
	deadline := time.Now().Add(40 * time.Second)
	for {
		img, raw := s.capture()
		if img != nil && mirrorDated(img) && mirrorShowsPhone(img) {
			return
		}
		if time.Now().After(deadline) {
			_ = os.WriteFile(filepath.Join("..", "test-artifacts", "window-mirror-offline.png"), raw, 0o644)
			t.Fatalf("offline, the mirror's label never dated the last picture (test-artifacts/window-mirror-offline.png)")
		}
		time.Sleep(150 * time.Millisecond) // polling the screen until the condition holds
	}
}
