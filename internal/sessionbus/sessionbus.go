// Package sessionbus gives a test a private D-Bus session bus of its own
// (a dbus-daemon started for it, stopped after it) and a fake desktop
// notification server on that bus, which keeps every notification it is
// sent and can click one. It is apart so that every test that must read
// the desktop's notifications from the bus — the backend's, and a window
// test that starts the real binary with the bus's address — shares one
// way to do it, with no notification daemon of the machine involved.
package sessionbus

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// Bus is a private session bus.
type Bus struct {
	// Addr is the bus's address, for DBUS_SESSION_BUS_ADDRESS.
	Addr string
}

// The bus's own configuration: a session bus on a socket in a folder of the
// test's, with no service activation, so no notification daemon of the
// machine can be started on it.
const config = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=%s</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`

// Start starts a private session bus for t (skipping t where dbus-daemon
// is not installed) and points this process's DBUS_SESSION_BUS_ADDRESS at
// it for the test's length (t.Setenv: not for parallel tests). A program
// the test starts finds it in its environment, or in b.Addr.
func Start(t testing.TB) *Bus {
	t.Helper()
	daemon, err := exec.LookPath("dbus-daemon")
	if err != nil {
		t.Skip("dbus-daemon is not installed")
	}
	// A short folder: a unix socket's path is at most 108 bytes.
	dir, err := os.MkdirTemp("", "bus")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	conf := filepath.Join(dir, "session.conf")
	if err := os.WriteFile(conf, fmt.Appendf(nil, config, dir), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, daemon, "--config-file="+conf, "--nofork", "--print-address")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		addr <- strings.TrimSpace(line)
	}()
	select {
	case a := <-addr:
		if a == "" {
			t.Fatal("dbus-daemon printed no address")
		}
		t.Setenv("DBUS_SESSION_BUS_ADDRESS", a)
		return &Bus{Addr: a}
	case <-time.After(30 * time.Second):
		t.Fatal("dbus-daemon did not start within 30 s")
	}
	return nil
}

// Connect opens a private connection to the bus, closed after the test.
func (b *Bus) Connect(t testing.TB) *dbus.Conn {
	t.Helper()
	conn, err := dbus.Connect(b.Addr)
	if err != nil {
		t.Fatalf("connect to the test's session bus: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// Notification is one Notify call the fake server got.
type Notification struct {
	ID      uint32
	App     string
	Summary string
	Body    string
	Actions []string
	Hints   map[string]dbus.Variant
}

// Server is a fake org.freedesktop.Notifications server: it answers
// Notify with a new id and keeps the call.
type Server struct {
	conn *dbus.Conn

	mu    sync.Mutex
	notes []Notification
	more  chan struct{} // closed and replaced on every note
}

const (
	name = "org.freedesktop.Notifications"
	path = dbus.ObjectPath("/org/freedesktop/Notifications")
)

// Notifications serves a fake notification server on the bus for the
// test's length.
func (b *Bus) Notifications(t testing.TB) *Server {
	t.Helper()
	s := &Server{conn: b.Connect(t), more: make(chan struct{})}
	if err := s.conn.Export(notifications{s}, path, name); err != nil {
		t.Fatal(err)
	}
	reply, err := s.conn.RequestName(name, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s on the test's bus: %v (reply %d)", name, err, reply)
	}
	return s
}

// All returns every notification so far, in order.
func (s *Server) All() []Notification {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Notification(nil), s.notes...)
}

// Wait returns the notifications once there are at least n, or what there
// is when ctx ends (with its error).
func (s *Server) Wait(ctx context.Context, n int) ([]Notification, error) {
	for {
		s.mu.Lock()
		notes, more := append([]Notification(nil), s.notes...), s.more
		s.mu.Unlock()
		if len(notes) >= n {
			return notes, nil
		}
		select {
		case <-more:
		case <-ctx.Done():
			return notes, ctx.Err()
		}
	}
}

// Click is the person clicking notification id: the server signals its
// default action, as a desktop does.
func (s *Server) Click(id uint32) error {
	return s.conn.Emit(path, name+".ActionInvoked", id, "default")
}

// notifications is the exported object: its methods are the D-Bus
// interface's (godbus exports every method that returns a *dbus.Error).
type notifications struct{ s *Server }

func (n notifications) Notify(app string, _ uint32, _, summary, body string, actions []string,
	hints map[string]dbus.Variant, _ int32) (uint32, *dbus.Error) {
	s := n.s
	s.mu.Lock()
	defer s.mu.Unlock()
	id := uint32(len(s.notes) + 1)
	s.notes = append(s.notes, Notification{ID: id, App: app, Summary: summary, Body: body, Actions: actions, Hints: hints})
	close(s.more)
	s.more = make(chan struct{})
	return id, nil
}

func (notifications) GetCapabilities() ([]string, *dbus.Error) {
	return []string{"body", "actions"}, nil
}

func (notifications) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "tandem-test", "tandem", "1", "1.2", nil
}

func (notifications) CloseNotification(uint32) *dbus.Error { return nil }
