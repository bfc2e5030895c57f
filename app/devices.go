package app

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"tandem/devices/adb"
	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/mirror"
)

// DeviceEntry is one device as the device list shows it.
type DeviceEntry struct {
	ID      string      `json:"id"`
	Name    string      `json:"name"`
	Kind    device.Kind `json:"kind"`
	State   string      `json:"state"` // "device" (usable phone), "ready" (desktop), "offline", "unauthorized", ...
	Screen  action.Size `json:"screen"`
	Virtual bool        `json:"virtual"`
	Problem string      `json:"problem"` // what the person should do when the device is not usable
}

// Usable reports whether a run can start on the device.
func (e DeviceEntry) Usable() bool { return e.State == "device" || e.State == "ready" }

// DeviceSource lists and opens devices of one kind besides ADB phones (the
// desktop's displays, virtual phones started in this process).
type DeviceSource interface {
	List(ctx context.Context) ([]DeviceEntry, error)
	// Open returns the device, or ok=false when the id is not this source's.
	Open(ctx context.Context, id string) (d device.Device, ok bool, err error)
}

// Devices is the registry of everything Tandem can operate: phones on the
// adb server, plus extra sources. It caches each phone's name and screen so
// listing stays cheap.
type Devices struct {
	adb      adb.Server
	stateDir string
	sources  []DeviceSource

	mu    sync.Mutex
	infos map[string]device.Info // serial -> info, for online phones
}

// NewDevices makes a registry on the adb server at addr ("" = 127.0.0.1:5037,
// or TANDEM_ADB_PORT). stateDir keeps the ADB driver's crash-safe state.
func NewDevices(addr, stateDir string, sources ...DeviceSource) *Devices {
	if addr == "" {
		if p, err := strconv.Atoi(os.Getenv("TANDEM_ADB_PORT")); err == nil && p > 0 {
			addr = "127.0.0.1:" + strconv.Itoa(p)
		}
	}
	return &Devices{adb: adb.Server{Addr: addr}, stateDir: stateDir, sources: sources, infos: map[string]device.Info{}}
}

// ADB returns the adb server the registry uses.
func (d *Devices) ADB() adb.Server { return d.adb }

// AddSource adds a source (the virtual phones, the desktop).
func (d *Devices) AddSource(s DeviceSource) {
	d.mu.Lock()
	d.sources = append(d.sources, s)
	d.mu.Unlock()
}

// ErrNoADB means adb is not installed; phones cannot be used.
var ErrNoADB = errors.New("adb is not installed: install it (Debian/Ubuntu: sudo apt install adb) to use phones")

// List returns all devices. An adb problem does not hide the other sources:
// it is returned alongside them.
func (d *Devices) List(ctx context.Context) ([]DeviceEntry, error) {
	var out []DeviceEntry
	phones, adbErr := d.phones(ctx)
	out = append(out, phones...)
	d.mu.Lock()
	sources := append([]DeviceSource(nil), d.sources...)
	d.mu.Unlock()
	var errs []error
	if adbErr != nil {
		errs = append(errs, adbErr)
	}
	for _, s := range sources {
		list, err := s.List(ctx)
		if err != nil {
			errs = append(errs, err)
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
	return out, errors.Join(errs...)
}

func indexOf(list []DeviceEntry, id string) int {
	for i, e := range list {
		if e.ID == id {
			return i
		}
	}
	return -1
}

func (d *Devices) phones(ctx context.Context) ([]DeviceEntry, error) {
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
	sort.Slice(entries, func(i, j int) bool { return entries[i].Serial < entries[j].Serial })
	out := make([]DeviceEntry, 0, len(entries))
	for _, e := range entries {
		de := DeviceEntry{ID: e.Serial, Name: strings.ReplaceAll(e.Model, "_", " "), Kind: device.Phone, State: e.State}
		if de.Name == "" {
			de.Name = e.Serial
		}
		switch {
		case e.Online():
			info, err := d.info(ctx, e.Serial)
			if err != nil {
				de.State, de.Problem = "offline", "The phone did not answer: "+err.Error()
				break
			}
			de.Screen = info.Screen
			if info.Name != "" {
				de.Name = info.Name
			}
		case e.State == "unauthorized":
			de.Problem = "Unlock the phone and tap “Allow” on the USB debugging prompt."
		case strings.HasPrefix(e.State, "no permissions"):
			de.Problem = "No permission to use this USB device: add a udev rule for Android phones (Debian: sudo apt install android-sdk-platform-tools-common), then plug it in again."
		case e.State == "offline":
			de.Problem = "The phone is offline: unplug it and plug it in again, or reconnect over Wi-Fi."
		default:
			de.Problem = "The phone is " + e.State + "."
		}
		out = append(out, de)
	}
	d.forgetGone(entries)
	return out, nil
}

// info returns a phone's cached info, asking the phone the first time.
func (d *Devices) info(ctx context.Context, serial string) (device.Info, error) {
	d.mu.Lock()
	info, ok := d.infos[serial]
	d.mu.Unlock()
	if ok {
		return info, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 8*time.Second)
	defer cancel()
	dev, err := adb.Open(ctx, adb.Options{Server: d.adb, Serial: serial, StateDir: d.stateDir})
	if err != nil {
		return device.Info{}, err
	}
	defer dev.Close()
	info, err = dev.Info(ctx)
	if err != nil {
		return device.Info{}, err
	}
	d.mu.Lock()
	d.infos[serial] = info
	d.mu.Unlock()
	return info, nil
}

func (d *Devices) forgetGone(entries []adb.Entry) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for serial := range d.infos {
		found := false
		for _, e := range entries {
			if e.Serial == serial && e.Online() {
				found = true
			}
		}
		if !found {
			delete(d.infos, serial)
		}
	}
}

// Open opens a device for a run or the mirror. Each call gives a new handle
// the caller must Close.
func (d *Devices) Open(ctx context.Context, id string) (device.Device, error) {
	d.mu.Lock()
	sources := append([]DeviceSource(nil), d.sources...)
	d.mu.Unlock()
	for _, s := range sources {
		dev, ok, err := s.Open(ctx, id)
		if ok {
			return dev, err
		}
	}
	return adb.Open(ctx, adb.Options{Server: d.adb, Serial: id, StateDir: d.stateDir})
}

// Connect connects a phone over Wi-Fi ("ip:port") and returns its entry.
func (d *Devices) Connect(ctx context.Context, addr string) (DeviceEntry, error) {
	addr = strings.TrimSpace(addr)
	if addr == "" {
		return DeviceEntry{}, errors.New("type the phone's address, like 192.168.1.20:5555")
	}
	if err := d.adb.Ensure(ctx); err != nil {
		return DeviceEntry{}, fmt.Errorf("start the adb server: %w", err)
	}
	serial, err := d.adb.Connect(ctx, addr)
	if err != nil {
		return DeviceEntry{}, err
	}
	list, err := d.List(ctx)
	if i := indexOf(list, serial); i >= 0 {
		return list[i], nil
	}
	if err == nil {
		err = fmt.Errorf("%s connected but is not listed by the adb server", serial)
	}
	return DeviceEntry{}, err
}

// Watch calls fn with the new list whenever phones come or go, until ctx
// ends. It retries when the adb server restarts.
func (d *Devices) Watch(ctx context.Context, fn func([]DeviceEntry)) {
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

// publishing is a device whose screenshots also go to the mirror, so the
// person sees every frame the agent sees.
type publishing struct {
	device.Device
	hub *mirror.Hub
	id  string
}

func (p publishing) Screenshot(ctx context.Context) (image.Image, error) {
	img, err := p.Device.Screenshot(ctx)
	if err == nil {
		_ = p.hub.Publish(p.id, img, time.Now())
	}
	return img, err
}

// UITree forwards to the device when it has one.
func (p publishing) UITree(ctx context.Context) ([]byte, error) {
	if t, ok := p.Device.(device.UITree); ok {
		return t.UITree(ctx)
	}
	return nil, device.ErrUnsupported
}
