package cli

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

// silentServer accepts connections and never answers, as an adb server
// behind a stuck tunnel does.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				break
			}
			conns = append(conns, c)
		}
		for _, c := range conns {
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}

// `tandem run` on a phone of another computer's adb server that accepts
// and never answers ends within a minute, saying so.
func TestRunOnASilentADBServerEnds(t *testing.T) {
	host := silentServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	start := time.Now()
	var out, errOut syncBuffer
	code := Run(ctx, Env{Args: []string{"run", "--adb", host, "--device", "emulator-5554@" + host, "--goal", "Tap",
		"--base-url", "http://127.0.0.1:1/v1", "--data-dir", t.TempDir()}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	took := time.Since(start)
	if code == ExitOK || took > 60*time.Second || !strings.Contains(errOut.String(), "did not answer") {
		t.Fatalf("exit %d after %s, want a failure within 60 s saying the server did not answer\n%s\n%s", code, took.Round(time.Second), out.String(), errOut.String())
	}
	t.Logf("ended after %s: %s", took.Round(100*time.Millisecond), strings.TrimSpace(errOut.String()))
}
