package app

import (
	"context"
	"image"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"tandem/internal/modeltest"
	"tandem/internal/sessionbus"
	"tandem/internal/uicheck"
	"tandem/internal/xvfb"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// TestTheWindowBehindNotifiesTheDesktop: the production window under Xvfb,
// on a private session bus with a fake notification server. The person
// starts a task and moves to another window (an xterm takes the focus);
// the model then asks to confirm a sensitive tap, and the desktop is told,
// read from the bus: one notification naming the phone and what is asked.
// Back in the window, a second request on the same run is not told.
func TestTheWindowBehindNotifiesTheDesktop(t *testing.T) {
	bin := productionBinary(t, "import", "xdotool", "xterm")
	bus := sessionbus.Start(t)
	notes := bus.Notifications(t)
	_, env := vphonetest.Start(t, vphone.WithProduct("rack7", "Rack Phone 7", "rack7"))
	release := make(chan struct{})
	srv := modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		if r.Attempt == 1 {
			<-release // until the person has moved to another window
		}
		if r.Attempt <= 2 {
			return modeltest.Reply{Content: "Pay.", ToolCalls: []openai.ToolCall{call("tap", `{"x":500,"y":500,"sensitive":"it pays the rent"}`)}}
		}
		return modeltest.Reply{Content: "Done.", ToolCalls: []openai.ToolCall{call("finish", `{"summary":"paid","success":true}`)}}
	})
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	cfg, data := t.TempDir(), t.TempDir()
	seedProfile(t, cfg, data, srv.URL)

	d := xvfb.Start(t, 1280, 820)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(d.Env(), "TANDEM_CONFIG_DIR="+cfg, "TANDEM_DATA_DIR="+data, "LANG=en_US.UTF-8",
		"TANDEM_ADB_PORT="+strconv.Itoa(env.Port), "ADB_LOCAL_TRANSPORT_MAX_PORT=0", "DBUS_SESSION_BUS_ADDRESS="+bus.Addr)
	var logs lockedBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &stateShooter{t: t, d: d, logs: &logs, runs: filepath.Join(data, "runs")}
	s.await("the window showing the phone", func(img image.Image) bool {
		return uicheck.LooksLikeTandem(img) && countNear(img, 0x26, 0x32, 0x38) > 2000
	})
	s.focusWindow()
	s.xdo("type", "--delay", "15", "Pay the rent")
	s.xdo("key", "ctrl+Return")
	s.awaitRecord("Planning", 1)

	focusElsewhere(ctx, s) // the person moves to another window
	close(release)
	s.awaitRecord("WaitingForUser", 1)

	wait, stop := context.WithTimeout(ctx, 60*time.Second)
	defer stop()
	got, err := notes.Wait(wait, 1)
	if err != nil {
		t.Fatalf("no notification on the bus: %v\n%s", err, logs.String())
	}
	n := got[0]
	if !strings.Contains(n.Summary, "Rack Phone 7") || !strings.Contains(n.Body, "Confirm") || !strings.Contains(n.Body, "it pays the rent") {
		t.Fatalf("the notification: %+v", n)
	}
	t.Logf("notified: %q / %q", n.Summary, n.Body)

	// Back in the window: the next confirmation is seen there, not told.
	s.focusWindow()
	s.xdo("key", "Tab", "Tab", "Tab", "Return") // from the reason box past Stop and Deny to Allow
	s.awaitRecord("WaitingForUser", 2)
	s.xdo("key", "Tab", "Tab", "Tab", "Return")
	s.awaitRecord("Done", 1)
	if got := notes.All(); len(got) != 1 {
		t.Fatalf("%d notifications, want 1: %+v", len(got), got)
	}
}

// focusElsewhere opens another window (an xterm) and gives it the focus,
// as a person moving to another program; it closes with ctx, or when the
// returned function is called (the person closes it).
func focusElsewhere(ctx context.Context, s *stateShooter) (closeIt func()) {
	s.t.Helper()
	term := exec.CommandContext(ctx, "xterm", "-title", "elsewhere", "-geometry", "20x3+0+0")
	term.Env = s.d.Env()
	if err := term.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { _ = term.Process.Kill(); _ = term.Wait() })
	var id string
	s.await("the other window", func(image.Image) bool {
		c := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^elsewhere$") // mapped: focus needs a viewable window
		c.Env = s.d.Env()
		out, _ := c.Output()
		id = strings.TrimSpace(string(out))
		return id != ""
	})
	s.xdo("windowfocus", "--sync", strings.Fields(id)[0])
	return func() {
		_ = term.Process.Kill()
		s.await("the other window gone", func(image.Image) bool {
			c := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^elsewhere$")
			c.Env = s.d.Env()
			out, _ := c.Output()
			return strings.TrimSpace(string(out)) == ""
		})
	}
}
