package host

import (
	"errors"
	"testing"

	"tandem/engine/device"
)

func TestStatus(t *testing.T) {
	tests := []struct {
		name string
		goos string
		env  map[string]string
		ok   bool
		code string
	}{
		{"X11", "linux", map[string]string{"DISPLAY": ":0"}, true, ""},
		{"XWayland", "linux", map[string]string{"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}, true, ""},
		{"Wayland without X", "linux", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, false, "needs_x11"},
		{"Wayland session type only", "freebsd", map[string]string{"XDG_SESSION_TYPE": "wayland"}, false, "needs_x11"},
		{"headless", "linux", nil, false, ""},
		{"Windows", "windows", nil, true, ""},
		{"macOS", "darwin", map[string]string{"DISPLAY": ":0"}, false, "unsupported_os"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, err := Status(tt.goos, func(k string) string { return tt.env[k] })
			var u *Unavailable
			code := ""
			if errors.As(err, &u) {
				code = u.Code
				if !errors.Is(err, device.ErrUnsupported) || u.Error() == "" {
					t.Errorf("%v does not wrap device.ErrUnsupported", err)
				}
			} else if err != nil {
				t.Fatalf("err = %v", err)
			}
			if ok != tt.ok || code != tt.code {
				t.Errorf("Status = %v, %q; want %v, %q", ok, code, tt.ok, tt.code)
			}
		})
	}
}
