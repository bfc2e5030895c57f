package adb

import "testing"

// One rule for every command and the app: TANDEM_ADB_PORT, else
// ANDROID_ADB_SERVER_PORT, else 5037; what is not a port is passed over.
func TestServerPort(t *testing.T) {
	for _, tc := range []struct {
		tandem, android string
		want            int
	}{
		{"", "", 5037},
		{"6001", "", 6001},
		{"", "6002", 6002},
		{"6001", "6002", 6001},
		{" 6001 ", "", 6001},
		{"nope", "6002", 6002},
		{"0", "6002", 6002},
		{"70000", "", 5037},
		{"-1", "-2", 5037},
	} {
		env := map[string]string{"TANDEM_ADB_PORT": tc.tandem, "ANDROID_ADB_SERVER_PORT": tc.android}
		if got := ServerPort(func(k string) string { return env[k] }); got != tc.want {
			t.Errorf("TANDEM_ADB_PORT=%q ANDROID_ADB_SERVER_PORT=%q: port %d, want %d", tc.tandem, tc.android, got, tc.want)
		}
	}
}
