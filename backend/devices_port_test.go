package backend

import "testing"

// The app finds the adb server as every command does: TANDEM_ADB_PORT,
// else ANDROID_ADB_SERVER_PORT, else 5037.
func TestNewDevicesADBPort(t *testing.T) {
	for _, tc := range []struct{ tandem, android, want string }{
		{"", "", "127.0.0.1:5037"},
		{"6001", "6002", "127.0.0.1:6001"},
		{"", "6002", "127.0.0.1:6002"},
	} {
		t.Setenv("TANDEM_ADB_PORT", tc.tandem)
		t.Setenv("ANDROID_ADB_SERVER_PORT", tc.android)
		if got := NewDevices("", t.TempDir()).ADB().Addr; got != tc.want {
			t.Errorf("TANDEM_ADB_PORT=%q ANDROID_ADB_SERVER_PORT=%q: the app uses %q, want %q", tc.tandem, tc.android, got, tc.want)
		}
	}
}
