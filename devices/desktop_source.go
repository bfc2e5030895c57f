package devices

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"tandem/devices/desktop"
	"tandem/devices/desktop/host"
	"tandem/engine/device"
)

// Desktop is the source of this computer's displays. A display's driver
// holds the global stop hotkey's grab, which only one client can have, so
// the mirror and a run share one driver per display: Open hands out counted
// handles and the driver closes when the last one does. Tandem's own
// process is left out of what the agent may click.
type Desktop struct {
	mu      sync.Mutex
	drivers map[string]*sharedDriver
	stop    *desktop.StopKeys // one stop hotkey for every display driven at once
	// chord is the stop hotkey the person chose ("" the default), read
	// when a display's driver is made: a driver in use keeps its own.
	chord func() string
}

type sharedDriver struct {
	host.Driver
	refs int
}

// NewDesktop returns the source of this computer's displays.
func NewDesktop() *Desktop {
	return &Desktop{drivers: map[string]*sharedDriver{}, stop: desktop.NewStopKeys()}
}

// SetStopHotkey makes chord say the stop hotkey of the drivers made from
// now on ("" is desktop.DefaultStopHotkey).
func (s *Desktop) SetStopHotkey(chord func() string) {
	s.mu.Lock()
	s.chord = chord
	s.mu.Unlock()
}

// List returns the displays; none on a headless machine; one entry that
// says why where the desktop cannot be driven (a Wayland session without
// XWayland, macOS), rather than leaving "This computer" out without a word.
func (s *Desktop) List(ctx context.Context) ([]Entry, error) {
	infos, err := host.Displays(ctx)
	var u *host.Unavailable
	if errors.As(err, &u) {
		return []Entry{{ID: strings.TrimSuffix(desktop.IDPrefix, ":"), Name: "This computer", Kind: device.Desktop, State: "unavailable", Problem: u.Reason, ProblemCode: u.Code}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list this computer's displays: %w", err)
	}
	out := make([]Entry, 0, len(infos))
	for _, in := range infos {
		out = append(out, Entry{ID: in.ID, Name: in.Name, Kind: device.Desktop, State: "ready", Screen: in.Screen})
	}
	return out, nil
}

// Open opens display id ("desktop:N"); ok is false for any other id. The
// device is a host.Driver (its safety signals: the person's hand, the stop
// hotkey).
func (s *Desktop) Open(ctx context.Context, id string) (device.Device, bool, error) {
	if !strings.HasPrefix(id, desktop.IDPrefix) {
		return nil, false, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sd, ok := s.drivers[id]
	if !ok {
		var chord string
		if s.chord != nil {
			chord = s.chord()
		}
		drv, err := host.Open(ctx, id, host.Options{ExcludePIDs: []int{os.Getpid()}, StopKeys: s.stop, StopHotkey: chord})
		if err != nil {
			return nil, true, err
		}
		sd = &sharedDriver{Driver: drv}
		s.drivers[id] = sd
	}
	sd.refs++
	return &desktopHandle{Driver: sd.Driver, release: func() error { return s.release(id) }}, true, nil
}

func (s *Desktop) release(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sd, ok := s.drivers[id]
	if !ok {
		return nil
	}
	sd.refs--
	if sd.refs > 0 {
		return nil
	}
	delete(s.drivers, id)
	return sd.Close()
}

// desktopHandle is one user's view of a shared driver.
type desktopHandle struct {
	host.Driver
	once    sync.Once
	release func() error
}

func (h *desktopHandle) Close() error {
	var err error
	h.once.Do(func() { err = h.release() })
	return err
}
