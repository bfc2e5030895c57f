package adb

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// Fuzz targets for what an adb server or a phone sends: `go test` runs
// their seeds as unit tests; `go test -fuzz FuzzX ./devices/adb` explores.

// FuzzHostReply: whatever an adb server answers a query with, Query
// returns in bounded time, a reply of at most 64 KB, and an error that
// quotes at most a short excerpt.
func FuzzHostReply(f *testing.F) {
	for _, seed := range []string{
		"OKAY0004abcd", "OKAY000", "FAIL0010device offline", "FAILffff" + strings.Repeat("x", 300),
		"OKAYzzzz", "BOOM", "", "OKAY0000", "FAIL", "OKAYffff",
		"OKAY0040emulator-5554\tdevice product:p model:m device:d transport_id:1\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, reply []byte) {
		client, server := net.Pipe()
		go func() {
			_, _ = server.Write(reply)
			server.Close()
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c := &conn{Conn: client, ctx: ctx, stop: func() bool { return true }, addr: "fuzz", patience: time.Second}
		defer c.Close()
		out, err := "", c.status("host:devices-l")
		if err == nil {
			err = c.answer("host:devices-l", func() (e error) { out, e = c.readString(); return e })
		}
		if len(out) > 0xffff {
			t.Fatalf("a reply of %d bytes", len(out))
		}
		if err != nil && len(err.Error()) > 600 {
			t.Fatalf("the error quotes %d bytes: %.100s", len(err.Error()), err)
		}
		if err == nil && ctx.Err() != nil {
			t.Fatal("the reply outlived its context")
		}
	})
}

// FuzzParseDevices: a device list is bounded and names each serial once.
func FuzzParseDevices(f *testing.F) {
	for _, seed := range []string{
		"emulator-5554\tdevice product:sdk model:Pixel device:emu transport_id:1\n",
		"abc\tno permissions (user in plugdev group); see [http://developer.android.com/tools/device.html] usb:1-1\n",
		"x\tdevice\nx\tdevice\nx\toffline\n", "\n\n\t\n", "only-a-serial\n", strings.Repeat("s\tdevice\n", 50),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, out string) {
		list := parseDevices(out)
		if len(list) > maxDevices {
			t.Fatalf("%d entries", len(list))
		}
		seen := map[string]bool{}
		for _, e := range list {
			if seen[e.Serial] || e.Serial == "" || len(e.Serial) > maxDeviceLine {
				t.Fatalf("entry %+v (seen %v)", e, seen[e.Serial])
			}
			seen[e.Serial] = true
		}
	})
}

// FuzzRawScreenshot: screencap's raw output is read within its bound, a
// header no screen fits is refused after its 12 bytes (unless it reads as
// words), and a decoded frame is the size its header says and fits a
// screen.
func FuzzRawScreenshot(f *testing.F) {
	head := func(w, h, format uint32, tail ...byte) []byte {
		b := []byte{byte(w), byte(w >> 8), byte(w >> 16), byte(w >> 24), byte(h), byte(h >> 8), byte(h >> 16), byte(h >> 24),
			byte(format), byte(format >> 8), byte(format >> 16), byte(format >> 24)}
		return append(b, tail...)
	}
	f.Add(head(2, 2, 1, make([]byte, 4+16)...))
	f.Add(head(2, 1, 4, make([]byte, 4)...))
	f.Add(head(100000, 100000, 1, 0xff, 0xff))
	f.Add(head(0, 5, 1))
	f.Add(head(3, 3, 99, make([]byte, 40)...))
	f.Add([]byte("/system/bin/sh: screencap: inaccessible or not found\n"))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		const limit = 1 << 20
		r := &counting{r: bytes.NewReader(data)}
		raw, err := readRaw(r, limit)
		if err != nil {
			t.Fatalf("reading from memory: %v", err)
		}
		if len(raw) > limit+16 {
			t.Fatalf("read %d bytes past the limit", len(raw))
		}
		if len(data) >= 12 {
			w, h := int64(le32(data)), int64(le32(data[4:]))
			if !screenFits(w, h) && !textLike(data[:12]) && r.n > 12 {
				t.Fatalf("a %dx%d header: read %d bytes", w, h, r.n)
			}
		}
		img, err := decodeRaw(raw)
		if err == nil {
			b := img.Bounds()
			if !screenFits(int64(b.Dx()), int64(b.Dy())) || b.Dx() != int(le32(raw)) || len(img.Pix) != b.Dx()*b.Dy()*4 {
				t.Fatalf("decoded %v from a %dx%d header", b, le32(raw), le32(raw[4:]))
			}
		} else if !utf8.ValidString(err.Error()) && len(err.Error()) > 300 {
			t.Fatalf("error %.100q", err)
		}
	})
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
