package adb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// hostServer answers each connection's request (after a transport's
// OKAY) with reply (nil: nothing) and is silent from then on, as a hostile
// or stuck adb server on another computer.
func hostServer(t *testing.T, reply func(req string) []byte) Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var n [4]byte
				req := []byte("host:transport:")
				for strings.HasPrefix(string(req), "host:transport:") { // the transport, then the service
					if _, err := io.ReadFull(c, n[:]); err != nil {
						return
					}
					var size int
					fmt.Sscanf(string(n[:]), "%04x", &size)
					req = make([]byte, size)
					if _, err := io.ReadFull(c, req); err != nil {
						return
					}
					if strings.HasPrefix(string(req), "host:transport:") {
						_, _ = c.Write([]byte("OKAY"))
					}
				}
				_, _ = c.Write(reply(string(req)))
				_, _ = io.Copy(io.Discard, c) // then silent until the client goes
			}()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return Server{Addr: ln.Addr().String(), Patience: 300 * time.Millisecond}
}

func okay(body string) []byte { return fmt.Appendf(nil, "OKAY%04x%s", len(body), body) }

// A server that accepts and never answers is given up on within its
// patience, with a message that says so, for a query and for a service.
func TestASilentServerIsGivenUpOn(t *testing.T) {
	srv := hostServer(t, func(string) []byte { return nil })
	// The context is far longer than the patience: a SilentError (not the
	// context's end) is the patience's doing, however busy the machine.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := srv.Devices(ctx)
	var silent *SilentError
	if !errors.As(err, &silent) || !strings.Contains(err.Error(), "did not answer host:devices-l") {
		t.Fatalf("devices on a silent server: %v", err)
	}
	if _, err := srv.Open(ctx, "emulator-5554", "exec:screencap"); !errors.As(err, &silent) {
		t.Fatalf("a service on a silent server: %v", err)
	}
}

// A device list of one serial thousands of times, or of more phones than
// a server carries, is read bounded; a server's long refusal is quoted as
// a short excerpt.
func TestHostileRepliesAreBounded(t *testing.T) {
	repeated := strings.Repeat("emulator-5554\tdevice product:p model:m device:d transport_id:1\n", 2000)[:0xfff0]
	many := ""
	for i := 0; len(many) < 0xff00; i++ {
		many += fmt.Sprintf("s%d\tdevice\n", i)
	}
	long := strings.Repeat("x", 0xfff0)
	srv := hostServer(t, func(req string) []byte {
		switch {
		case strings.Contains(req, "repeated"):
			return okay(repeated)
		case strings.Contains(req, "many"):
			return okay(many)
		}
		return fmt.Appendf(nil, "FAIL%04x%s", len(long), long)
	})
	ctx := context.Background()
	parse := func(req string) []Entry {
		out, err := srv.Query(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return parseDevices(out)
	}
	if got := parse("host:repeated"); len(got) != 1 {
		t.Fatalf("one serial repeated: %d entries", len(got))
	}
	if got := parse("host:many"); len(got) != maxDevices {
		t.Fatalf("thousands of phones: %d entries, want %d", len(got), maxDevices)
	}
	_, err := srv.Devices(ctx)
	var fail *FailError
	if !errors.As(err, &fail) || len(err.Error()) > 300 || !strings.Contains(err.Error(), "65520 bytes") {
		t.Fatalf("a 64 KB refusal is quoted as %d bytes: %.120s", len(err.Error()), err)
	}
}

// A server that takes a command and then goes silent ends the command
// within two patiences, saying so, for a shell and for a screenshot.
func TestACommandOnASilentServerEnds(t *testing.T) {
	srv := hostServer(t, func(req string) []byte {
		if strings.HasPrefix(req, "host:") {
			return []byte("OKAY")
		}
		return []byte("OKAY\x01\x02") // the service: accepted, two bytes, then nothing
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := srv.Shell(ctx, "emulator-5554", true, "input tap 1 1")
	var silent *SilentError
	if !errors.As(err, &silent) || !strings.Contains(err.Error(), "did not answer shell,v2,raw:input tap 1 1") {
		t.Fatalf("a shell on a server gone silent: %v", err)
	}
	if _, err := srv.Exec(ctx, "emulator-5554", "screencap -p", 1<<20); !errors.As(err, &silent) {
		t.Fatalf("an exec on a server gone silent: %v", err)
	}
}
