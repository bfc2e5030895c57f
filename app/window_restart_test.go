package app

import (
	"context"
	"image"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"

	"tandem/internal/modeltest"
	"tandem/internal/uicheck"
	"tandem/internal/xvfb"
	"tandem/vphone"
	"tandem/vphone/vphonetest"

	openai "github.com/sashabaranov/go-openai"
)

// TestWindowMirrorAfterARestart: issue 30 saw the mirror blank, and the
// step's picture with it, in a run resumed after the app restarted. The
// production window under Xvfb runs on the virtual phone (screenrecord);
// the app is killed mid-run and started again, the run resumed from
// History. The mirror shows the phone from its first picture on (the
// phone's screen does not change meanwhile: no new frame comes to
// rescue a blank one) and through the resumed run's next step. The Steps
// list and History after the resume are kept as screenshots
// (window-restart-*.png); engine and app tests check what they show.
func TestWindowMirrorAfterARestart(t *testing.T) {
	bin := productionBinary(t, "import", "xdotool")
	phone, env := vphonetest.Start(t)
	resumed := new(atomic.Bool)
	srv := modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		st := phone.State()
		if st.Foreground != vphone.PkgCounter {
			return openCounter()
		}
		args, ok := plusArgs(phone, "")
		if !ok || st.Counter >= 2 && !resumed.Load() || st.Counter >= 3 {
			return modeltest.Reply{Content: "The counter is where it should be. Looking again…", Chunks: 4, Hold: true, HoldAfter: 2}
		}
		return modeltest.Reply{Content: "Press +1.", ToolCalls: []openai.ToolCall{call("tap", args)}}
	})
	cfg, data := t.TempDir(), t.TempDir()
	seedProfile(t, cfg, data, srv.URL)
	d := xvfb.Start(t, 1280, 820)
	var logs lockedBuffer
	start := func() (*exec.Cmd, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		cmd := exec.CommandContext(ctx, bin)
		cmd.Env = append(d.Env(), "TANDEM_CONFIG_DIR="+cfg, "TANDEM_DATA_DIR="+data, "LANG=en_US.UTF-8",
			"TANDEM_ADB_PORT="+strconv.Itoa(env.Port), "ADB_LOCAL_TRANSPORT_MAX_PORT=0")
		cmd.Stdout, cmd.Stderr = &logs, &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, cancel
	}
	cmd, cancel := start()
	s := &stateShooter{t: t, d: d, logs: &logs, runs: filepath.Join(data, "runs")}
	s.await("the window showing the phone", func(img image.Image) bool {
		return uicheck.LooksLikeTandem(img) && countNear(img, 0x26, 0x32, 0x38) > 2000
	})
	s.focusWindow()
	s.xdo("type", "--delay", "15", "Add three to the counter")
	s.xdo("key", "ctrl+Return")
	awaitPhone(t, phone, 2)
	s.await("the mirror showing the Counter app", mirrorShowsPhone)

	// Killed mid-run: the run's record has no end.
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	cancel()
	cmd, cancel = start()
	defer func() { cancel(); _ = cmd.Wait() }()
	s.await("the window again", uicheck.LooksLikeTandem)
	s.await("the mirror showing the Counter app again", mirrorShowsPhone)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	w := &blankWatcher{s: s}
	go w.run(ctx)
	defer w.stop()
	w.see("restarted", 3)
	s.xdo("mousemove", "1141", "30", "click", "1") // History
	w.see("History open", 3)
	s.shootDialog("restart-history")
	resumed.Store(true)
	s.xdo("mousemove", "664", "400", "click", "1") // the interrupted run's Resume
	awaitPhone(t, phone, 3)
	w.see("the resumed run's step", 4)
	s.shootDialog("restart-resumed")
	w.stop()
	if n, first := w.blanks(); n > 0 {
		t.Fatalf("the mirror showed no phone in %d of %d captures; the first while %s (test-artifacts/window-mirror-blank.png)", n, w.total(), first)
	}
}
