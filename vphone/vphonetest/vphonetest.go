// Package vphonetest starts a virtual phone behind a private, real adb
// server for a test.
//
// Why a private server: tests must never see or disturb a developer's real
// phones or adb server, and must run in parallel. Each Start runs its own
// `adb -P <free port> start-server` with ADB_LOCAL_TRANSPORT_MAX_PORT=0 (so
// the server does not probe the emulator ports 5555-5585), attaches its own
// phone with `adb connect`, waits until the phone is `device`, and kills the
// server at cleanup. Tests skip when adb is missing, except under CI=true,
// where a missing adb fails the test.
package vphonetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"tandem/vphone"
)

// Env is how a test reaches the phone through the adb server.
type Env struct {
	ADB     string // path of the adb binary
	Port    int    // the private adb server's port
	Serial  string // the phone's serial ("127.0.0.1:PORT")
	Address string // where the phone listens
}

// Command returns an `adb -P PORT -s SERIAL args...` command.
func (e Env) Command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, e.ADB, append([]string{"-P", strconv.Itoa(e.Port), "-s", e.Serial}, args...)...)
	cmd.Env = adbEnv(e.Port)
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// Run runs adb with args against the phone and returns stdout, stderr and
// the exit code; it fails the test only if adb could not be run at all.
func (e Env) Run(t testing.TB, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := e.Command(ctx, args...)
	var o, er bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &er
	err := cmd.Run()
	if err != nil {
		if !errors.As(err, new(*exec.ExitError)) {
			t.Fatalf("adb %s: %v", strings.Join(args, " "), err)
		}
	}
	return o.String(), er.String(), cmd.ProcessState.ExitCode()
}

// Shell runs `adb shell CMD` and fails the test if it exits non-zero.
func (e Env) Shell(t testing.TB, cmd string) string {
	t.Helper()
	out, errOut, code := e.Run(t, "shell", cmd)
	if code != 0 {
		t.Fatalf("adb shell %q: exit %d: %s%s", cmd, code, out, errOut)
	}
	return out
}

func adbEnv(port int) []string {
	env := []string{"ADB_LOCAL_TRANSPORT_MAX_PORT=0", "ANDROID_ADB_SERVER_PORT=" + strconv.Itoa(port)}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ANDROID_ADB_SERVER_PORT=") && !strings.HasPrefix(kv, "ANDROID_SERIAL=") &&
			!strings.HasPrefix(kv, "ADB_LOCAL_TRANSPORT_MAX_PORT=") {
			env = append(env, kv)
		}
	}
	return env
}

// ADB returns the adb binary's path, skipping the test without one (and
// failing it under CI=true).
func ADB(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("adb")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("adb is not installed (apt-get install adb): %v", err)
		}
		t.Skipf("adb is not installed: %v", err)
	}
	return path
}

// StartServer starts a private adb server and kills it at cleanup.
func StartServer(t testing.TB) (adb string, port int) {
	t.Helper()
	adb = ADB(t)
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port = ServerPort(t)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, adb, "-P", strconv.Itoa(port), "start-server")
		cmd.Env = adbEnv(port)
		cmd.WaitDelay = 2 * time.Second
		out, err := cmd.CombinedOutput()
		cancel()
		if err == nil {
			t.Cleanup(func() { killServer(adb, port) })
			return adb, port
		}
		lastErr = fmt.Errorf("%v: %s", err, out)
		killServer(adb, port)
	}
	t.Fatalf("starting a private adb server: %v", lastErr)
	return "", 0
}

func killServer(adb string, port int) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, adb, "-P", strconv.Itoa(port), "kill-server")
	cmd.Env = adbEnv(port)
	cmd.WaitDelay = 2 * time.Second
	_ = cmd.Run()
}

// ServerPort is a free port for a private adb server, below the kernel's
// ephemeral range. A port from that range (net.Listen on port 0) is free
// again once its check closes, and a parallel test's listener on port 0
// (a fake phone's) could take it before the adb server binds it: `adb
// start-server` then talks to the fake and fails with a protocol fault
// (seen in make test). Below the range only another ServerPort can pick
// it, one chance in thousands, and StartServer tries again then.
func ServerPort(t testing.TB) int {
	t.Helper()
	low := 32768 // Linux's default first ephemeral port
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				low = n
			}
		}
	}
	const from = 10000
	for i := 0; i < 200 && low > from+1000; i++ {
		port := from + rand.IntN(low-from)
		if ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
			ln.Close()
			return port
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Start starts a phone with opts behind a private adb server and returns
// it with the way to reach it; everything is torn down at cleanup.
func Start(t testing.TB, opts ...vphone.Option) (*vphone.Phone, Env) {
	t.Helper()
	adb, port := StartServer(t)
	p, err := vphone.New(opts...)
	if err != nil {
		t.Fatalf("vphone: %v", err)
	}
	if err := p.Listen("127.0.0.1:0"); err != nil {
		t.Fatalf("vphone: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	env := Env{ADB: adb, Port: port, Serial: p.Addr(), Address: p.Addr()}
	if err := Connect(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	return p, env
}

// Connect attaches the phone at env.Address to the server and waits until
// its state is `device` (10 s at most).
func Connect(ctx context.Context, env Env) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	run := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, env.ADB, append([]string{"-P", strconv.Itoa(env.Port)}, args...)...)
		cmd.Env = adbEnv(env.Port)
		cmd.WaitDelay = 2 * time.Second
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	out, err := run("connect", env.Address)
	if err != nil || !strings.Contains(out, "connected to") {
		return fmt.Errorf("adb connect %s: %v: %s", env.Address, err, out)
	}
	for {
		state, _ := run("-s", env.Serial, "get-state")
		if state == "device" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("phone %s did not come online (state %q): %w", env.Serial, state, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
