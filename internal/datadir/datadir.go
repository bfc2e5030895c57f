// Package datadir names the folder where Tandem keeps its data (run
// records, notes for the phone), one place for the app and the command
// line alike, so the app's History lists the runs `tandem run` recorded.
package datadir

import (
	"os"
	"path/filepath"
	"runtime"
)

// Env is the variable that overrides the folder (tests, portable installs).
const Env = "TANDEM_DATA_DIR"

// Dir is the data folder: $TANDEM_DATA_DIR, else the OS default.
func Dir() string {
	if d := os.Getenv(Env); d != "" {
		return d
	}
	return OSDefault()
}

// Runs is where run records go inside the data folder.
func Runs(dir string) string { return filepath.Join(dir, "runs") }

// OSDefault is the data folder when nothing overrides it: the XDG data
// home on Linux, the user config folder elsewhere.
func OSDefault() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && runtime.GOOS == "linux" {
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
