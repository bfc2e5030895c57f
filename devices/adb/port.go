package adb

import (
	"strconv"
	"strings"
)

// DefaultPort is where adb's server listens unless told otherwise.
const DefaultPort = 5037

// ServerPort is the adb server's port every Tandem command and the app use
// unless a flag names one: TANDEM_ADB_PORT, else adb's own
// ANDROID_ADB_SERVER_PORT, else 5037. A variable that is not a port is
// passed over. getenv is os.Getenv (a test passes its own).
func ServerPort(getenv func(string) string) int {
	for _, name := range []string{"TANDEM_ADB_PORT", "ANDROID_ADB_SERVER_PORT"} {
		if p, err := strconv.Atoi(strings.TrimSpace(getenv(name))); err == nil && p > 0 && p <= 65535 {
			return p
		}
	}
	return DefaultPort
}
