package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"tandem/devices/desktop"
	"tandem/devices/desktop/host"
	"tandem/engine"
	"tandem/engine/device"
)

// desktopSource offers this computer's displays. A display's driver holds
// the global stop hotkey's grab, which only one client can have, so the
// mirror and a run share one driver per display: Open hands out counted
// handles and the driver closes when the last one does.
type desktopSource struct {
	mu      sync.Mutex
	drivers map[string]*sharedDriver
	stop    *desktop.StopKeys // one stop hotkey for every display driven at once
}

type sharedDriver struct {
	host.Driver
	refs int
}

func newDesktopSource() *desktopSource {
	return &desktopSource{drivers: map[string]*sharedDriver{}, stop: desktop.NewStopKeys()}
}

// List returns the displays; none on a headless machine; one entry that
// says why where the desktop cannot be driven (a Wayland session without
// XWayland, macOS), rather than leaving "This computer" out without a word.
func (s *desktopSource) List(ctx context.Context) ([]DeviceEntry, error) {
	infos, err := host.Displays(ctx)
	var u *host.Unavailable
	if errors.As(err, &u) {
		return []DeviceEntry{{ID: strings.TrimSuffix(desktop.IDPrefix, ":"), Name: "This computer", Kind: device.Desktop, State: "unavailable", Problem: u.Reason}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list this computer's displays: %w", err)
	}
	out := make([]DeviceEntry, 0, len(infos))
	for _, in := range infos {
		out = append(out, DeviceEntry{ID: in.ID, Name: in.Name, Kind: device.Desktop, State: "ready", Screen: in.Screen})
	}
	return out, nil
}

func (s *desktopSource) Open(ctx context.Context, id string) (device.Device, bool, error) {
	if !strings.HasPrefix(id, desktop.IDPrefix) {
		return nil, false, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sd, ok := s.drivers[id]
	if !ok {
		drv, err := host.Open(ctx, id, host.Options{ExcludePIDs: []int{os.Getpid()}, StopKeys: s.stop})
		if err != nil {
			return nil, true, err
		}
		sd = &sharedDriver{Driver: drv}
		s.drivers[id] = sd
	}
	sd.refs++
	return &desktopHandle{Driver: sd.Driver, release: func() error { return s.release(id) }}, true, nil
}

func (s *desktopSource) release(id string) error {
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

// guardDesktop ties a run on the desktop to the driver's safety signals:
// the person touching the mouse or keyboard pauses the run at once (a run
// never fights a human for the pointer), the stop hotkey stops it, and the
// driver is let drive again when the run goes back to planning.
func guardDesktop(run *engine.Run, drv host.Driver) {
	resumed := make(chan struct{}, 1)
	cancel := run.Subscribe(engine.EmitterFunc(func(e engine.Event) {
		if e.State != nil && e.State.State == engine.Planning && (e.State.From == engine.Paused || e.State.From == engine.Manual || e.State.From == engine.WaitingForUser) {
			select {
			case resumed <- struct{}{}:
			default:
			}
		}
	}))
	go func() {
		defer cancel()
		ctx := context.Background()
		for {
			select {
			case <-run.Done():
				return
			case <-drv.Takeover():
				// A pause the run refuses (it is not acting) must not leave
				// the driver latched, or every later action would fail.
				var ill *engine.IllegalError
				if err := run.Pause(ctx); errors.As(err, &ill) {
					drv.Resume()
				}
			case <-drv.StopHotkey():
				_ = run.Stop(ctx)
			case <-resumed:
				drv.Resume()
			}
		}
	}()
}
