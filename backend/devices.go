package backend

import (
	"os"
	"strconv"

	"tandem/devices"
	"tandem/devices/adb"
)

// DeviceEntry is one device as the device list shows it (devices.Entry).
type DeviceEntry = devices.Entry

// DeviceSource is a source of devices besides ADB phones (devices.Source).
type DeviceSource = devices.Source

// Devices is the registry the app lists and opens devices with.
type Devices = devices.Registry

// ListError says which sources of devices failed (devices.ListError).
type ListError = devices.ListError

// ErrNoADB means adb is not installed; phones cannot be used.
var ErrNoADB = devices.ErrNoADB

// NewDevices makes the app's registry on the adb server at addr
// ("" = 127.0.0.1:5037, or TANDEM_ADB_PORT). stateDir keeps the ADB
// driver's crash-safe state.
func NewDevices(addr, stateDir string, sources ...DeviceSource) *Devices {
	if addr == "" {
		if p, err := strconv.Atoi(os.Getenv("TANDEM_ADB_PORT")); err == nil && p > 0 {
			addr = "127.0.0.1:" + strconv.Itoa(p)
		}
	}
	return devices.New(adb.Server{Addr: addr}, stateDir, sources...)
}
