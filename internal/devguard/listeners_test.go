package devguard

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/internal/xvfb"
)

// devBinary is the development binary `make build-dev` makes; `make test`
// passes its path in TANDEM_DEV_BIN (as the browser suite reads it).
func devBinary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("TANDEM_DEV_BIN")
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TANDEM_DEV_BIN is not set: run make test, which builds build/bin/tandem-dev")
		}
		t.Skip("TANDEM_DEV_BIN not set (make test sets it)")
	}
	return bin
}

// TestEveryListenerRefusesOtherSites starts the development binary under
// Xvfb, as the browser suite does, finds every TCP port the process listens
// on (the gate, the mirror's server, and whatever else), and sends each
// what a page on another site can send: a page load, Wails' runtime script,
// and a WebSocket to Wails' IPC (which calls the app's bound methods), with
// that site's Origin, with and without the launch's token. Every one is
// refused; the gate still serves the app's own page.
func TestEveryListenerRefusesOtherSites(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the listening sockets are read from /proc")
	}
	bin := devBinary(t)
	d := xvfb.Start(t, 1280, 800)
	port := freePort(t)
	const token = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
	assets := t.TempDir()
	if err := os.WriteFile(filepath.Join(assets, "index.html"), []byte("<!doctype html><title>tandem</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-devserver", "127.0.0.1:"+strconv.Itoa(port), "-assetdir", assets)
	cmd.Env = append(d.Env(), "TANDEM_DEV_TOKEN="+token, "TANDEM_CONFIG_DIR="+t.TempDir(), "TANDEM_DATA_DIR="+t.TempDir(),
		"TANDEM_ADB_PORT="+strconv.Itoa(freePort(t)), "ADB_LOCAL_TRANSPORT_MAX_PORT=0", "LANG=en_US.UTF-8")
	var logs syncBuf
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	gate := "127.0.0.1:" + strconv.Itoa(port)

	// Up: the gate serves the app's page and Wails' runtime to the token.
	deadline := time.Now().Add(90 * time.Second)
	for status(t, gate, "/wails/ipc.js?token="+token, "") != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatalf("the dev binary never served its page\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond) // polling until it serves
	}
	// The mirror's server starts with the app: wait for it, so the set of
	// ports is the running app's.
	var ports []int
	for {
		ports = listening(t, cmd.Process.Pid)
		if slices.ContainsFunc(ports, func(p int) bool { return isMirror(t, p) }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the mirror's server never listened; ports %v\n%s", ports, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("the dev binary listens on %v (the gate is %d)", ports, port)

	const evil = "https://evil.example"
	for _, p := range ports {
		addr := "127.0.0.1:" + strconv.Itoa(p)
		for _, path := range []string{"/", "/?token=" + token, "/wails/ipc.js", "/wails/ipc.js?token=" + token, "/wails/runtime.js"} {
			if s := status(t, addr, path, evil); s < 400 {
				t.Errorf("port %d answered %s from %s with %d", p, path, evil, s)
			}
		}
		for _, path := range []string{"/wails/ipc", "/wails/ipc?token=" + token} {
			if s := upgrade(t, addr, path, evil); s == http.StatusSwitchingProtocols {
				t.Errorf("port %d opened Wails' IPC WebSocket at %s to %s", p, path, evil)
			}
		}
	}
	// The app's own page still works through the gate.
	if s := status(t, gate, "/?token="+token, "http://"+gate); s != http.StatusOK {
		t.Errorf("the gate refused the app's own page: %d", s)
	}
	if s := upgrade(t, gate, "/wails/ipc?token="+token, "http://"+gate); s != http.StatusSwitchingProtocols {
		t.Errorf("the gate refused the app's own IPC WebSocket: %d", s)
	}
	if t.Failed() {
		t.Log(logs.String())
	}
}

// status GETs path at addr with origin (none when ""), as a browser would.
func status(t *testing.T, addr, path, origin string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	c := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		return 0 // not up yet, or refused outright
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// upgrade asks for a WebSocket at path from origin and returns the status.
func upgrade(t *testing.T, addr, path, origin string) int {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return 0
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", path, addr, origin)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// isMirror: port p answers as the mirror's frame server does to a stream
// request without its token.
func isMirror(t *testing.T, p int) bool {
	t.Helper()
	return status(t, "127.0.0.1:"+strconv.Itoa(p), "/stream/00", "") == http.StatusUnauthorized
}

// listening returns the TCP ports process pid listens on: its sockets (the
// inodes behind /proc/PID/fd) that /proc/PID/net/tcp{,6} lists in LISTEN.
func listening(t *testing.T, pid int) []int {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if ino, ok := strings.CutPrefix(link, "socket:["); ok && err == nil {
			inodes[strings.TrimSuffix(ino, "]")] = true
		}
	}
	var ports []int
	for _, table := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			if len(f) < 10 || f[3] != "0A" || !inodes[f[9]] {
				continue
			}
			_, hexPort, _ := strings.Cut(f[1], ":")
			if n, err := strconv.ParseInt(hexPort, 16, 32); err == nil && !slices.Contains(ports, int(n)) {
				ports = append(ports, int(n))
			}
		}
	}
	slices.Sort(ports)
	return ports
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// syncBuf is a bytes.Buffer the child's two pipes write to.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
