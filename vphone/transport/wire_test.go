package transport

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"
)

// Arbitrary bytes from a host must end the connection cleanly.
func FuzzPacket(f *testing.F) {
	f.Add(packet{cmd: cmdCNXN, arg0: adbVersion, arg1: 1 << 20, data: []byte("host::")}.encode())
	f.Add(packet{cmd: cmdOPEN, arg0: 1, data: []byte("shell:echo\x00")}.encode())
	f.Add([]byte("garbage that is not a packet at all"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		for {
			if _, err := readPacket(r); err != nil {
				if r.Len() > 0 && errors.Is(err, io.EOF) {
					t.Fatal("EOF with bytes left")
				}
				return
			}
		}
	})
}

// echoDevice answers "echo:" by sending back what it reads; nothing else.
type echoDevice struct{}

func (echoDevice) Banner() string { return "device::ro.product.name=test;features=shell_v2" }

func (echoDevice) Service(name string) (Service, error) {
	if name != "echo:" {
		return nil, errors.New("no such service")
	}
	return func(ctx context.Context, s *Stream) error {
		_, err := io.Copy(s, s)
		return err
	}, nil
}

// What a host sees: the banner for its CNXN, CLSE for a service the device
// refuses, OKAY then lock-step WRTE/OKAY for one it opens, and the
// connection still there after it closed a stream.
func TestAHostTalksToTheDevice(t *testing.T) {
	host, dev := net.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := New(ctx, dev, echoDevice{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	go c.Serve()
	defer c.Kill()
	_ = host.SetDeadline(time.Now().Add(10 * time.Second))
	send := func(pk packet) {
		t.Helper()
		if _, err := host.Write(pk.encode()); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(cmd uint32) packet {
		t.Helper()
		pk, err := readPacket(host)
		if err != nil || pk.cmd != cmd {
			t.Fatalf("got %s %v (%v), want %s", cmdName(pk.cmd), pk, err, cmdName(cmd))
		}
		return pk
	}
	send(packet{cmd: cmdCNXN, arg0: adbVersion, arg1: 4096, data: []byte("host::\x00")})
	if pk := expect(cmdCNXN); string(pk.data) != (echoDevice{}).Banner() {
		t.Fatalf("banner %q", pk.data)
	}
	send(packet{cmd: cmdOPEN, arg0: 7, data: []byte("nosuch:\x00")})
	if pk := expect(cmdCLSE); pk.arg1 != 7 {
		t.Fatalf("refusal %+v", pk)
	}
	send(packet{cmd: cmdOPEN, arg0: 8, data: []byte("echo:\x00")})
	ok := expect(cmdOKAY)
	local := ok.arg0
	send(packet{cmd: cmdWRTE, arg0: 8, arg1: local, data: []byte("你好")})
	expect(cmdOKAY) // our write, read by the service
	if pk := expect(cmdWRTE); string(pk.data) != "你好" {
		t.Fatalf("echo %q", pk.data)
	}
	send(packet{cmd: cmdOKAY, arg0: 8, arg1: local})
	send(packet{cmd: cmdCLSE, arg0: 8, arg1: local})
	// The host closed the stream; the connection lives on for the next.
	send(packet{cmd: cmdOPEN, arg0: 9, data: []byte("echo:\x00")})
	if pk := expect(cmdOKAY); pk.arg1 != 9 || pk.arg0 == local {
		t.Fatalf("second stream %+v", pk)
	}
}
