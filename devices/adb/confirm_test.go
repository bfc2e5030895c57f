package adb

import (
	"context"
	"fmt"
	"hash/crc32"
	"image"
	"sync"
	"testing"
	"time"
)

// TestAStillScreenIsConfirmedByItsChecksum: Unchanged says a screen is
// the last frame only when the phone's checksum of its capture is that
// frame's, and then no capture travels; a phone that cannot checksum, or
// whose checksum is not CRC-32 (it said "changed" and the capture found
// the screen the same), is never asked again; a frame that is not the
// last is never confirmed.
func TestAStillScreenIsConfirmedByItsChecksum(t *testing.T) {
	const w, h = 120, 200
	frame := func(seed byte) []byte {
		b := rawFrame(w, h, 16, 1, []byte{1, 2, 3, 255})
		for i := 16; i < len(b); i++ {
			b[i] ^= byte(i*13) ^ seed
		}
		return b
	}
	zlib := func(b []byte) string { return fmt.Sprintf("%d\n", crc32.ChecksumIEEE(b)) }
	other := func(b []byte) string {
		return fmt.Sprintf("%d %d\n", crc32.Checksum(b, crc32.MakeTable(crc32.Koopman)), len(b))
	}
	notFound := func([]byte) string { return "/system/bin/sh: cksum: inaccessible or not found\n" }
	a, b := frame(1), frame(2)
	tests := []struct {
		name  string
		sum   func([]byte) string
		shows [][]byte // the screen at each Unchanged, a capture after each "changed"
		want  []bool
		asked int // checksums the phone was asked for
	}{
		{"still, then changed", zlib, [][]byte{a, a, b, b}, []bool{true, true, false, true}, 4},
		{"older toybox prints the length", func(b []byte) string { return fmt.Sprintf("%d %d\n", crc32.ChecksumIEEE(b), len(b)) },
			[][]byte{a, b}, []bool{true, false}, 2},
		{"no cksum", notFound, [][]byte{a, a, a}, []bool{false, false, false}, 1},
		{"another checksum", other, [][]byte{a, a, a}, []bool{false, false, false}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ph := &sumPhone{screen: a, sum: tc.sum}
			s := privateServer(t)
			_, serial := startMini(t, s, "shell_v2,cmd", ph.serve)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			d, err := Open(ctx, Options{Server: s, Serial: serial})
			if err != nil {
				t.Fatal(err)
			}
			last, err := d.Screenshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if d.Unchanged(ctx, image.NewRGBA(image.Rect(0, 0, w, h))) {
				t.Fatal("a frame that is not the last was confirmed")
			}
			for i, show := range tc.shows {
				caps := ph.show(show)
				got := d.Unchanged(ctx, last)
				if got != tc.want[i] {
					t.Fatalf("Unchanged %d = %v, want %v", i, got, tc.want[i])
				}
				if got {
					if n := caps(); n != 0 {
						t.Errorf("Unchanged %d captured %d times through the host", i, n)
					}
					continue
				}
				if last, err = d.Screenshot(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if asked := ph.checksums(); asked != tc.asked {
				t.Errorf("the phone was asked for %d checksums, want %d", asked, tc.asked)
			}
		})
	}
}

// sumPhone is a phone that shows screen and checksums it with sum.
type sumPhone struct {
	mu          sync.Mutex
	screen      []byte
	sum         func([]byte) string
	asked, caps int
}

func (p *sumPhone) serve(service string) miniReply {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch service {
	case "exec:screencap":
		p.caps++
		return miniReply{data: p.screen}
	case "exec:" + sumCommand:
		p.asked++
		return miniReply{data: []byte(p.sum(p.screen))}
	}
	return miniReply{data: v2(3, "\x00")}
}

// show puts screen on the phone and returns how many captures it has
// sent since.
func (p *sumPhone) show(screen []byte) func() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.screen, p.caps = screen, 0
	return func() int {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.caps
	}
}

func (p *sumPhone) checksums() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.asked
}

// TestTheVirtualPhoneConfirmsItsStillScreen: through the real adb
// server, the virtual phone's `screencap | cksum -LPN` is the CRC-32 of
// the capture the driver read, so a still screen is confirmed, and one an
// app opened on is not.
func TestTheVirtualPhoneConfirmsItsStillScreen(t *testing.T) {
	r := startPhone(t)
	ctx := ctx10(t)
	last, err := r.dev.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	caps := r.phone.Screencaps()
	if !r.dev.Unchanged(ctx, last) {
		t.Fatal("the still screen was not confirmed")
	}
	if got := r.phone.Screencaps() - caps; got != 1 {
		t.Errorf("the confirmation captured %d times on the phone, want 1", got)
	}
	if _, err := r.srv.Shell(ctx, r.serial, true, "monkey -p com.tandem.counter -c android.intent.category.LAUNCHER 1"); err != nil {
		t.Fatal(err)
	}
	if r.dev.Unchanged(ctx, last) {
		t.Fatal("a screen an app opened on was confirmed as the frame before it")
	}
	if r.dev.noSum.Load() {
		t.Error("a true change stopped the checksums")
	}
}
