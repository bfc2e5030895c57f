//go:build !windows

package notify

import (
	"context"
	"fmt"
	"sync"

	"github.com/godbus/dbus/v5"
)

// The freedesktop Desktop Notifications Specification, version 1.2
// (https://specifications.freedesktop.org/notification-spec/latest/):
// Notify(app_name s, replaces_id u, app_icon s, summary s, body s,
// actions as, hints a{sv}, expire_timeout i) -> id u, and the signal
// ActionInvoked(id u, action_key s), where the key "default" is a click on
// the notification itself.
const (
	busName   = "org.freedesktop.Notifications"
	busPath   = dbus.ObjectPath("/org/freedesktop/Notifications")
	notifyM   = busName + ".Notify"
	invokedM  = "ActionInvoked"
	clickKey  = "default"
	urgencyHi = byte(2) // critical: stays until the person dismisses it
)

// Notifier shows notes on the session bus and hears their clicks.
type Notifier struct {
	clicked func(tag string)

	mu   sync.Mutex
	conn *dbus.Conn
	tags map[uint32]string // the server's id of each note shown -> its tag
}

// New makes a notifier; clicked (nil: none) hears the tag of a note the
// person clicked, from a goroutine of the notifier's.
func New(clicked func(tag string)) *Notifier {
	return &Notifier{clicked: clicked, tags: map[uint32]string{}}
}

// connect opens a private connection to the session bus the environment
// names (DBUS_SESSION_BUS_ADDRESS) and listens for clicks, once.
func (n *Notifier) connect(ctx context.Context) (*dbus.Conn, error) {
	if n.conn != nil {
		return n.conn, nil
	}
	conn, err := dbus.ConnectSessionBus(dbus.WithContext(context.WithoutCancel(ctx)))
	if err != nil {
		return nil, fmt.Errorf("no desktop session bus for notifications: %w", err)
	}
	if err := conn.AddMatchSignalContext(ctx, dbus.WithMatchObjectPath(busPath), dbus.WithMatchInterface(busName),
		dbus.WithMatchMember(invokedM)); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("listen for notification clicks: %w", err)
	}
	ch := make(chan *dbus.Signal, 16)
	conn.Signal(ch)
	go n.listen(ch)
	n.conn = conn
	return conn, nil
}

// listen hears the clicks until the connection closes (which closes ch).
func (n *Notifier) listen(ch <-chan *dbus.Signal) {
	for s := range ch {
		if s.Name != busName+"."+invokedM || len(s.Body) != 2 {
			continue
		}
		id, _ := s.Body[0].(uint32)
		key, _ := s.Body[1].(string)
		n.mu.Lock()
		tag, ours := n.tags[id]
		n.mu.Unlock()
		if ours && key == clickKey && n.clicked != nil {
			n.clicked(tag)
		}
	}
}

// Show sends the note to the notification server. The lock is held until
// the note's id is known, so a click that comes back before the reply is
// matched to it (listen waits; godbus never blocks delivering a signal).
func (n *Notifier) Show(ctx context.Context, note Note) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	conn, err := n.connect(ctx)
	if err != nil {
		return err
	}
	hints := map[string]dbus.Variant{"urgency": dbus.MakeVariant(urgencyHi), "desktop-entry": dbus.MakeVariant("tandem")}
	actions := []string{clickKey, "Open"}
	call := conn.Object(busName, busPath).CallWithContext(ctx, notifyM, 0,
		AppName, uint32(0), "", note.Summary, escapeMarkup(note.Body), actions, hints, int32(-1))
	var id uint32
	if err := call.Store(&id); err != nil {
		return fmt.Errorf("desktop notification: %w", err)
	}
	n.tags[id] = note.Tag
	return nil
}

// Close ends the connection (and the listening).
func (n *Notifier) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.conn == nil {
		return nil
	}
	err := n.conn.Close()
	n.conn = nil
	return err
}
