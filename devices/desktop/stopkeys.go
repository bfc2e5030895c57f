package desktop

import (
	"errors"
	"sync"
	"time"
)

// StopKeys shares the stop hotkey between the drivers of one process. X
// lets one client grab a key, so a second display's driver failed with
// ErrHotkeyTaken and two displays could not be driven at once (issue 19).
// With a StopKeys in their Options, the first driver on a display grabs the
// key for all of them, a press stops every one of them, and when the
// holder closes the next driver takes the grab over. The app makes one and
// hands it to every Open; nil keeps a driver's own exclusive grab.
type StopKeys struct {
	mu   sync.Mutex
	subs map[string][]*Driver // by display and chord; the first holds the grab
}

// NewStopKeys returns an empty set.
func NewStopKeys() *StopKeys { return &StopKeys{subs: map[string][]*Driver{}} }

func stopKeyName(d *Driver) string { return d.opts.Display + "|" + d.stop.String() }

// join adds d, grabbing the key when no driver holds it yet.
func (s *StopKeys) join(d *Driver) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := stopKeyName(d)
	if len(s.subs[k]) == 0 {
		if err := d.grabStop(); err != nil {
			return err
		}
	}
	s.subs[k] = append(s.subs[k], d)
	return nil
}

// leave removes d (its connection already closed, so its grab is gone) and
// lets the next driver take the grab over.
func (s *StopKeys) leave(d *Driver) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := stopKeyName(d)
	list := s.subs[k]
	holder := len(list) > 0 && list[0] == d
	out := list[:0]
	for _, x := range list {
		if x != d {
			out = append(out, x)
		}
	}
	s.subs[k] = out
	for holder && len(s.subs[k]) > 0 {
		if takeOver(s.subs[k][0]) == nil {
			return
		}
		s.subs[k] = s.subs[k][1:] // cannot hold it: it is deaf to the key
	}
}

// takeOver grabs the key for d once the X server has let the old holder's
// grab go (it does so when it reads the closed connection, a moment after).
func takeOver(d *Driver) error {
	var err error
	for i := 0; i < 50; i++ {
		if err = d.grabStop(); err == nil || !errors.Is(err, ErrHotkeyTaken) {
			return err
		}
		time.Sleep(20 * time.Millisecond) // bounded retry of an X request, not a wait for our own state
	}
	return err
}

// fire tells every driver sharing d's key that it was pressed.
func (s *StopKeys) fire(d *Driver) {
	s.mu.Lock()
	list := append([]*Driver(nil), s.subs[stopKeyName(d)]...)
	s.mu.Unlock()
	for _, x := range list {
		x.stopPressed()
	}
}
