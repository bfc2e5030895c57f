package devices

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tandem/devices/adb"
)

// Two registries stand for two Tandems (the lock is per open file, so
// two opens in one process refuse each other as two processes do).
func TestOneDriverPerDevice(t *testing.T) {
	// Not t.TempDir: under Wine its RemoveAll fails on these files
	// ("Invalid function") though every handle is closed; os.Remove
	// deletes them, which also shows no lease is left open.
	dir, err := os.MkdirTemp("", "lease")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		files, _ := os.ReadDir(dir)
		for _, f := range files {
			if err := os.Remove(filepath.Join(dir, f.Name())); err != nil {
				t.Errorf("a lease file is still open: %v", err)
			}
		}
		_ = os.Remove(dir)
	}()
	a, b := New(adb.Server{Addr: "127.0.0.1:5999"}, ""), New(adb.Server{Addr: "127.0.0.1:5999"}, "")
	other := New(adb.Server{Addr: "127.0.0.1:6001"}, "")
	for _, r := range []*Registry{a, b, other} {
		r.SetLeaseDir(dir)
	}
	ctx := context.Background()
	release, err := a.Lease(ctx, "phone1", Holder{Door: "mcp", Client: "claude-code"}, false)
	if err != nil {
		t.Fatal(err)
	}
	again, err := a.Lease(ctx, "phone1", Holder{Door: "mcp"}, false) // this process: counted
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Lease(ctx, "phone1", Holder{Door: "run"}, false)
	var held *HeldError
	if !errors.As(err, &held) || held.By.Client != "claude-code" || held.By.PID != os.Getpid() ||
		!strings.Contains(err.Error(), `phone1 is in use by the MCP client "claude-code" through tandem mcp (process`) {
		t.Fatalf("a second driver: %v", err)
	}
	if h := b.HeldBy("phone1"); h == nil || h.Door != "mcp" {
		t.Fatalf("HeldBy %+v", h)
	}
	if a.HeldBy("phone1") != nil {
		t.Fatal("this process's own lease is listed as another's")
	}
	if r, err := other.Lease(ctx, "phone1", Holder{}, false); err != nil { // another adb server's phone1
		t.Fatalf("the same serial on another adb server: %v", err)
	} else {
		r()
	}
	release()
	if b.HeldBy("phone1") == nil {
		t.Fatal("let go while a second hold of this process remains")
	}
	waited := make(chan error, 1)
	go func() {
		r, err := b.Lease(ctx, "phone1", Holder{Door: "run"}, true)
		if r != nil {
			r()
		}
		waited <- err
	}()
	again()
	select {
	case err := <-waited:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting driver never got the device")
	}
	ctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	r, _ := a.Lease(context.Background(), "phone1", Holder{Door: "window"}, false)
	defer r()
	if _, err := b.Lease(ctx, "phone1", Holder{}, true); !errors.Is(err, ErrHeld) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a wait that ends: %v", err)
	}
}

// A holder is named as the person knows it: the door, an MCP client by
// name (through whichever door serves it), the process.
func TestHolderNames(t *testing.T) {
	for _, c := range []struct {
		h    Holder
		want string
	}{
		{Holder{Door: "window", PID: 3}, "the Tandem window (process 3)"},
		{Holder{Door: "run", PID: 4}, "tandem run (process 4)"},
		{Holder{Door: "mcp", Client: "claude-code", PID: 5}, `the MCP client "claude-code" through tandem mcp (process 5)`},
		{Holder{Door: "window", Client: "cursor", PID: 6}, `the MCP client "cursor" through the Tandem window (process 6)`},
		{Holder{}, "another Tandem"},
		{Holder{Door: "run", PID: 7, Goal: "Pay"}, `tandem run (process 7)`},
	} {
		if got := c.h.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.h, got, c.want)
		}
	}
	if got := (Holder{Door: "run", PID: 7, Goal: "Pay"}).Doing(); got != `tandem run (process 7), doing "Pay"` {
		t.Errorf("Doing: %q", got)
	}
}
