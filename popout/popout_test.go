package popout

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net"
	"testing"
	"time"
)

func TestPopoutConfigTravelsWhole(t *testing.T) {
	cfg := Config{Device: "127.0.0.1:5555", Name: "Pixel 8", Stream: "ws://127.0.0.1:1/stream/x?token=t", Input: "http://127.0.0.1:1/input/x?token=t", Lang: "zh-CN"}
	v, err := cfg.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadConfig(v)
	if err != nil || got != cfg {
		t.Fatalf("%+v %v", got, err)
	}
	raw, _ := json.Marshal(cfg)
	if got, err := ReadConfig(base64.StdEncoding.EncodeToString(raw)); err != nil || got != cfg {
		t.Fatalf("plain JSON in base64: %+v %v", got, err)
	}
	for _, bad := range []string{"", "%%%", base64.StdEncoding.EncodeToString([]byte(`{"device":""}`))} {
		if _, err := ReadConfig(bad); err == nil {
			t.Errorf("%q was read as a configuration", bad)
		}
	}
}

// TestPopoutClosesWhenTheAppIsGone: the pop-out's watch returns once the
// app's server stops answering, and not while it answers.
func TestPopoutClosesWhenTheAppIsGone(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	done := make(chan struct{})
	go func() {
		watchApp(context.Background(), "http://"+ln.Addr().String()+"/input/x?token=t", 20*time.Millisecond)
		close(done)
	}()
	select {
	case <-done:
		t.Fatal("the watch ended while the app answers")
	case <-time.After(300 * time.Millisecond):
	}
	ln.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the watch goes on after the app is gone")
	}
}
