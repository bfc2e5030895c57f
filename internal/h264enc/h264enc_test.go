package h264enc

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

func TestOnePacketPerFrameWithItsCaptureTime(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("ffmpeg is not installed")
		}
		t.Skip("ffmpeg is not installed")
	}
	var mu sync.Mutex
	var got []Packet
	e, err := Start(context.Background(), Options{SrcW: 64, SrcH: 48, Width: 33, Height: 24}, func(p Packet) error {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	base := time.Unix(1700000000, 0)
	for i := 0; i < 3; i++ {
		pix := make([]byte, 64*48*4)
		for j := range pix {
			pix[j] = byte(i * 80)
		}
		if err := e.Encode(pix, base.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Encode(make([]byte, 10), base); err == nil {
		t.Fatal("a frame of the wrong size was taken")
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || !got[0].Config || !got[1].Key || got[2].Key || got[3].Key {
		t.Fatalf("packets: %d", len(got))
	}
	for i, p := range got[1:] {
		if !p.At.Equal(base.Add(time.Duration(i) * time.Second)) {
			t.Errorf("frame %d at %v", i, p.At)
		}
		if p.Data[0] != 0 || p.Data[3] != 1 {
			t.Errorf("frame %d not Annex-B", i)
		}
	}
	if got[0].Data[4]&0x1f != 7 {
		t.Fatal("config does not start with an SPS")
	}
}

func TestStartRefusesNoSize(t *testing.T) {
	t.Parallel()
	if _, err := Start(context.Background(), Options{}, func(Packet) error { return nil }); err == nil {
		t.Fatal("no error")
	}
}
