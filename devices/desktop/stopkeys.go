package desktop

import (
	"errors"
	"sync"
	"time"
)

// StopKeys shares the stop hotkey between the drivers of one process. X
// lets one client grab a key, and Windows one registration of a hotkey, so
// a second display's driver failed with ErrHotkeyTaken and two displays
// could not be driven at once (issue 19 on X11, issue 27 on Windows). With
// a StopKeys in their Options, the first driver of a hotkey holds it for
// all of them, a press stops every one of them, and when the holder closes
// the next driver takes the hotkey over. The app makes one and hands it to
// every Open; nil keeps a driver's own exclusive hotkey.
type StopKeys struct {
	mu   sync.Mutex
	subs map[string][]StopMember // by hotkey (and X display); the first holds it
}

// StopMember is a driver sharing a StopKeys.
type StopMember interface {
	// GrabStop makes this driver hold the hotkey for the process
	// (ErrHotkeyTaken while another program, or the old holder, has it).
	GrabStop() error
	// StopPressed tells the driver the hotkey was pressed.
	StopPressed()
}

// NewStopKeys returns an empty set.
func NewStopKeys() *StopKeys { return &StopKeys{subs: map[string][]StopMember{}} }

// Join adds m to the drivers of hotkey key, making m hold it when none does.
func (s *StopKeys) Join(key string, m StopMember) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.subs[key]) == 0 {
		if err := m.GrabStop(); err != nil {
			return err
		}
	}
	s.subs[key] = append(s.subs[key], m)
	return nil
}

// Leave removes m (once it no longer holds the hotkey: its grab or
// registration is gone) and lets the next driver take the hotkey over.
func (s *StopKeys) Leave(key string, m StopMember) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.subs[key]
	holder := len(list) > 0 && list[0] == m
	out := list[:0]
	for _, x := range list {
		if x != m {
			out = append(out, x)
		}
	}
	s.subs[key] = out
	for holder && len(s.subs[key]) > 0 {
		if takeOver(s.subs[key][0]) == nil {
			return
		}
		s.subs[key] = s.subs[key][1:] // cannot hold it: it is deaf to the key
	}
}

// takeOver makes m hold the hotkey once the system has let the old
// holder's go (the X server does so when it reads the closed connection, a
// moment after).
func takeOver(m StopMember) error {
	var err error
	for i := 0; i < 50; i++ {
		if err = m.GrabStop(); err == nil || !errors.Is(err, ErrHotkeyTaken) {
			return err
		}
		time.Sleep(20 * time.Millisecond) // bounded retry of a system call, not a wait for our own state
	}
	return err
}

// Fire tells every driver sharing hotkey key that it was pressed.
func (s *StopKeys) Fire(key string) {
	s.mu.Lock()
	list := append([]StopMember(nil), s.subs[key]...)
	s.mu.Unlock()
	for _, m := range list {
		m.StopPressed()
	}
}

// x11Stop is an X11 driver as a StopKeys member.
type x11Stop struct{ d *Driver }

func (m x11Stop) GrabStop() error { return m.d.grabStop() }
func (m x11Stop) StopPressed()    { m.d.stopPressed() }

func stopKeyName(d *Driver) string { return serverKey(d.opts.Display) + "|" + d.stop.String() }
