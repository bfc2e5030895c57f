// Package notify raises the desktop's own notifications: a freedesktop
// notification over the session bus (org.freedesktop.Notifications) on
// Linux and the BSDs, a toast on Windows. It is apart because it talks to
// the operating system's desktop, not to a device or the window: the
// backend decides when the person must be told (a run waits for them and
// the window is not in front); this package only shows the note and says
// when it was clicked.
//
// A Notifier connects on its first note, not before, so a headless door
// that never notifies never touches the session bus. A missing
// notification daemon is an error of Show; what to do about it (log it
// once) is the caller's.
package notify

import (
	"context"
	"strings"
)

// Note is one notification: a short summary and a body of plain text.
type Note struct {
	Summary string
	Body    string
	// Tag says what the note is about (a run's id); Clicked hears it back.
	Tag string
}

// AppName is how the desktop names the sender.
const AppName = "Tandem"

// escapeMarkup makes text safe for a body that a server may read as
// markup (the spec's "body-markup" capability: <b>, <i>, <a>, and &).
func escapeMarkup(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// Shower is what the backend needs of a notifier.
type Shower interface {
	Show(ctx context.Context, n Note) error
	Close() error
}
