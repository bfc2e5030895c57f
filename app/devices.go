package app

import (
	"context"
	"image"
	"os"
	"strconv"
	"time"

	"tandem/devices"
	"tandem/devices/adb"
	"tandem/engine/device"
	"tandem/mirror"
)

// DeviceEntry is one device as the device list shows it (devices.Entry).
type DeviceEntry = devices.Entry

// DeviceSource is a source of devices besides ADB phones (devices.Source).
type DeviceSource = devices.Source

// Devices is the registry the app lists and opens devices with.
type Devices = devices.Registry

// ErrNoADB means adb is not installed; phones cannot be used.
var ErrNoADB = devices.ErrNoADB

// NewDevices makes the app's registry on the adb server at addr
// ("" = the port the environment names, as every command finds it:
// adb.ServerPort). stateDir keeps the ADB
// driver's crash-safe state.
func NewDevices(addr, stateDir string, sources ...DeviceSource) *Devices {
	if addr == "" {
		addr = "127.0.0.1:" + strconv.Itoa(adb.ServerPort(os.Getenv))
	}
	return devices.New(adb.Server{Addr: addr}, stateDir, sources...)
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
