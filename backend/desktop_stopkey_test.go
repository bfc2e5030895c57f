//go:build linux

package backend

import (
	"context"
	"errors"
	"os/exec"
	"testing"
	"time"

	"tandem/engine"
	"tandem/internal/xvfb"
)

// The person chooses the desktop's stop hotkey in Settings (issue 49 item
// 7): a chord that cannot be one is refused in the field's words; the one
// chosen stops the next run on this computer from any window.
func TestTheChosenStopHotkeyStopsADesktopRun(t *testing.T) {
	if _, err := exec.LookPath("xdotool"); err != nil {
		t.Skip("xdotool is not installed")
	}
	d := xvfb.Start(t, 1280, 800)
	t.Setenv("DISPLAY", d.Name)
	b, p, _ := desktopRig(t)

	cur, _, _ := b.settings.Load()
	cur.StopHotkey = "k"
	var field *FieldError
	if _, err := b.SaveSettings(cur); !errors.As(err, &field) || field.Rule != "stop_hotkey" || Say(err).Code != "field.stop_hotkey" {
		t.Fatalf("a stop hotkey with no modifier: %v", err)
	}
	cur.StopHotkey = "Ctrl+Alt+K"
	saved, err := b.SaveSettings(cur)
	if err != nil || saved.StopHotkey != "ctrl+alt+k" {
		t.Fatalf("saved %q, %v", saved.StopHotkey, err)
	}
	if got := b.Info().StopKeyDefault; got == "" {
		t.Fatal("Info names no default stop hotkey")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := startHold(ctx, t, b, p)
	for run.State() != engine.Executing {
		if ctx.Err() != nil {
			t.Fatalf("the agent's press never started: %s", run.State())
		}
		time.Sleep(20 * time.Millisecond) // until the long press is under way
	}
	xdo := exec.Command("xdotool", "key", "ctrl+alt+k")
	xdo.Env = d.Env()
	if out, err := xdo.CombinedOutput(); err != nil {
		t.Fatalf("xdotool: %v %s", err, out)
	}
	res, err := run.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.State != engine.Stopped {
		t.Fatalf("after the chosen stop hotkey the run is %s (%s), want Stopped", res.State, res.Reason)
	}
}
