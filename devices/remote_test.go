package devices

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"tandem/devices/adb"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

func TestNormalizeServer(t *testing.T) {
	for in, want := range map[string]string{
		"rack.local:5038": "rack.local:5038", " 10.0.0.5 ": "10.0.0.5:5037", "::1": "[::1]:5037", "[::1]:6000": "[::1]:6000",
		"": "", "host:port": "", "host:0": "", "host:70000": "", "a b:1": "", "x@y:1": "", ":5037": "",
	} {
		got, err := NormalizeServer(in)
		if got != want || (err != nil) != (want == "") {
			t.Errorf("NormalizeServer(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestSplitID(t *testing.T) {
	for id, want := range map[string][2]string{
		"emulator-5554":                          {"emulator-5554", ""},
		"192.168.1.20:5555":                      {"192.168.1.20:5555", ""},
		"emulator-5554@rack:5037":                {"emulator-5554", "rack:5037"},
		"192.168.1.20:5555@10.0.0.5:5037":        {"192.168.1.20:5555", "10.0.0.5:5037"},
		"adb-X._adb-tls-connect._tcp@[::1]:5037": {"adb-X._adb-tls-connect._tcp", "[::1]:5037"},
		"odd@serial":                             {"odd@serial", ""},
		"desktop:0":                              {"desktop:0", ""},
	} {
		if s, h := SplitID(id); s != want[0] || h != want[1] {
			t.Errorf("SplitID(%q) = %q, %q; want %q", id, s, h, want)
		}
	}
}

// One phone known to two adb servers (the local one and another
// computer's) has two IDs, the local one unchanged; a server that is down
// is one error naming its host, which hides no phone; an ID on a server
// not given is refused in words.
func TestRegistryMergesServers(t *testing.T) {
	_, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	_, port := vphonetest.StartServer(t)
	other := env
	other.Port = port
	if err := vphonetest.Connect(context.Background(), other); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := ln.Addr().String()
	ln.Close()
	host := "127.0.0.1:" + strconv.Itoa(port)
	reg := New(adb.Server{Addr: "127.0.0.1:" + strconv.Itoa(env.Port)}, t.TempDir())
	reg.SetRemote(func() []string { return []string{host, down, "127.0.0.1:" + strconv.Itoa(env.Port), host} })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := reg.List(ctx)
	var le *ListError
	if !errors.As(err, &le) || len(le.Errs) != 1 || le.AllFailed() || !strings.Contains(le.Errs[0].Error(), down) ||
		!strings.Contains(le.Errs[0].Error(), "nothing answers there") {
		t.Fatalf("error %v", err)
	}
	ids := map[string]Entry{}
	for _, e := range list {
		ids[e.ID] = e
	}
	if e := ids["@"+down]; e.Usable() || e.Host != down || e.ProblemCode != "host_down" || !strings.Contains(e.Problem, "nothing answers there") {
		t.Fatalf("the host that is down is listed as %+v", e)
	}
	if len(list) != 3 || ids[env.Serial].Host != "" || ids[env.Serial+"@"+host].Host != host ||
		ids[env.Serial].State != "device" || ids[env.Serial+"@"+host].State != "device" {
		t.Fatalf("list %+v", list)
	}
	for _, id := range []string{env.Serial, env.Serial + "@" + host} {
		d, err := reg.Open(ctx, id)
		if err != nil {
			t.Fatalf("open %s: %v", id, err)
		}
		if _, err := d.Info(ctx); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		d.Close()
	}
	if _, err := reg.Open(ctx, env.Serial+"@127.0.0.1:1"); err == nil || !strings.Contains(err.Error(), "not one of yours") {
		t.Fatalf("a phone on a server not given: %v", err)
	}
}
