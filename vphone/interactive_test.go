package vphone_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"tandem/vphone/vphonetest"
)

// An interactive `adb shell` reads lines from stdin; `adb shell cat` passes stdin through.
func TestInteractiveAndStdin(t *testing.T) {
	t.Parallel()
	_, env := vphonetest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := env.Command(ctx, "shell")
	cmd.Stdin = strings.NewReader("echo one\ngetprop ro.product.model\nexit\n")
	out, err := cmd.CombinedOutput()
	if want := "vphone:/ $ one\nvphone:/ $ Tandem Virtual Phone\nvphone:/ $ "; err != nil || string(out) != want {
		t.Fatalf("interactive: %q %v, want %q", out, err, want)
	}
	cmd = env.Command(ctx, "shell", "cat")
	cmd.Stdin = strings.NewReader("piped stdin\n")
	out, err = cmd.CombinedOutput()
	if err != nil || string(out) != "piped stdin\n" {
		t.Fatalf("stdin: %q %v", out, err)
	}
}
