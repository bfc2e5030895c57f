package cli

import (
	"bufio"
	"context"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// decoy listens where a command must not go: it notes a connection and
// closes it, so a command that chose its port fails there without starting
// an adb server of its own.
func decoy(t *testing.T) (port int, hit func() bool) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var n atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port, func() bool { return n.Load() > 0 }
}

// portChoice is one way of naming the adb server: the flag, or either
// variable; the sources that must lose point at decoys.
type portChoice struct {
	name            string
	flag            bool
	tandem, android string // "real", "decoy" or ""
}

var portChoices = []portChoice{
	{name: "flag", flag: true, tandem: "decoy", android: "decoy"},
	{name: "TANDEM_ADB_PORT", tandem: "real", android: "decoy"},
	{name: "ANDROID_ADB_SERVER_PORT", android: "real"},
}

// set puts the choice into the environment and returns the flag to pass
// (none unless the flag is the choice) and whether a decoy was reached.
func (c portChoice) set(t *testing.T, real int) (args []string, decoyHit func() bool) {
	t.Helper()
	var hits []func() bool
	value := func(which string) string {
		switch which {
		case "real":
			return strconv.Itoa(real)
		case "decoy":
			p, hit := decoy(t)
			hits = append(hits, hit)
			return strconv.Itoa(p)
		}
		return ""
	}
	t.Setenv("TANDEM_ADB_PORT", value(c.tandem))
	t.Setenv("ANDROID_ADB_SERVER_PORT", value(c.android))
	if c.flag {
		args = []string{"--adb-port", strconv.Itoa(real)}
	}
	return args, func() bool {
		for _, h := range hits {
			if h() {
				return true
			}
		}
		return false
	}
}

// Every command finds the adb server the same way: --adb-port, else
// TANDEM_ADB_PORT, else ANDROID_ADB_SERVER_PORT (else 5037).
func TestADBPortChoice(t *testing.T) {
	_, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	for _, c := range portChoices {
		t.Run("devices/"+c.name, func(t *testing.T) {
			args, decoyHit := c.set(t, env.Port)
			var out, errOut syncBuffer
			code := Run(context.Background(), Env{Args: append([]string{"devices", "--json"}, args...), Stdout: &out, Stderr: &errOut})
			if !strings.Contains(out.String(), env.Serial) || decoyHit() {
				t.Fatalf("exit %d, decoy reached %v; the phone %s is not listed:\n%s\n%s", code, decoyHit(), env.Serial, out.String(), errOut.String())
			}
		})
		t.Run("run/"+c.name, func(t *testing.T) {
			args, decoyHit := c.set(t, env.Port)
			srv := modeltest.New(t, toolReply("", "finish", `{"summary":"Nothing to do.","success":true}`))
			var out, errOut syncBuffer
			code := Run(context.Background(), Env{Args: append([]string{"run", "--device", env.Serial, "--goal", "Look",
				"--base-url", srv.URL, "--data-dir", t.TempDir()}, args...), Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
			if code != ExitOK || decoyHit() {
				t.Fatalf("exit %d, decoy reached %v\n%s\n%s", code, decoyHit(), out.String(), errOut.String())
			}
		})
		t.Run("vphone/"+c.name, func(t *testing.T) {
			args, decoyHit := c.set(t, env.Port)
			serial, stop := startVphoneCommand(t, args)
			out, _ := exec.Command(env.ADB, "-P", strconv.Itoa(env.Port), "devices").CombinedOutput()
			stop()
			if !strings.Contains(string(out), serial+"\tdevice") || decoyHit() {
				t.Fatalf("decoy reached %v; %s is not attached to the server on %d:\n%s", decoyHit(), serial, env.Port, out)
			}
		})
	}
}

// startVphoneCommand runs `tandem vphone args...` until stop, returning the
// serial it printed ("" when it printed none).
func startVphoneCommand(t *testing.T, args []string) (serial string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	var errOut syncBuffer
	go func() {
		done <- Run(ctx, Env{Args: append([]string{"vphone"}, args...), Stdout: pw, Stderr: &errOut})
		pw.Close()
	}()
	line, _ := bufio.NewReader(pr).ReadString('\n')
	stop = func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Errorf("tandem vphone did not stop:\n%s", errOut.String())
		}
	}
	if strings.TrimSpace(line) == "" {
		stop()
		t.Fatalf("tandem vphone printed no serial:\n%s", errOut.String())
	}
	return strings.TrimSpace(line), stop
}
