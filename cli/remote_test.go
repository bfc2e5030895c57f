package cli

import (
	"context"
	"encoding/json"
	"net"
	"strconv"
	"strings"
	"testing"

	"tandem/engine"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// A second adb server on another port stands in for another computer's:
// `tandem devices --adb` lists its phone with its host beside the local
// one, a server that is down is named in its own error without hiding the
// others, and `tandem run` drives the other computer's phone: the taps
// reach that phone, not the local one.
func TestRunOnAnotherADBServer(t *testing.T) {
	locals, env := phones(t, 1, vphone.PkgCounter)
	remote, renv := vphonetest.Start(t, vphone.WithSize(360, 800))
	if err := remote.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	host := "127.0.0.1:" + strconv.Itoa(renv.Port)
	down := closedAddr(t)
	remoteID := renv.Serial + "@" + host

	// A server named on the line that cannot be listed fails the command
	// (exit 1), after listing everything else.
	code, out, errOut := run(t, "devices", "--json", "--adb-port", strconv.Itoa(env.Port), "--adb", host, "--adb", down)
	if code != ExitFail {
		t.Fatalf("devices with a named server down: exit %d, want %d\n%s\n%s", code, ExitFail, out, errOut)
	}
	var rows []struct{ ID, Host, State string }
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	hostOf := map[string]string{}
	for _, r := range rows {
		hostOf[r.ID] = r.Host
		if r.ID == remoteID && r.State != "device" {
			t.Fatalf("the other computer's phone is %q", r.State)
		}
	}
	if h, ok := hostOf[locals[0].Addr()]; !ok || h != "" {
		t.Fatalf("the local phone: listed %v, host %q (rows %+v)", ok, h, rows)
	}
	if h, ok := hostOf[remoteID]; !ok || h != host {
		t.Fatalf("the other computer's phone: listed %v, host %q (rows %+v)", ok, h, rows)
	}
	if !strings.Contains(errOut, down) || strings.Count(errOut, "tandem devices:") != 1 {
		t.Fatalf("the server that is down is not named once:\n%s", errOut)
	}
	if code, table, _ := run(t, "devices", "--adb-port", strconv.Itoa(env.Port), "--adb", host); code != ExitOK || !strings.Contains(table, remoteID) || !strings.Contains(table, "· "+host) {
		t.Fatalf("exit %d, table:\n%s", code, table)
	}
	// A name no computer has: said once, in words, not twice in a
	// resolver's (exit 1).
	code, table, errOut := run(t, "devices", "--adb-port", strconv.Itoa(env.Port), "--adb", "nosuchhost.invalid:5037")
	worded := strings.Contains(errOut, "no computer is called nosuchhost.invalid") || strings.Contains(errOut, "no answer within") // a machine with no resolver
	if code != ExitFail || strings.Count(table+errOut, "phones on nosuchhost.invalid") != 1 || !worded || strings.Contains(table+errOut, "lookup") {
		t.Fatalf("an unknown host: exit %d\n%s\n%s", code, table, errOut)
	}

	srv := tapOnceThenFinish(t, remote, "+1")
	data := t.TempDir()
	var rout, rerr syncBuffer
	code = Run(context.Background(), Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--adb", host, "--device", remoteID,
		"--goal", "Add one", "--base-url", srv.URL, "--data-dir", data}, Stdin: strings.NewReader(""), Stdout: &rout, Stderr: &rerr})
	if code != ExitOK {
		t.Fatalf("run: exit %d\n%s\n%s", code, rout.String(), rerr.String())
	}
	if remote.State().Counter != 1 || locals[0].State().Counter != 0 {
		t.Fatalf("counters: the other computer's %d, the local %d", remote.State().Counter, locals[0].State().Counter)
	}
	if recs := records(t, data); endOf(recs[remoteID]) != engine.Done {
		t.Fatalf("records %v", recs)
	}
}

// --adb takes host:port (a host alone means adb's port 5037); anything
// else is refused.
func TestADBFlagRefusesBadAddress(t *testing.T) {
	for _, bad := range []string{"", "host:port", "host:70000", "a b:1"} {
		if code, _, errOut := run(t, "devices", "--adb", bad); code != ExitUsage {
			t.Errorf("devices --adb %q: exit %d %s", bad, code, errOut)
		}
		if code, _, errOut := run(t, "run", "--adb", bad, "--device", "x", "--goal", "g", "--base-url", "http://127.0.0.1:1/v1"); code != ExitUsage {
			t.Errorf("run --adb %q: exit %d %s", bad, code, errOut)
		}
	}
}
