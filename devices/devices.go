// Package devices is the one list of everything Tandem can operate — the
// phones on the adb server, and on other computers' adb servers
// (remote.go), this computer's displays, and any source a front door adds
// (the app's virtual phones) — and the one way to open them.
// The app's device list, `tandem devices` and `tandem run --device` all go
// through a Registry, so what one lists the other can open.
//
// Why a room of its own, beside the drivers (devices/adb, devices/desktop):
// listing is not driving. It knows the phones' states and what the person
// should do about each ("tap Allow on the USB debugging prompt"), caches
// each phone's name and screen so listing stays cheap, and shares one
// desktop driver per display between a run and the mirror (the stop
// hotkey's grab can have only one owner).
package devices

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"tandem/devices/adb"
	"tandem/engine/action"
	"tandem/engine/device"
)

// Entry is one device as the device lists show it.
type Entry struct {
	ID      string      `json:"id"`
	Name    string      `json:"name"`
	Kind    device.Kind `json:"kind"`
	State   string      `json:"state"` // "device" (usable phone), "ready" (desktop), "offline", "unauthorized", "unavailable", ...
	Screen  action.Size `json:"screen"`
	Virtual bool        `json:"virtual"`
	Problem string      `json:"problem"` // what the person should do when the device is not usable, in English
	// Host is the address of the other computer's adb server the phone is
	// on ("" for this computer's); the ID then ends in "@" and it.
	Host string `json:"host,omitempty"`
	// ProblemCode names the problem for the UI to word in the person's
	// language: unauthorized, no_permissions, offline, no_answer, state
	// (ProblemParam the adb state), needs_x11, unsupported_os; host_down,
	// host_silent, host_unknown (ProblemParam the other computer's adb
	// server).
	ProblemCode  string `json:"problem_code,omitempty"`
	ProblemParam string `json:"problem_param,omitempty"`
	// HeldBy is who in another Tandem drives the device now (lease.go);
	// nil when no one does, or this process does.
	HeldBy *Holder `json:"held_by,omitempty"`
}

// Usable reports whether a run can start on the device.
func (e Entry) Usable() bool { return e.State == "device" || e.State == "ready" }

// Source lists and opens devices of one kind besides ADB phones (the
// desktop's displays, virtual phones started in this process).
type Source interface {
	List(ctx context.Context) ([]Entry, error)
	// Open returns the device, or ok=false when the id is not this source's.
	Open(ctx context.Context, id string) (d device.Device, ok bool, err error)
}

// Registry lists and opens devices: phones on the adb server, plus sources.
type Registry struct {
	adb      adb.Server
	stateDir string

	mu      sync.Mutex
	sources []Source
	infos   map[string]device.Info // device ID -> info, for online phones
	remote  func() []string        // other computers' adb servers (remote.go)

	leases leases  // the devices this process drives (lease.go)
	last   []Entry // the last list made, whose holders watchLeases renews
}

// New makes a registry on the adb server srv. stateDir keeps the ADB
// driver's crash-safe state (the keyboard-restore notes).
func New(srv adb.Server, stateDir string, sources ...Source) *Registry {
	return &Registry{adb: srv, stateDir: stateDir, sources: sources, infos: map[string]device.Info{}}
}

// ADB returns the adb server the registry uses.
func (d *Registry) ADB() adb.Server { return d.adb }

// AddSource adds a source (the virtual phones, the desktop).
func (d *Registry) AddSource(s Source) {
	d.mu.Lock()
	d.sources = append(d.sources, s)
	d.mu.Unlock()
}

// ErrNoADB means adb is not installed; phones cannot be used.
var ErrNoADB = errors.New("adb is not installed: install it (Debian/Ubuntu: sudo apt install adb) to use phones")

// ListError is what List could not list: one error per failed source (the
// adb server counts as one), and how many sources there were.
type ListError struct {
	Errs    []error
	Sources int
}

func (e *ListError) Error() string   { return errors.Join(e.Errs...).Error() }
func (e *ListError) Unwrap() []error { return e.Errs }

// AllFailed reports whether no source could list anything.
func (e *ListError) AllFailed() bool { return len(e.Errs) == e.Sources }

// List returns all devices. A source's problem (adb missing, the X server
// gone) does not hide the others: the entries come with a *ListError.
func (d *Registry) List(ctx context.Context) ([]Entry, error) {
	var out []Entry
	phones, adbErr := d.phones(ctx)
	out = append(out, phones...)
	others, remoteErrs, hosts := d.remotePhones(ctx)
	out = append(out, others...)
	d.forgetGone(out)
	d.mu.Lock()
	sources := append([]Source(nil), d.sources...)
	d.mu.Unlock()
	le := &ListError{Sources: 1 + hosts + len(sources), Errs: remoteErrs}
	if adbErr != nil {
		le.Errs = append([]error{adbErr}, le.Errs...)
	}
	for _, s := range sources {
		list, err := s.List(ctx)
		if err != nil {
			le.Errs = append(le.Errs, err)
			continue
		}
		for _, e := range list {
			if i := indexOf(out, e.ID); i >= 0 {
				out[i].Virtual = out[i].Virtual || e.Virtual
				if e.Name != "" && e.Virtual {
					out[i].Name = e.Name
				}
				continue
			}
			out = append(out, e)
		}
	}
	d.markHeld(out)
	d.mu.Lock()
	d.last = slices.Clone(out)
	d.mu.Unlock()
	if len(le.Errs) > 0 {
		return out, le
	}
	return out, nil
}

func indexOf(list []Entry, id string) int {
	for i, e := range list {
		if e.ID == id {
			return i
		}
	}
	return -1
}

func (d *Registry) phones(ctx context.Context) ([]Entry, error) {
	if d.adb.ADB == "" {
		if _, err := exec.LookPath("adb"); err != nil {
			if _, verr := d.adb.Version(ctx); verr != nil {
				return nil, ErrNoADB
			}
		}
	}
	if err := d.adb.Ensure(ctx); err != nil {
		return nil, fmt.Errorf("start the adb server: %w", err)
	}
	entries, err := d.adb.Devices(ctx)
	if err != nil {
		return nil, fmt.Errorf("list phones: %w", err)
	}
	out := make([]Entry, 0, len(entries))
	for _, e := range sortBySerial(entries) {
		out = append(out, d.phone(ctx, d.adb, "", e))
	}
	return out, nil
}

func sortBySerial(entries []adb.Entry) []adb.Entry {
	sort.Slice(entries, func(i, j int) bool { return entries[i].Serial < entries[j].Serial })
	return entries
}

// phone is one adb entry of the server srv (on host, "" for the local
// one) as the list shows it, with what to do about it when it cannot be
// used.
func (d *Registry) phone(ctx context.Context, srv adb.Server, host string, e adb.Entry) Entry {
	de := Entry{ID: e.Serial, Name: strings.ReplaceAll(e.Model, "_", " "), Kind: device.Phone, State: e.State, Host: host}
	if host != "" {
		de.ID = e.Serial + "@" + host
	}
	if de.Name == "" {
		de.Name = e.Serial
	}
	switch {
	case e.Online():
		info, err := d.info(ctx, srv, de.ID, e.Serial)
		if err != nil {
			de.State, de.Problem, de.ProblemCode, de.ProblemParam = "offline", "The phone did not answer: "+err.Error(), "no_answer", err.Error()
			break
		}
		de.Screen = info.Screen
		if info.Name != "" {
			de.Name = info.Name
		}
	case e.State == "unauthorized":
		de.ProblemCode = "unauthorized"
		de.Problem = "Unlock the phone and tap “Allow” on the USB debugging prompt."
	case strings.HasPrefix(e.State, "no permissions"):
		de.ProblemCode = "no_permissions"
		de.Problem = "No permission to use this USB device: add a udev rule for Android phones (Debian: sudo apt install android-sdk-platform-tools-common), then plug it in again."
	case e.State == "offline":
		de.ProblemCode = "offline"
		de.Problem = "The phone is offline: unplug it and plug it in again, or reconnect over Wi-Fi."
	default:
		de.ProblemCode, de.ProblemParam = "state", e.State
		de.Problem = "The phone is " + e.State + "."
	}
	if host != "" { // wherever the name is shown (the list, the mirror's title), so is the rack
		de.Name += " · " + host
	}
	return de
}

// info returns a phone's cached info, asking the phone the first time.
func (d *Registry) info(ctx context.Context, srv adb.Server, id, serial string) (device.Info, error) {
	d.mu.Lock()
	info, ok := d.infos[id]
	d.mu.Unlock()
	if ok {
		return info, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 8*time.Second)
	defer cancel()
	_, host := SplitID(id)
	state := d.stateDir
	if host != "" {
		state = d.remoteState(host)
	}
	dev, err := adb.Open(ctx, adb.Options{Server: srv, Serial: serial, StateDir: state, Driven: d.driven(id)})
	if err != nil {
		return device.Info{}, err
	}
	defer dev.Close()
	info, err = dev.Info(ctx)
	if err != nil {
		return device.Info{}, err
	}
	d.mu.Lock()
	d.infos[id] = info
	d.mu.Unlock()
	return info, nil
}

// forgetGone drops the cached info of every phone not online in list.
func (d *Registry) forgetGone(list []Entry) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for id := range d.infos {
		if i := indexOf(list, id); i < 0 || list[i].State != "device" {
			delete(d.infos, id)
		}
	}
}

// Open opens a device for a run or the mirror. Each call gives a new handle
// the caller must Close.
func (d *Registry) Open(ctx context.Context, id string) (device.Device, error) {
	d.mu.Lock()
	sources := append([]Source(nil), d.sources...)
	d.mu.Unlock()
	for _, s := range sources {
		dev, ok, err := s.Open(ctx, id)
		if ok {
			return dev, err
		}
	}
	srv, serial, state, err := d.Phone(id)
	if err != nil {
		return nil, err
	}
	return adb.Open(ctx, adb.Options{Server: srv, Serial: serial, StateDir: state, Driven: d.HeldBy(id) != nil})
}

// Connect connects a phone over Wi-Fi ("ip:port") and returns its entry.
func (d *Registry) Connect(ctx context.Context, addr string) (Entry, error) {
	addr = strings.TrimSpace(addr)
	if addr == "" {
		return Entry{}, errors.New("type the phone's address, like 192.168.1.20:5555")
	}
	if err := d.adb.Ensure(ctx); err != nil {
		return Entry{}, fmt.Errorf("start the adb server: %w", err)
	}
	serial, err := d.adb.Connect(ctx, addr)
	if err != nil {
		return Entry{}, err
	}
	list, err := d.List(ctx)
	if i := indexOf(list, serial); i >= 0 {
		return list[i], nil
	}
	if err == nil {
		err = fmt.Errorf("%s connected but is not listed by the adb server", serial)
	}
	return Entry{}, err
}

// Watch calls fn with the new list whenever phones come or go, until ctx
// ends. It retries when the adb server restarts; other computers' servers
// are asked every few seconds (watchRemote).
func (d *Registry) Watch(ctx context.Context, fn func([]Entry)) {
	go d.watchRemote(ctx, fn)
	go d.watchLeases(ctx, fn)
	for ctx.Err() == nil {
		err := d.adb.Track(ctx, func([]adb.Entry) {
			if list, _ := d.List(ctx); list != nil {
				fn(list)
			}
		})
		if ctx.Err() != nil {
			return
		}
		_ = err // the server went away or is not there yet: look again soon
		select {
		case <-ctx.Done():
			return
		case <-time.After(2 * time.Second):
		}
	}
}
