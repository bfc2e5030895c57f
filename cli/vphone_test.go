package cli

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"tandem/vphone/vphonetest"
)

// `tandem vphone` attaches a phone to an adb server, prints its serial,
// logs each input it receives (--events) and detaches it on cancel.
func TestVphoneCommand(t *testing.T) {
	adb, port := vphonetest.StartServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	events := filepath.Join(t.TempDir(), "events.jsonl")
	go func() {
		done <- Run(ctx, Env{Args: []string{"vphone", "--adb-port", strconv.Itoa(port), "--events", events}, Stdout: pw, Stderr: io.Discard})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no serial printed: %v (exit %v)", err, <-done)
	}
	serial := strings.TrimSpace(line)
	devices := func() string {
		out, _ := exec.Command(adb, "-P", strconv.Itoa(port), "devices").CombinedOutput()
		return string(out)
	}
	if !strings.Contains(devices(), serial+"\tdevice") {
		t.Fatalf("%s not in adb devices:\n%s", serial, devices())
	}
	if out, err := exec.Command(adb, "-P", strconv.Itoa(port), "-s", serial, "shell", "input tap 5 6").CombinedOutput(); err != nil {
		t.Fatalf("input tap: %v %s", err, out)
	}
	// The line is there by the time the command has returned.
	if b, err := os.ReadFile(events); err != nil || !strings.HasPrefix(string(b), `{"kind":"tap","args":["5","6"],"x":5,"y":6,"at":`) ||
		strings.Count(string(b), "\n") != 1 {
		t.Fatalf("event log %q, %v", b, err)
	}
	cancel()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Fatalf("exit %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("tandem vphone did not stop")
	}
	if strings.Contains(devices(), serial) {
		t.Fatalf("%s still attached:\n%s", serial, devices())
	}
}

func TestVphoneUsage(t *testing.T) {
	if code := Run(context.Background(), Env{Args: []string{"vphone", "extra"}, Stdout: io.Discard, Stderr: io.Discard}); code != ExitUsage {
		t.Fatalf("exit %d", code)
	}
}
