package vphone_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// hostExec runs `exec:CMD` on serial through the adb server at port with
// the host protocol (what the driver does) and returns the output.
func hostExec(port int, serial, cmd string) ([]byte, error) {
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 5*time.Second)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	r := bufio.NewReaderSize(conn, 1<<20)
	for _, req := range []string{"host:transport:" + serial, "exec:" + cmd} {
		if _, err := fmt.Fprintf(conn, "%04x%s", len(req), req); err != nil {
			return nil, err
		}
		var st [4]byte
		if _, err := io.ReadFull(r, st[:]); err != nil {
			return nil, err
		}
		if string(st[:]) != "OKAY" {
			return nil, fmt.Errorf("%s: %s", req, st)
		}
	}
	return io.ReadAll(r)
}

// BenchmarkVPhoneScreencap measures `exec:screencap -p` through the real
// adb server: "unchanged" serves the cached PNG, "changed" renders and
// encodes a new screen for every call.
func BenchmarkVPhoneScreencap(b *testing.B) {
	p, env := vphonetest.Start(b)
	pkgs := []string{vphone.PkgCounter, vphone.PkgChat}
	for _, mode := range []string{"unchanged", "changed"} {
		b.Run(mode, func(b *testing.B) {
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if mode == "changed" {
					if err := p.Launch(pkgs[i%2]); err != nil {
						b.Fatal(err)
					}
				}
				out, err := hostExec(env.Port, env.Serial, "screencap -p")
				if err != nil || len(out) < 1000 {
					b.Fatalf("screencap: %v (%d bytes)", err, len(out))
				}
			}
			b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/op")
		})
	}
}

func TestHostExec(t *testing.T) {
	t.Parallel()
	_, env := vphonetest.Start(t)
	out, err := hostExec(env.Port, env.Serial, "screencap '-p'")
	if err != nil || string(out[1:4]) != "PNG" {
		t.Fatalf("exec screencap: %v %q", err, out[:min(8, len(out))])
	}
}
