package adb

// miniadbd is a deliberately tiny device side of the ADB transport, used
// only to pin down this package's host-protocol client (shell v1/v2 framing,
// exec:, a transport cut at an exact byte) through the real adb server. The
// full virtual phone, with apps and a shell, is vphone.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"image/png"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/engine/device"
	"tandem/internal/encoded"
)

const (
	aCNXN = 0x4e584e43
	aOPEN = 0x4e45504f
	aOKAY = 0x59414b4f
	aCLSE = 0x45534c43
	aWRTE = 0x45545257
)

// miniReply is what the fake sends for one service: raw bytes, then either
// a clean close or, with cut, the whole transport dropped.
type miniReply struct {
	data []byte
	cut  bool
}

type miniADBD struct {
	l       net.Listener
	feats   string
	handle  func(service string) miniReply
	mu      sync.Mutex // guards writes and streams
	conns   []net.Conn
	streams map[uint32]chan struct{} // local id -> host OKAYs
	next    uint32
}

// startMini listens on 127.0.0.1:0 and connects the private server to it.
// It returns the serial.
func startMini(t testing.TB, s Server, feats string, handle func(string) miniReply) (*miniADBD, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &miniADBD{l: l, feats: feats, handle: handle, streams: map[uint32]chan struct{}{}}
	go m.serve()
	t.Cleanup(func() { m.close() })
	serial := l.Addr().String()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if out, err := s.Query(ctx, "host:connect:"+serial); err != nil || !strings.HasPrefix(out, "connected") {
		t.Fatalf("connect: %q %v", out, err)
	}
	for {
		if st, _ := s.State(ctx, serial); st == "device" {
			return m, serial
		}
		select {
		case <-ctx.Done():
			t.Fatal("the fake never came online")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func (m *miniADBD) close() {
	m.l.Close()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.conns {
		c.Close()
	}
}

func (m *miniADBD) serve() {
	for {
		c, err := m.l.Accept()
		if err != nil {
			return
		}
		m.mu.Lock()
		m.conns = append(m.conns, c)
		m.mu.Unlock()
		go m.conn(c)
	}
}

func (m *miniADBD) send(c net.Conn, cmd, a0, a1 uint32, data []byte) error {
	var h [24]byte
	sum := uint32(0)
	for _, b := range data {
		sum += uint32(b)
	}
	for i, v := range []uint32{cmd, a0, a1, uint32(len(data)), sum, cmd ^ 0xffffffff} {
		binary.LittleEndian.PutUint32(h[i*4:], v)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	_, err := c.Write(append(h[:], data...))
	return err
}

func (m *miniADBD) conn(c net.Conn) {
	defer c.Close()
	var h [24]byte
	for {
		if _, err := readFull(c, h[:]); err != nil {
			return
		}
		cmd := binary.LittleEndian.Uint32(h[0:])
		a0 := binary.LittleEndian.Uint32(h[4:])
		a1 := binary.LittleEndian.Uint32(h[8:])
		data := make([]byte, binary.LittleEndian.Uint32(h[12:]))
		if _, err := readFull(c, data); err != nil {
			return
		}
		switch cmd {
		case aCNXN:
			banner := "device::ro.product.name=mini;ro.product.model=Mini;ro.product.device=mini;features=" + m.feats
			m.send(c, aCNXN, 0x01000001, 256*1024, []byte(banner))
		case aOPEN:
			m.mu.Lock()
			m.next++
			id := m.next
			acks := make(chan struct{}, 1)
			m.streams[id] = acks
			m.mu.Unlock()
			m.send(c, aOKAY, id, a0, nil)
			go m.reply(c, id, a0, string(bytes.TrimRight(data, "\x00")), acks)
		case aOKAY:
			m.mu.Lock()
			acks := m.streams[a1]
			m.mu.Unlock()
			if acks != nil {
				select {
				case acks <- struct{}{}:
				default:
				}
			}
		case aWRTE:
			m.send(c, aOKAY, a1, a0, nil)
		case aCLSE:
			m.mu.Lock()
			delete(m.streams, a1)
			m.mu.Unlock()
		}
	}
}

// reply streams the handler's bytes in lock-step (one WRTE, wait for OKAY).
func (m *miniADBD) reply(c net.Conn, id, host uint32, service string, acks chan struct{}) {
	r := m.handle(service)
	data := r.data
	for len(data) > 0 {
		n := min(len(data), 4096)
		if m.send(c, aWRTE, id, host, data[:n]) != nil {
			return
		}
		data = data[n:]
		select {
		case <-acks:
		case <-time.After(5 * time.Second):
			return
		}
	}
	if r.cut {
		c.Close()
		return
	}
	m.send(c, aCLSE, id, host, nil)
}

func readFull(c net.Conn, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		k, err := c.Read(b[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// v2 frames shell-v2 packets.
func v2(id byte, data string) []byte {
	b := []byte{id, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(b[1:], uint32(len(data)))
	return append(b, data...)
}

func TestShellAndExecThroughRealServer(t *testing.T) {
	t.Parallel()
	s := privateServer(t)
	big := strings.Repeat("0123456789", 10000) // several WRTE packets
	handle := func(service string) miniReply {
		switch service {
		case "shell,v2,raw:echo hi":
			return miniReply{data: slices(v2(1, "hi\n"), v2(2, "warn\n"), v2(3, "\x07"))}
		case "shell,v2,raw:big":
			return miniReply{data: slices(v2(1, big[:50000]), v2(1, big[50000:]), v2(3, "\x00"))}
		case "shell,v2,raw:cut":
			return miniReply{data: v2(1, "partial"), cut: true}
		case "shell:echo hi; echo " + v1Marker + "$?":
			return miniReply{data: []byte("hi\r\n" + v1Marker + "3\r\n")}
		case "exec:screencap -p":
			return miniReply{data: []byte(big)}
		}
		return miniReply{data: v2(3, "\x7f")}
	}
	_, serial := startMini(t, s, "shell_v2,cmd", handle)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	res, err := s.Shell(ctx, serial, true, "echo hi")
	if err != nil || string(res.Stdout) != "hi\n" || string(res.Stderr) != "warn\n" || res.Exit != 7 {
		t.Fatalf("v2: %+v %v", res, err)
	}
	res, err = s.Shell(ctx, serial, true, "big")
	if err != nil || string(res.Stdout) != big || res.Exit != 0 {
		t.Fatalf("v2 big: %d bytes, %v", len(res.Stdout), err)
	}
	res, err = s.Shell(ctx, serial, false, "echo hi")
	if err != nil || string(res.Stdout) != "hi\n" || res.Exit != 3 {
		t.Fatalf("v1: %+v %v", res, err)
	}
	out, err := s.Exec(ctx, serial, "screencap -p", 1<<20)
	if err != nil || string(out) != big {
		t.Fatalf("exec: %d bytes, %v", len(out), err)
	}
	l, err := s.Devices(ctx)
	if err != nil || len(l) != 1 || l[0].Model != "Mini" || !l[0].Online() {
		t.Fatalf("devices: %+v %v", l, err)
	}

	// The transport dropped in the middle of a command: device gone, at
	// once rather than at the context's deadline.
	_, err = s.Shell(ctx, serial, true, "cut")
	if !errors.Is(err, device.ErrGone) || ctx.Err() != nil {
		t.Fatalf("cut: %v (context: %v)", err, ctx.Err())
	}
}

func slices(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// noisePNG encodes an image that does not compress well, so it spans many
// WRTE packets.
func noisePNG(t testing.TB, w, h int, black bool) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	seed := uint32(1)
	for i := range img.Pix {
		seed = seed*1664525 + 1013904223
		img.Pix[i] = byte(seed >> 24)
		if black && i%4 != 3 {
			img.Pix[i] = 0
		}
		if i%4 == 3 {
			img.Pix[i] = 0xff
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// rawFrame is `screencap`'s raw output for a w x h frame of one colour,
// px being one pixel in format's layout.
func rawFrame(w, h, header int, format uint32, px []byte) []byte {
	b := make([]byte, header, header+w*h*len(px))
	binary.LittleEndian.PutUint32(b[0:], uint32(w))
	binary.LittleEndian.PutUint32(b[4:], uint32(h))
	binary.LittleEndian.PutUint32(b[8:], format)
	if header == 16 {
		binary.LittleEndian.PutUint32(b[12:], 1)
	}
	for i := 0; i < w*h; i++ {
		b = append(b, px...)
	}
	return b
}

// flatPNG is a w×h PNG of one colour, a few bytes a row, as a phone's
// plain screens compress.
func flatPNG(t testing.TB, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = []byte{30, 120, 200, 255}[i%4]
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// rgb565 is one pixel in RGB_565, two bytes.
func rgb565(r, g, b byte) []byte {
	return binary.LittleEndian.AppendUint16(nil, uint16(r)>>3<<11|uint16(g)>>2<<5|uint16(b)>>3)
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

func TestScreenshotOutcomes(t *testing.T) {
	t.Parallel()
	good := noisePNG(t, 200, 300, false)
	black := noisePNG(t, 200, 300, true)
	red := []byte{200, 10, 20, 255}
	wide := func(img image.Image, err error) bool { return err == nil && img.Bounds().Dx() == 200 }
	secure := func(_ image.Image, err error) bool { return errors.Is(err, device.ErrSecureScreen) }
	gone := func(_ image.Image, err error) bool { return errors.Is(err, device.ErrGone) }
	isRed := func(img image.Image, err error) bool {
		if err != nil {
			return false
		}
		r, g, b, _ := img.At(5, 5).RGBA()
		return r>>8 == 200 && g>>8 == 10 && b>>8 == 20
	}
	flat := flatPNG(t, 200, 300)
	carried := func(want bool) func(image.Image, error) bool {
		return func(img image.Image, err error) bool {
			data, _, ok := encoded.Bytes(img)
			return err == nil && ok == want && (!ok || bytes.Equal(data, flat))
		}
	}
	unknown := miniReply{data: rawFrame(200, 300, 16, 0x100, red)} // a vendor's format: not read, so PNG
	near := func(img image.Image, err error) bool {                // RGB_565 keeps 5 or 6 bits a channel
		if err != nil {
			return false
		}
		r, g, b, _ := img.At(5, 5).RGBA()
		return absDiff(r>>8, 200) < 8 && absDiff(g>>8, 10) < 4 && absDiff(b>>8, 20) < 8
	}
	tests := []struct {
		name     string
		raw, png miniReply
		check    func(image.Image, error) bool
	}{
		{"raw", miniReply{data: rawFrame(200, 300, 16, 1, red)}, miniReply{}, isRed},
		{"raw with the old 12-byte header", miniReply{data: rawFrame(200, 300, 12, 1, red)}, miniReply{}, isRed},
		{"raw BGRA", miniReply{data: rawFrame(200, 300, 16, 5, []byte{20, 10, 200, 255})}, miniReply{}, isRed},
		{"raw RGBX", miniReply{data: rawFrame(200, 300, 16, 2, []byte{200, 10, 20, 0})}, miniReply{}, isRed},
		{"raw RGB_565", miniReply{data: rawFrame(200, 300, 16, 4, rgb565(200, 10, 20))}, miniReply{}, near},
		{"raw RGB_888", miniReply{data: rawFrame(200, 300, 16, 3, []byte{200, 10, 20})}, miniReply{}, isRed},
		{"raw black", miniReply{data: rawFrame(200, 300, 16, 1, []byte{0, 0, 0, 255})}, miniReply{}, secure},
		{"raw refused", miniReply{data: []byte("Capturing failed.\n")}, miniReply{}, secure},
		{"raw cut mid-stream", miniReply{data: rawFrame(200, 300, 16, 1, red)[:100000], cut: true}, miniReply{}, gone},
		{"png", unknown, miniReply{data: append([]byte("WARNING: linker: noise\n"), good...)}, wide},
		{"png, its bytes carried", unknown, miniReply{data: flat}, carried(true)},
		{"png heavier than two bytes a pixel: not carried", unknown, miniReply{data: good}, carried(false)},
		{"png black", unknown, miniReply{data: black}, secure},
		{"png refused", unknown, miniReply{data: []byte("Capturing failed.\n")}, secure},
		{"png cut mid-stream", unknown, miniReply{data: good[:len(good)/2], cut: true}, gone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := privateServer(t)
			_, serial := startMini(t, s, "shell_v2,cmd", func(service string) miniReply {
				switch service {
				case "exec:screencap":
					return tt.raw
				case "exec:screencap -p":
					return tt.png
				}
				return miniReply{data: v2(3, "\x00")}
			})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			d, err := Open(ctx, Options{Server: s, Serial: serial})
			if err != nil {
				t.Fatal(err)
			}
			img, err := d.Screenshot(ctx)
			if !tt.check(img, err) || ctx.Err() != nil {
				t.Fatalf("got %v (context: %v)", err, ctx.Err())
			}
		})
	}
}

func TestNetworkSerial(t *testing.T) {
	for serial, want := range map[string]bool{
		"R58M123ABC": false, "emulator-5554": false, "127.0.0.1:5555": false, "localhost:5555": false, "[::1]:5555": false,
		"192.168.1.20:5555": true, "phone.lan:5555": true, "adb-R58M-abc._adb-tls-connect._tcp": true,
	} {
		if got := networkSerial(serial); got != want {
			t.Errorf("networkSerial(%q) = %v", serial, got)
		}
	}
}

// A phone of another computer's adb server crosses a network whatever its
// serial, so it sends PNG too.
func TestServerRemote(t *testing.T) {
	for addr, want := range map[string]bool{
		"": false, "127.0.0.1:5037": false, "localhost:5038": false, "[::1]:5037": false,
		"192.168.1.30:5037": true, "rack.lan:5037": true,
	} {
		if got := (Server{Addr: addr}).remote(); got != want {
			t.Errorf("Server{%q}.remote() = %v", addr, got)
		}
	}
}
