package backend

import (
	"os"
	"slices"
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

// ADBPort is the adb server's port every door uses: TANDEM_ADB_PORT, else
// ANDROID_ADB_SERVER_PORT, else 5037 (adb.ServerPort).
func ADBPort(getenv func(string) string) int { return adb.ServerPort(getenv) }

// ListError says which sources of devices failed (devices.ListError).
type ListError = devices.ListError

// RemoteError is what went wrong listing another computer's adb server's
// phones (devices.RemoteError).
type RemoteError = devices.RemoteError

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

// NormalizeADBServer returns an adb server's address as host:port (a host
// alone gets port 5037), or why it is not one.
func NormalizeADBServer(addr string) (string, error) { return devices.NormalizeServer(addr) }

// adbServers are the other computers' adb servers: the settings' and the
// door's, read anew each time the list is made.
func (b *Backend) adbServers() []string {
	s, _, _ := b.settings.Load()
	return append(slices.Clone(s.ADBServers), b.cfg.ADBServers...)
}
