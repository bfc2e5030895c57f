// Package datadir names the one folder the app and the command line share
// for what must outlive a process: run records, and the note the ADB driver
// leaves while ADB Keyboard stands in for the person's keyboard. Both read
// it the same way, so either can repair what the other left behind by a
// crash (they used to keep the note in different folders, and neither
// repaired the other's crash).
package datadir

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
)

// Env is the variable that moves the data dir (tests, portable installs).
const Env = "TANDEM_DATA_DIR"

// Dir returns the data dir: $TANDEM_DATA_DIR, else on Linux
// $XDG_DATA_HOME/tandem or ~/.local/share/tandem, else the OS config dir's
// tandem/data.
func Dir(getenv func(string) string) string {
	if d := getenv(Env); d != "" {
		return d
	}
	if d := getenv("XDG_DATA_HOME"); d != "" && runtime.GOOS == "linux" {
		return filepath.Join(d, "tandem")
	}
	if home, err := os.UserHomeDir(); err == nil && runtime.GOOS == "linux" {
		return filepath.Join(home, ".local", "share", "tandem")
	}
	if d, err := os.UserConfigDir(); err == nil {
		return filepath.Join(d, "tandem", "data")
	}
	return filepath.Join(os.TempDir(), "tandem-data")
}

// KeyboardNotes is the folder of keyboard-restore notes under dataDir.
func KeyboardNotes(dataDir string) string { return filepath.Join(dataDir, "adb-state") }

// Runs is where run records go inside the data dir: the app's History
// lists what `tandem run` recorded there too.
func Runs(dataDir string) string { return filepath.Join(dataDir, "runs") }

// RuntimeEnv is the variable that moves the runtime dir (tests).
const RuntimeEnv = "TANDEM_RUNTIME_DIR"

// Runtime returns the folder every Tandem on this computer shares for what
// lives only while a process does (the device leases): $TANDEM_RUNTIME_DIR,
// else $XDG_RUNTIME_DIR/tandem, else the temporary folder's tandem-<user>.
func Runtime(getenv func(string) string) string {
	if d := getenv(RuntimeEnv); d != "" {
		return d
	}
	if d := getenv("XDG_RUNTIME_DIR"); d != "" && runtime.GOOS != "windows" {
		return filepath.Join(d, "tandem")
	}
	who := "user"
	if uid := os.Getuid(); uid >= 0 {
		who = strconv.Itoa(uid)
	} else if u := getenv("USERNAME"); u != "" {
		who = u
	}
	return filepath.Join(os.TempDir(), "tandem-"+who)
}
