package mirror

import (
	"context"
	"image"
	"testing"
	"time"
)

// A follower gets the stream's packets in order from the current group of
// pictures, never a still, and ends with its context.
func TestFollowGetsTheVideoInOrder(t *testing.T) {
	h := NewHub()
	h.PublishVideo("d", Frame{Config: true, Data: []byte{1}})
	h.PublishVideo("d", Frame{Key: true, Data: []byte{2}})
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan byte, 16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.Follow(ctx, "d", func(f Frame) { got <- f.Data[0] })
	}()
	h.Publish("d", image.NewRGBA(image.Rect(0, 0, 2, 2)), time.Now()) // dropped: video feeds the slot
	h.PublishVideo("d", Frame{Data: []byte{3}})
	h.PublishVideo("d", Frame{Data: []byte{4}})
	for _, want := range []byte{1, 2, 3, 4} {
		select {
		case b := <-got:
			if b != want {
				t.Fatalf("got packet %d, want %d", b, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("packet %d never came", want)
		}
	}
	h.EndVideo("d")
	h.Publish("d", image.NewRGBA(image.Rect(0, 0, 2, 2)), time.Now()) // a still: not the follower's
	cancel()
	<-done
	if len(got) != 0 || h.Encodes() != 0 {
		t.Fatalf("%d more packets, %d stills encoded for a follower", len(got), h.Encodes())
	}
}
