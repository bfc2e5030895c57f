package vphone_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// The event log is the phone's own list of inputs, line for line, each
// written by the time the command that made it has returned.
func TestEventLog(t *testing.T) {
	t.Parallel()
	var log syncBuffer
	p, env := vphonetest.Start(t, vphone.WithSize(360, 800), vphone.WithEventLog(&log))
	env.Shell(t, "input tap 10 20")
	if n := bytes.Count(log.Bytes(), []byte("\n")); n != 1 {
		t.Fatalf("%d lines after one tap returned: %q", n, log.Bytes())
	}
	env.Shell(t, "input keyevent 3; input swipe 10 700 10 100 200")
	p.Tap(30, 40)
	var got []vphone.Event
	sc := bufio.NewScanner(bytes.NewReader(log.Bytes()))
	for sc.Scan() {
		var e struct {
			Kind string    `json:"kind"`
			Args []string  `json:"args"`
			X    int       `json:"x"`
			Y    int       `json:"y"`
			At   time.Time `json:"at"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		got = append(got, vphone.Event{Kind: e.Kind, Args: e.Args, X: e.X, Y: e.Y, At: e.At})
	}
	want := p.Events()
	if len(got) != len(want) || len(got) != 4 {
		t.Fatalf("log %+v, events %+v", got, want)
	}
	for i := range want {
		w := want[i]
		if got[i].Kind != w.Kind || got[i].X != w.X || got[i].Y != w.Y || !got[i].At.Equal(w.At) || len(got[i].Args) != len(w.Args) {
			t.Fatalf("line %d is %+v, the phone's event %+v", i, got[i], w)
		}
	}
}
