package adb

import (
	"context"
	"errors"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"tandem/engine/device"
	"tandem/vphone/vphonetest"
)

// freePort returns a TCP port on 127.0.0.1 that nothing listens on now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// privateServer starts an adb server of its own on a free port, one that
// never scans for emulators, and kills it when the test ends.
func privateServer(t testing.TB) Server {
	t.Helper()
	if _, err := exec.LookPath("adb"); err != nil {
		t.Skip("adb is not installed (apt-get install adb)")
	}
	// Its port is below the ephemeral range, where no parallel test's fake
	// phone (a listener on port 0) can take it before the server binds it;
	// two servers that pick one port is a chance in thousands, and a
	// start that fails tries another.
	var err error
	for range 5 {
		s := Server{Addr: "127.0.0.1:" + strconv.Itoa(vphonetest.ServerPort(t)), Env: []string{"ADB_LOCAL_TRANSPORT_MAX_PORT=0"}}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		err = s.Start(ctx)
		cancel()
		if err == nil {
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = s.Kill(ctx)
			})
			return s
		}
	}
	t.Fatal(err)
	return Server{}
}

func TestServerHostRequests(t *testing.T) {
	t.Parallel()
	s := privateServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	v, err := s.Version(ctx)
	if err != nil || v < 30 {
		t.Fatalf("version %d, %v", v, err)
	}
	list, err := s.Devices(ctx)
	if err != nil || len(list) != 0 {
		t.Fatalf("devices %v, %v", list, err)
	}
	if err := s.Ensure(ctx); err != nil {
		t.Fatalf("ensure on a running server: %v", err)
	}

	// A device the server does not know is gone, for every kind of call.
	if _, err := s.State(ctx, "nosuch-1234"); !errors.Is(err, device.ErrGone) {
		t.Errorf("state of unknown serial: %v", err)
	}
	if _, err := s.Shell(ctx, "nosuch-1234", true, "echo hi"); !errors.Is(err, device.ErrGone) {
		t.Errorf("shell on unknown serial: %v", err)
	}
	if _, err := s.Exec(ctx, "nosuch-1234", "screencap -p", 1<<20); !errors.Is(err, device.ErrGone) {
		t.Errorf("exec on unknown serial: %v", err)
	}
	if _, err := Open(ctx, Options{Server: s}); !errors.Is(err, device.ErrGone) {
		t.Errorf("open with no phone: %v", err)
	}

	// A FAIL reply is typed and carries the server's words.
	_, err = s.Query(ctx, "host:no-such-request")
	var fe *FailError
	if !errors.As(err, &fe) || fe.Msg == "" {
		t.Errorf("unknown request: %v", err)
	}
}

func TestServerTrack(t *testing.T) {
	t.Parallel()
	s := privateServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan []Entry, 4)
	done := make(chan error, 1)
	go func() { done <- s.Track(ctx, func(l []Entry) { got <- l }) }()
	select {
	case l := <-got:
		if len(l) != 0 {
			t.Errorf("first list %v, want empty", l)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no initial device list")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("track ended with %v", err)
		}
	case <-time.After(time.Second):
		t.Fatal("track did not stop on cancel")
	}
}

// Not parallel: it needs a port nobody listens on, and the parallel tests
// start servers on free ports.
func TestServerEnsureStartsOne(t *testing.T) {
	if _, err := exec.LookPath("adb"); err != nil {
		t.Skip("adb is not installed")
	}
	s := Server{Addr: "127.0.0.1:" + strconv.Itoa(freePort(t)), Env: []string{"ADB_LOCAL_TRANSPORT_MAX_PORT=0"}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := s.Version(ctx); !errors.Is(err, ErrNoServer) {
		t.Fatalf("before start: %v, want ErrNoServer", err)
	}
	if err := s.Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	defer s.Kill(ctx)
	if _, err := s.Version(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestServerNoADBBinary(t *testing.T) { // not parallel: see above
	s := Server{Addr: "127.0.0.1:" + strconv.Itoa(freePort(t)), ADB: "/nonexistent/adb"}
	err := s.Ensure(context.Background())
	if !errors.Is(err, ErrNoServer) {
		t.Fatalf("got %v", err)
	}
	remote := Server{Addr: "192.0.2.1:5037"}
	if err := remote.Start(context.Background()); !errors.Is(err, ErrNoServer) {
		t.Fatalf("remote start: %v", err)
	}
}

// A server that accepts and never answers must not hold a call past its context.
func TestServerSilentHonoursContext(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		var held []net.Conn // accepted and never answered
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	s := Server{Addr: l.Addr().String()}
	for name, call := range map[string]func(context.Context) error{
		"version": func(ctx context.Context) error { _, err := s.Version(ctx); return err },
		"shell":   func(ctx context.Context) error { _, err := s.Shell(ctx, "x", true, "true"); return err },
		"exec":    func(ctx context.Context) error { _, err := s.Exec(ctx, "x", "true", 10); return err },
		"track":   func(ctx context.Context) error { return s.Track(ctx, func([]Entry) {}) },
		"connect": func(ctx context.Context) error { _, err := s.Connect(ctx, "127.0.0.1:1"); return err },
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		err := returnsBy(t, name, 30*time.Second, func() error { return call(ctx) })
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %v, want deadline exceeded", name, err)
		}
	}
}

func TestConnectFailureExplainsPairing(t *testing.T) {
	t.Parallel()
	s := privateServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := s.Connect(ctx, "127.0.0.1:"+strconv.Itoa(freePort(t)))
	if !errors.Is(err, ErrConnect) {
		t.Fatalf("got %v", err)
	}
	for _, want := range []string{"adb tcpip 5555", "Android 11"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if _, err := s.Connect(ctx, "1.2.3.4:notaport"); !errors.Is(err, ErrConnect) {
		t.Errorf("bad port: %v", err)
	}
}
