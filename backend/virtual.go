package backend

import (
	"context"
	"net"
	"strconv"
	"sync"
	"time"

	"tandem/engine/device"
	"tandem/vphone"
)

// virtualPhones are the virtual phones this window started ("Try without a
// phone"). They are attached to the same adb server as real phones, so every
// run goes through the real ADB path; this source only marks them virtual
// and detaches them when the window closes.
type virtualPhones struct {
	adbPort func() int

	mu      sync.Mutex
	phones  map[string]*vphone.Phone // serial -> phone
	names   map[string]string        // serial -> its name in the device list
	started int
}

func newVirtualPhones(adbPort func() int) *virtualPhones {
	return &virtualPhones{adbPort: adbPort, phones: map[string]*vphone.Phone{}, names: map[string]string{}}
}

// Start starts a phone, attaches it and returns its serial.
func (v *virtualPhones) Start(ctx context.Context) (string, error) {
	// The second and later phones are numbered, so two side by side differ.
	v.mu.Lock()
	v.started++
	name := "Tandem Virtual Phone"
	if v.started > 1 {
		name += " " + strconv.Itoa(v.started)
	}
	v.mu.Unlock()
	p, err := vphone.New(vphone.WithProduct("tandem_virtual", name, "vphone"))
	if err != nil {
		return "", err
	}
	if err := p.Listen("127.0.0.1:0"); err != nil {
		p.Close()
		return "", err
	}
	srv := vphone.ADBServer{Port: v.adbPort()}
	if err := srv.Ensure(ctx); err != nil {
		p.Close()
		return "", err
	}
	serial := p.Addr()
	if err := srv.Attach(ctx, serial); err != nil {
		p.Close()
		return "", err
	}
	v.mu.Lock()
	v.phones[serial], v.names[serial] = p, name
	v.mu.Unlock()
	return serial, nil
}

// List marks the virtual phones; the adb listing supplies the rest.
func (v *virtualPhones) List(context.Context) ([]DeviceEntry, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make([]DeviceEntry, 0, len(v.phones))
	for serial := range v.phones {
		out = append(out, DeviceEntry{ID: serial, Name: v.names[serial], Kind: device.Phone, State: "offline", Virtual: true,
			Problem: "The virtual phone is starting…"})
	}
	return out, nil
}

// Open leaves opening to the ADB driver.
func (v *virtualPhones) Open(context.Context, string) (device.Device, bool, error) {
	return nil, false, nil
}

// Close detaches and stops every virtual phone.
func (v *virtualPhones) Close() {
	v.mu.Lock()
	phones := v.phones
	v.phones, v.names = map[string]*vphone.Phone{}, map[string]string{}
	v.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv := vphone.ADBServer{Port: v.adbPort()}
	for serial, p := range phones {
		_ = srv.Detach(ctx, serial)
		p.Close()
	}
}

// adbPort is the port of the registry's adb server.
func adbPort(d *Devices) int {
	addr := d.ADB().Addr
	if addr == "" {
		return 5037
	}
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return 5037
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		return 5037
	}
	return n
}

// VirtualPhone is the virtual phone with this serial that this backend
// started, to look at what it was made to do (tests, demos).
func (b *Backend) VirtualPhone(serial string) (*vphone.Phone, bool) {
	b.virtual.mu.Lock()
	defer b.virtual.mu.Unlock()
	p, ok := b.virtual.phones[serial]
	return p, ok
}

// ADBAddr is the address of the adb server the backend drives phones
// through (the evaluations read and set their phones' state by it).
func (b *Backend) ADBAddr() string { return b.devices.ADB().Addr }
