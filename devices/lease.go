package devices

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"tandem/devices/adb"
	"tandem/devices/desktop"
	"tandem/engine/device"
	"tandem/internal/datadir"
	"tandem/internal/filelock"
)

// One driver per device, across every Tandem on this computer: whoever
// drives a device (a run, another agent's act, the person's own input in
// a window with no run on it) holds its lease, an OS file lock in the
// runtime dir keyed by the adb server and serial, or by the display. A
// second driver in another process is refused with who holds it (or waits
// for it); the OS lets the lock go when its process dies, so a crash never
// leaves a phone held. Within one process the backend decides who drives
// (one run per device; a device with a run takes no other agent's act),
// so the lease is counted there: taken once, let go with the last holder.

// Holder is who holds a device's lease: a door of a Tandem process.
type Holder struct {
	// Door is "window" (the Tandem window), "run" (`tandem run`), "mcp"
	// (`tandem mcp`), "" another.
	Door string `json:"door"`
	// Client is the MCP client's name, when Door is "mcp".
	Client string `json:"client,omitempty"`
	PID    int    `json:"pid"`
	// Device is the device's id in the holder's list.
	Device string    `json:"device,omitempty"`
	Since  time.Time `json:"since"`
	// Run and Goal are the holder's run on the device, when it is a run
	// (NoteRun): History reads its steps from its record.
	Run  string `json:"run,omitempty"`
	Goal string `json:"goal,omitempty"`
}

// String names the holder for the person, in English.
func (h Holder) String() string {
	proc := ""
	if h.PID > 0 {
		proc = fmt.Sprintf("process %d", h.PID)
	}
	with := func(s string) string {
		if proc == "" {
			return s
		}
		return s + " (" + proc + ")"
	}
	door := map[string]string{"window": "the Tandem window", "run": "tandem run", "mcp": "tandem mcp"}[h.Door]
	switch {
	case h.Client != "" && door != "":
		return with(fmt.Sprintf("the MCP client %q through %s", clip(h.Client, 60), door))
	case h.Client != "":
		return with(fmt.Sprintf("the MCP client %q", clip(h.Client, 60)))
	case h.Door == "mcp":
		return with("an MCP client through tandem mcp")
	case door != "":
		return with(door)
	}
	return with("another Tandem")
}

// Doing is the holder and, when it is a run, its goal, for a list.
func (h Holder) Doing() string {
	if h.Goal == "" {
		return h.String()
	}
	return fmt.Sprintf("%s, doing %q", h, clip(h.Goal, 80))
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// ErrHeld means another Tandem drives the device.
var ErrHeld = errors.New("the device is driven by another Tandem")

// HeldError says who drives the device.
type HeldError struct {
	Device string
	By     Holder
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("%s is in use by %s: stop it there, or wait for it to end (tandem run --wait)", e.Device, e.By)
}

// Is makes errors.Is(err, ErrHeld) hold.
func (e *HeldError) Is(target error) bool { return target == ErrHeld }

// leases are this process's held leases, counted.
type leases struct {
	mu   sync.Mutex
	dir  string
	held map[string]*lease // lease file -> this process's hold
}

type lease struct {
	f    *os.File
	refs int
	h    Holder
}

// leaseDir is where the leases are: the runtime dir's leases.
func (d *Registry) leaseDir() string {
	d.leases.mu.Lock()
	defer d.leases.mu.Unlock()
	if d.leases.dir == "" {
		d.leases.dir = filepath.Join(datadir.Runtime(os.Getenv), "leases")
	}
	return d.leases.dir
}

// SetLeaseDir moves the leases (tests).
func (d *Registry) SetLeaseDir(dir string) {
	d.leases.mu.Lock()
	d.leases.dir = dir
	d.leases.mu.Unlock()
}

// leaseFile is device id's lease file: one per adb server and serial, or
// per display; false when the id names neither.
func (d *Registry) leaseFile(id string) (string, bool) {
	var key string
	if strings.HasPrefix(id, desktop.IDPrefix) {
		key = "display " + os.Getenv("DISPLAY") + " " + id
	} else {
		serial, host := SplitID(id) // not Phone: a list asks for every phone's
		if host == "" {
			host = d.adb.Addr
		}
		if host == "" {
			host = adb.DefaultAddr
		}
		if serial == "" {
			return "", false
		}
		key = "adb " + host + " " + serial
	}
	sum := sha256.Sum256([]byte(key))
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			return r
		}
		return '_'
	}, clip(key, 60))
	return filepath.Join(d.leaseDir(), name+"-"+hex.EncodeToString(sum[:6])+".lock"), true
}

// Lease takes device id's lease for h, or says who holds it (a
// *HeldError); with wait it waits for the holder to let go until ctx
// ends. release lets it go; a device with no lease (not a phone or a
// display) gives a release that does nothing.
func (d *Registry) Lease(ctx context.Context, id string, h Holder, wait bool) (release func(), err error) {
	path, ok := d.leaseFile(id)
	if !ok {
		return func() {}, nil
	}
	h.PID, h.Device, h.Since = os.Getpid(), id, time.Now()
	// The lock has no wake-up for a waiter that Go can cancel, so a
	// waiter looks again every poll until the holder lets go or ctx ends.
	const poll = 250 * time.Millisecond
	for tries := 1; ; tries++ {
		release, err := d.tryLease(path, h)
		var held *HeldError
		if errors.As(err, &held) && held.By.PID == 0 && tries < 3 {
			// Held by no one named: another process's look (HeldBy)
			// holds it for a moment, or a holder is writing its name.
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		if !errors.As(err, &held) || !wait {
			if held != nil {
				held.Device = id
			}
			return release, err
		}
		select {
		case <-ctx.Done():
			held.Device = id
			return nil, fmt.Errorf("%w (waited until %w)", err, ctx.Err())
		case <-time.After(poll):
		}
	}
}

func (d *Registry) tryLease(path string, h Holder) (func(), error) {
	d.leases.mu.Lock()
	defer d.leases.mu.Unlock()
	if l := d.leases.held[path]; l != nil {
		l.refs++
		return d.releaser(path), nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("device lease: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("device lease: %w", err)
	}
	got, err := filelock.TryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("device lease: %w", err)
	}
	if !got {
		by := readHolder(f)
		f.Close()
		return nil, &HeldError{By: by}
	}
	l := &lease{f: f, refs: 1, h: h}
	l.write()
	if d.leases.held == nil {
		d.leases.held = map[string]*lease{}
	}
	d.leases.held[path] = l
	return d.releaser(path), nil
}

// write puts the holder in the lease file, for another Tandem to read.
func (l *lease) write() {
	b, _ := json.Marshal(l.h)
	if err := l.f.Truncate(0); err == nil {
		_, _ = l.f.WriteAt(append(b, '\n'), 0)
	}
}

// NoteRun names the run that holds device id's lease in this process, and
// its goal, for another Tandem to show; nothing when this process does
// not hold it.
func (d *Registry) NoteRun(id, run, goal string) {
	path, ok := d.leaseFile(id)
	if !ok {
		return
	}
	d.leases.mu.Lock()
	defer d.leases.mu.Unlock()
	if l := d.leases.held[path]; l != nil {
		l.h.Run, l.h.Goal = run, clip(goal, 300)
		l.write()
	}
}

// releaser lets one hold of path go, once.
func (d *Registry) releaser(path string) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			d.leases.mu.Lock()
			defer d.leases.mu.Unlock()
			l := d.leases.held[path]
			if l == nil {
				return
			}
			if l.refs--; l.refs > 0 {
				return
			}
			delete(d.leases.held, path)
			_ = l.f.Truncate(0)
			filelock.Unlock(l.f)
			l.f.Close()
		})
	}
}

// readHolder reads who holds the lease f (a zero Holder when it cannot
// be read: the holder is writing it, or an older Tandem).
func readHolder(f *os.File) Holder {
	b := make([]byte, 4096)
	n, _ := f.ReadAt(b, 0)
	var h Holder
	_ = json.Unmarshal(b[:n], &h)
	return h
}

// HeldBy says who in another process holds device id's lease now; nil
// when it is free or this process holds it.
func (d *Registry) HeldBy(id string) *Holder {
	path, ok := d.leaseFile(id)
	if !ok {
		return nil
	}
	d.leases.mu.Lock()
	mine := d.leases.held[path] != nil
	d.leases.mu.Unlock()
	if mine {
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil // no file: never leased; unreadable: leasing it says why
	}
	defer f.Close()
	got, err := filelock.TryLock(f)
	if err != nil {
		return nil
	}
	if got {
		filelock.Unlock(f)
		return nil
	}
	h := readHolder(f)
	return &h
}

// driven reports whether anyone, this process or another, holds device
// id's lease: a look at it (the list's) must leave its keyboard alone.
func (d *Registry) driven(id string) bool {
	if path, ok := d.leaseFile(id); ok {
		d.leases.mu.Lock()
		mine := d.leases.held[path] != nil
		d.leases.mu.Unlock()
		if mine {
			return true
		}
	}
	return d.HeldBy(id) != nil
}

// OpenHeld opens device id for the driver that holds its lease and ties
// release to the device's Close, after it gave the phone back (its
// keyboard) or let the display's driver go: the next driver, in this
// Tandem or another, finds it free the moment this one is done. tied is
// false for a device that cannot carry release (the caller lets go
// itself); on an error the caller still holds the lease.
func (d *Registry) OpenHeld(ctx context.Context, id string, release func()) (dev device.Device, tied bool, err error) {
	d.mu.Lock()
	sources := append([]Source(nil), d.sources...)
	d.mu.Unlock()
	for _, s := range sources {
		dev, ok, err := s.Open(ctx, id)
		if !ok {
			continue
		}
		if h, isDesk := dev.(*desktopHandle); isDesk && err == nil {
			prev := h.release
			h.release = func() error {
				err := prev()
				release()
				return err
			}
			return h, true, nil
		}
		return dev, false, err
	}
	srv, serial, state, err := d.Phone(id)
	if err != nil {
		return nil, false, err
	}
	dev, err = adb.Open(ctx, adb.Options{Server: srv, Serial: serial, StateDir: state, OnClose: release})
	return dev, err == nil, err
}

// markHeld fills each entry's HeldBy.
func (d *Registry) markHeld(list []Entry) {
	for i := range list {
		list[i].HeldBy = d.HeldBy(list[i].ID)
	}
}

// leaseEvery is how often Watch looks whether another Tandem took or let
// go of a listed device: a lock has no news to wait on across processes.
const leaseEvery = 2 * time.Second

// watchLeases calls fn with the last list, its holders renewed, whenever
// another Tandem takes or lets go of a device in it, until ctx ends.
func (d *Registry) watchLeases(ctx context.Context, fn func([]Entry)) {
	t := time.NewTicker(leaseEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		d.mu.Lock()
		list := slices.Clone(d.last)
		d.mu.Unlock()
		changed := false
		for i := range list {
			if h := d.HeldBy(list[i].ID); !sameHolder(h, list[i].HeldBy) {
				list[i].HeldBy, changed = h, true
			}
		}
		if changed {
			d.mu.Lock()
			d.last = list
			d.mu.Unlock()
			fn(slices.Clone(list))
		}
	}
}

func sameHolder(a, b *Holder) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.PID == b.PID && a.Door == b.Door && a.Client == b.Client && a.Run == b.Run
}
