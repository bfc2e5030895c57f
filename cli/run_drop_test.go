package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// dropProxy forwards TCP connections to target and drops exactly one: the
// n-th it accepts is reset once at bytes of the server's answer have
// passed, as a connection that breaks midway.
type dropProxy struct {
	addr     string
	accepted atomic.Int32
	dropped  atomic.Bool
}

func startDropProxy(t *testing.T, target string, n, at int) *dropProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &dropProxy{addr: l.Addr().String()}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns { // a client's idle keep-alive connection too
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			i := int(p.accepted.Add(1))
			wg.Add(1)
			go func() {
				defer wg.Done()
				p.forward(c, target, i == n, at)
			}()
		}
	}()
	return p
}

func (p *dropProxy) forward(c net.Conn, target string, cut bool, at int) {
	defer c.Close()
	s, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	defer s.Close()
	go func() {
		_, _ = io.Copy(s, c)
		s.Close() // the client left (or the test ended): so does the server's side
	}()
	if !cut {
		_, _ = io.Copy(c, s)
		return
	}
	if _, err := io.CopyN(c, s, int64(at)); err != nil {
		return // the answer ended first: nothing dropped
	}
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // a reset, as a dropped link ends
	}
	p.dropped.Store(true)
}

// counterModel drives the phone's counter up by 2 from where it is, then
// finishes.
func counterModel(t *testing.T, phone *vphone.Phone) func(modeltest.Request) modeltest.Reply {
	from := phone.State().Counter
	t.Cleanup(func() {
		// No input was done twice: a tap whose answer was lost is not
		// repeated by the driver (the model decides from the screen).
		if got := phone.State().Counter; !t.Failed() && got != from+2 {
			t.Errorf("the counter went from %d to %d, not up by 2", from, got)
		}
	})
	return func(modeltest.Request) modeltest.Reply {
		st := phone.State()
		switch {
		case st.Foreground != vphone.PkgCounter:
			return toolReply("Open the counter.", "launch", `{"app":"Counter"}`)
		case st.Counter < from+2:
			return toolReply("Tap +1.", "tap", centre(t, phone, "+1"))
		}
		return toolReply("", "finish", `{"summary":"The counter went up by 2.","success":true}`)
	}
}

// An unattended `tandem run` (nobody at stdin) survives one dropped
// connection to the adb server, whichever it is (a screenshot, the screen's
// size, the UI tree, an input, a query at the start) and wherever it breaks
// (in the server's first answer, just after it, in the output): the run
// reaches Done. (A run makes about 23 connections; a tap whose answer was
// lost may have landed and is not repeated: the model sees the screen.)
func TestRunUnattendedSurvivesOneDroppedADBConnection(t *testing.T) {
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	cuts := []int{2, 6, 200, 100_000}
	if testing.Short() {
		cuts = []int{6}
	}
	for _, at := range cuts {
		for n := 1; n <= 24; n++ {
			t.Run(fmt.Sprintf("connection %d cut at byte %d", n, at), func(t *testing.T) {
				proxy := startDropProxy(t, "127.0.0.1:"+strconv.Itoa(env.Port), n, at)
				srv := modeltest.NewFunc(t, counterModel(t, phone))
				var out, errOut syncBuffer
				_, port, _ := net.SplitHostPort(proxy.addr)
				code := Run(context.Background(), Env{Args: []string{"run", "--adb-port", port, "--device", env.Serial,
					"--goal", "Make the counter go up by 2", "--base-url", srv.URL, "--data-dir", t.TempDir()},
					Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
				if code != ExitOK || !strings.Contains(out.String(), "Done success=true") {
					t.Fatalf("dropped %v; exit %d\nstdout:\n%s\nstderr:\n%s", proxy.dropped.Load(), code, out.String(), errOut.String())
				}
			})
		}
	}
}

// The same for the model's HTTP connection: one that breaks (in the status
// line, the headers, a streamed reply; keep-alive carries every reply on
// one connection, so the byte says which reply) is asked again and the run
// reaches Done.
func TestRunUnattendedSurvivesOneDroppedModelConnection(t *testing.T) {
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	for _, at := range []int{2, 40, 120, 200, 300, 400, 550, 700, 900, 1200, 1600, 2000, 2600, 3200} {
		t.Run(fmt.Sprintf("cut at byte %d", at), func(t *testing.T) {
			srv := modeltest.NewFunc(t, counterModel(t, phone))
			proxy := startDropProxy(t, strings.TrimSuffix(strings.TrimPrefix(srv.URL, "http://"), "/v1"), 1, at)
			var out, errOut syncBuffer
			code := Run(context.Background(), Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial,
				"--goal", "Make the counter go up by 2", "--base-url", "http://" + proxy.addr + "/v1", "--data-dir", t.TempDir()},
				Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
			if code != ExitOK || !strings.Contains(out.String(), "Done success=true") {
				t.Fatalf("dropped %v; exit %d\nstdout:\n%s\nstderr:\n%s", proxy.dropped.Load(), code, out.String(), errOut.String())
			}
		})
	}
}

// And the phone's own connection: the n-th screenshot of the run breaks
// midway as a pulled cable would (the adb server sees the phone go and
// reconnect); the run waits for it and reaches Done.
func TestRunUnattendedSurvivesOneDroppedPhoneConnection(t *testing.T) {
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	for n := 1; n <= 5; n++ {
		t.Run(fmt.Sprintf("screenshot %d", n), func(t *testing.T) {
			srv := modeltest.NewFunc(t, counterModel(t, phone))
			phone.DropScreencap(n)
			t.Cleanup(func() { phone.DropScreencap(0) })
			var out, errOut syncBuffer
			code := Run(context.Background(), Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial,
				"--goal", "Make the counter go up by 2", "--base-url", srv.URL, "--data-dir", t.TempDir()},
				Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
			if code != ExitOK || !strings.Contains(out.String(), "Done success=true") {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
			}
		})
	}
}
