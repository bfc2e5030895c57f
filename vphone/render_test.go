package vphone

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"
)

// Without the CJK font the phone still renders, with Go's font, and says
// why Chinese shows as boxes.
func TestFontFallback(t *testing.T) {
	var logs bytes.Buffer
	p, err := New(WithSize(360, 800), WithFont("/nonexistent/font.ttc"), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Launch(PkgChat); err != nil {
		t.Fatal(err)
	}
	if _, err := p.ScreenshotPNG(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "fonts-noto-cjk") {
		t.Fatalf("no hint about the missing font in %q", logs.String())
	}
}

// Start serves until its context ends.
func TestStartStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p, err := Start(ctx, "127.0.0.1:0", WithSize(240, 320))
	if err != nil {
		t.Fatal(err)
	}
	addr := p.Addr()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("still listening after cancel")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := p.Listen(""); err == nil {
		t.Fatal("Listen after close succeeded")
	}
}
