//go:build !windows

package notify

import (
	"context"
	"testing"
	"time"

	"tandem/internal/sessionbus"
)

// A note reaches the notification server on the session bus as the spec's
// Notify call (with its body's markup escaped), and a click on it (the
// server's ActionInvoked "default") comes back with the note's tag.
func TestANoteReachesTheBusAndItsClickComesBack(t *testing.T) {
	bus := sessionbus.Start(t)
	srv := bus.Notifications(t)
	clicked := make(chan string, 1)
	n := New(func(tag string) { clicked <- tag })
	defer n.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := n.Show(ctx, Note{Summary: "Phone A needs you", Body: "Confirm: tap <Pay> & go", Tag: "run-1"}); err != nil {
		t.Fatal(err)
	}
	notes, err := srv.Wait(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	got := notes[0]
	if got.App != AppName || got.Summary != "Phone A needs you" || got.Body != "Confirm: tap &lt;Pay&gt; &amp; go" {
		t.Fatalf("the server got %+v", got)
	}
	if len(got.Actions) < 2 || got.Actions[0] != "default" {
		t.Fatalf("no default action to click: %v", got.Actions)
	}
	if err := srv.Click(got.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case tag := <-clicked:
		if tag != "run-1" {
			t.Fatalf("the click came back as %q", tag)
		}
	case <-ctx.Done():
		t.Fatal("the click never came back")
	}
}

// A bus with no notification server: Show says so, and does not hang.
func TestNoNotificationServerIsAnError(t *testing.T) {
	sessionbus.Start(t)
	n := New(nil)
	defer n.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := n.Show(ctx, Note{Summary: "x"}); err == nil {
		t.Fatal("a note with no server to show it went without an error")
	}
}
