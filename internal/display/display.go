// Package display says whether a window can open on this desktop, asked
// before GTK is touched: GTK aborts with a panic and a goroutine dump when
// there is none. It is apart from the window's door (app/) because it runs
// before any window exists and knows nothing of Wails.
package display

import (
	"fmt"
	"net"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Problem says, in one line, why the window cannot open on this
// Linux desktop (no DISPLAY or WAYLAND_DISPLAY, or nothing answering
// there), or nil when it can. GTK would otherwise abort with a panic and
// a goroutine dump. getenv is os.Getenv (a parameter for tests). Other
// systems always have a desktop: nil.
func Problem(getenv func(string) string) error {
	if runtime.GOOS != "linux" {
		return nil
	}
	wl, x := getenv("WAYLAND_DISPLAY"), getenv("DISPLAY")
	if wl != "" {
		path := wl
		if !filepath.IsAbs(path) {
			path = filepath.Join(getenv("XDG_RUNTIME_DIR"), wl)
		}
		if reachable("unix", path) {
			return nil
		}
		if x == "" {
			return fmt.Errorf("no display to open the window on: WAYLAND_DISPLAY=%s does not answer", wl)
		}
	}
	if x == "" {
		return fmt.Errorf("no display to open the window on (DISPLAY is not set); the command line works without one: tandem help")
	}
	network, addr, ok := xAddress(x)
	if !ok {
		return fmt.Errorf("no display to open the window on: DISPLAY=%s is not a display name like :0", x)
	}
	// A local X server listens on a socket file and, on Linux, on the
	// abstract socket of the same name (some only on the latter).
	if !reachable(network, addr) && (network != "unix" || !reachable(network, "@"+addr)) {
		return fmt.Errorf("no display to open the window on: nothing answers at DISPLAY=%s", x)
	}
	return nil
}

// xAddress turns an X display name ([host]:n[.screen]) into the socket the
// server listens on.
func xAddress(display string) (network, addr string, ok bool) {
	i := strings.LastIndex(display, ":")
	if i < 0 {
		return "", "", false
	}
	host, num := display[:i], display[i+1:]
	if j := strings.Index(num, "."); j >= 0 {
		num = num[:j]
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return "", "", false
	}
	if host == "" || host == "unix" {
		return "unix", "/tmp/.X11-unix/X" + num, true
	}
	return "tcp", net.JoinHostPort(host, strconv.Itoa(6000+n)), true
}

func reachable(network, addr string) bool {
	c, err := net.DialTimeout(network, addr, 2*time.Second)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}
