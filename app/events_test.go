package app

import (
	"sync"
	"testing"
	"time"

	"tandem/engine"
)

// TestPageEventsBatches: streamed events wait for company, any other event
// goes at once with those waiting before it, and the page receives every
// event once, in the order the backend told them.
func TestPageEventsBatches(t *testing.T) {
	var mu sync.Mutex
	var got [][]engine.Event
	sent := make(chan struct{}, 100)
	p := newPageEvents(func(name string, data any) {
		if name != "runs" {
			t.Errorf("event %q, want runs", name)
			return
		}
		mu.Lock()
		got = append(got, data.([]engine.Event))
		mu.Unlock()
		sent <- struct{}{}
	})
	kinds := []engine.EventKind{engine.KindThought, engine.KindThought, engine.KindUsage, engine.KindState,
		engine.KindThought, engine.KindWaiting}
	for i, k := range kinds {
		p.Notify("run", engine.Event{Run: "r", Seq: int64(i + 1), Kind: k})
	}
	// The state change went at once, with the three before it.
	mu.Lock()
	if len(got) != 1 || len(got[0]) != 4 || got[0][3].Kind != engine.KindState {
		t.Fatalf("after the state change the page had %v, want one batch of 4 ending with it", got)
	}
	mu.Unlock()
	<-sent
	select {
	case <-sent: // the last two, after a frame
	case <-time.After(10 * time.Second):
		t.Fatal("the streamed events after the state change never went")
	}
	mu.Lock()
	defer mu.Unlock()
	var seqs []int64
	for _, b := range got {
		for _, e := range b {
			seqs = append(seqs, e.Seq)
		}
	}
	if len(seqs) != len(kinds) {
		t.Fatalf("the page got %v, want %d events", seqs, len(kinds))
	}
	for i, s := range seqs {
		if s != int64(i+1) {
			t.Fatalf("the page got %v, want them in order", seqs)
		}
	}
}

// TestPageEventsPassOthers: an event that is not a run's goes as it came.
func TestPageEventsPassOthers(t *testing.T) {
	var names []string
	p := newPageEvents(func(name string, data any) { names = append(names, name) })
	p.Notify("devices", []string{"a"})
	if len(names) != 1 || names[0] != "devices" {
		t.Fatalf("sent %v, want [devices]", names)
	}
}
