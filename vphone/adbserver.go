package vphone

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// ErrNoADB is returned when the adb binary is not installed.
var ErrNoADB = errors.New("vphone: adb is not installed (Debian/Ubuntu: apt-get install adb)")

// ADBServer is an adb server reached through the adb binary, for
// attaching a phone to it (what `tandem vphone` does for a user).
type ADBServer struct {
	Path string // the adb binary; "" = looked up in PATH
	Port int    // the server's port; 0 = 5037
}

func (s ADBServer) run(ctx context.Context, args ...string) (string, error) {
	path := s.Path
	if path == "" {
		p, err := exec.LookPath("adb")
		if err != nil {
			return "", ErrNoADB
		}
		path = p
	}
	cmd := exec.CommandContext(ctx, path, append([]string{"-P", strconv.Itoa(s.port())}, args...)...)
	cmd.WaitDelay = 2 * time.Second
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func (s ADBServer) port() int {
	if s.Port == 0 {
		return 5037
	}
	return s.Port
}

// Ensure starts the server unless something already listens on its port.
func (s ADBServer) Ensure(ctx context.Context) error {
	var d net.Dialer
	if c, err := d.DialContext(ctx, "tcp", "127.0.0.1:"+strconv.Itoa(s.port())); err == nil {
		c.Close()
		return nil
	}
	if out, err := s.run(ctx, "start-server"); err != nil {
		return fmt.Errorf("vphone: adb start-server on port %d: %w: %s", s.port(), err, out)
	}
	return nil
}

// Attach connects the server to the phone at addr and waits until the
// phone is online (state `device`).
func (s ADBServer) Attach(ctx context.Context, addr string) error {
	out, err := s.run(ctx, "connect", addr)
	if err != nil || !strings.Contains(out, "connected to") {
		return fmt.Errorf("vphone: adb connect %s: %v: %s", addr, err, out)
	}
	for {
		state, _ := s.run(ctx, "-s", addr, "get-state")
		if state == "device" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("vphone: %s did not come online (state %q): %w", addr, state, ctx.Err())
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// Detach disconnects the server from the phone at addr.
func (s ADBServer) Detach(ctx context.Context, addr string) error {
	if out, err := s.run(ctx, "disconnect", addr); err != nil {
		return fmt.Errorf("vphone: adb disconnect %s: %w: %s", addr, err, out)
	}
	return nil
}
