// Package xvfb starts a private X display for tests: a free display number,
// -noreset (kbinani/screenshot opens a connection per capture and Xvfb would
// otherwise reset when the last client leaves), torn down when the test ends.
package xvfb

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Display is a running Xvfb server.
type Display struct {
	Num    int
	Name   string // ":N", the value for DISPLAY
	Width  int
	Height int
	cmd    *exec.Cmd
}

// Env returns os.Environ with DISPLAY pointing at this display.
func (d *Display) Env() []string {
	env := []string{}
	for _, kv := range os.Environ() {
		if len(kv) >= 8 && kv[:8] == "DISPLAY=" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "DISPLAY="+d.Name)
}

// Start starts Xvfb at w x h x 24 on a free display number and stops it when
// the test ends. It skips the test when Xvfb is not installed, except under CI
// (CI=true), where a missing Xvfb is a set-up bug and fails the test.
func Start(tb testing.TB, w, h int) *Display {
	tb.Helper()
	if _, err := exec.LookPath("Xvfb"); err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("Xvfb is not installed (run make test, which installs it): %v", err)
		}
		tb.Skip("Xvfb is not installed")
	}
	d, err := Launch(context.Background(), w, h)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(d.Stop)
	return d
}

// Launch starts Xvfb outside a test. The caller must call Stop.
func Launch(ctx context.Context, w, h int) (*Display, error) {
	for attempt := 0; attempt < 20; attempt++ {
		n := freeNumber()
		d := &Display{Num: n, Name: ":" + strconv.Itoa(n), Width: w, Height: h}
		d.cmd = exec.Command("Xvfb", d.Name, "-screen", "0", fmt.Sprintf("%dx%dx24", w, h),
			"-nolisten", "tcp", "-noreset", "-ac")
		if err := d.cmd.Start(); err != nil {
			return nil, fmt.Errorf("start Xvfb: %w", err)
		}
		exited := make(chan error, 1)
		go func() { exited <- d.cmd.Wait() }()
		if err := waitSocket(ctx, n, exited); err != nil {
			_ = d.cmd.Process.Kill()
			continue // most likely lost a race for the number: try another
		}
		go func() { <-exited }()
		return d, nil
	}
	return nil, fmt.Errorf("could not start Xvfb on any free display")
}

// Stop kills the server and removes its socket and lock.
func (d *Display) Stop() {
	if d.cmd != nil && d.cmd.Process != nil {
		_ = d.cmd.Process.Kill()
	}
	_ = os.Remove(filepath.Join("/tmp/.X11-unix", "X"+strconv.Itoa(d.Num)))
	_ = os.Remove(fmt.Sprintf("/tmp/.X%d-lock", d.Num))
}

// freeNumber picks a display number with no lock file, starting at a
// per-process offset so parallel test binaries rarely collide.
func freeNumber() int {
	start := 100 + (os.Getpid()*7+int(time.Now().UnixNano()/1e6))%800
	for i := 0; i < 800; i++ {
		n := 100 + (start-100+i)%800
		if _, err := os.Stat(fmt.Sprintf("/tmp/.X%d-lock", n)); os.IsNotExist(err) {
			return n
		}
	}
	return start
}

// waitSocket waits until the display accepts connections on its unix socket.
func waitSocket(ctx context.Context, n int, exited <-chan error) error {
	path := filepath.Join("/tmp/.X11-unix", "X"+strconv.Itoa(n))
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if c, err := net.Dial("unix", path); err == nil {
			c.Close()
			return nil
		}
		select {
		case err := <-exited:
			return fmt.Errorf("xvfb :%d exited: %v", n, err)
		case <-deadline.C:
			return fmt.Errorf("xvfb :%d did not come up in 10 s", n)
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}
