package devices

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"tandem/engine/device"
)

// On a Wayland session without XWayland "This computer" is listed, not
// usable, with what to do; with no display at all (a server) it is absent.
func TestDesktopListSaysWhyThisComputerIsUnavailable(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a Linux session's rule")
	}
	t.Setenv("DISPLAY", "")
	t.Setenv("XDG_SESSION_TYPE", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	list, err := NewDesktop().List(context.Background())
	if err != nil || len(list) != 0 {
		t.Fatalf("headless: %+v, %v", list, err)
	}
	t.Setenv("WAYLAND_DISPLAY", "wayland-0")
	list, err = NewDesktop().List(context.Background())
	if err != nil || len(list) != 1 {
		t.Fatalf("Wayland: %+v, %v", list, err)
	}
	e := list[0]
	if e.Kind != device.Desktop || e.Usable() || !strings.HasPrefix(e.Problem, "This computer needs an X11 session or XWayland: ") {
		t.Fatalf("entry %+v", e)
	}
}
