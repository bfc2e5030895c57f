package cli

import (
	"context"
	"encoding/json"
	"net"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"tandem/devices/adb"
	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/internal/xvfb"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

func TestDevicesListsThisComputer(t *testing.T) {
	d := xvfb.Start(t, 1280, 720)
	t.Setenv("DISPLAY", d.Name)
	port := strconv.Itoa(adbServerPort(t))
	code, out, errOut := run(t, "devices", "--json", "--adb-port", port)
	if code != ExitOK {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	var rows []deviceRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].ID != "desktop:0" || rows[0].Kind != "desktop" || rows[0].Screen.W != 1280 || rows[0].Screen.H != 720 {
		t.Fatalf("rows %+v", rows)
	}
	if code, out, _ = run(t, "devices", "--adb-port", port); code != ExitOK || !strings.Contains(out, "This computer") {
		t.Fatalf("code %d out %q", code, out)
	}
}

// adbServerPort starts a private adb server (no emulator scan) on a free
// port for one test and kills it afterwards.
func adbServerPort(t *testing.T) int {
	t.Helper()
	if _, err := exec.LookPath("adb"); err != nil {
		t.Skip("adb is not installed (apt-get install adb)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	srv := adb.Server{Addr: "127.0.0.1:" + strconv.Itoa(port), Env: []string{"ADB_LOCAL_TRANSPORT_MAX_PORT=0"}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Kill(context.Background()) })
	return port
}

func TestDevicesEmpty(t *testing.T) {
	t.Setenv("DISPLAY", "") // no X display: no "This computer" rows
	port := strconv.Itoa(adbServerPort(t))
	code, out, errOut := run(t, "devices", "--json", "--adb-port", port)
	if code != ExitOK {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	var rows []deviceRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil || rows == nil || len(rows) != 0 {
		t.Fatalf("want an empty JSON array, got %q (%v)", out, err)
	}
	code, out, _ = run(t, "devices", "--adb-port", port)
	if code != ExitOK || !strings.Contains(out, "No devices") || !strings.Contains(out, "tandem vphone") {
		t.Fatalf("code %d out %q", code, out)
	}
}

func TestDevicesUsage(t *testing.T) {
	for _, args := range [][]string{{"devices", "extra"}, {"devices", "--adb-port", "0"}, {"devices", "--nope"}} {
		if code, _, _ := run(t, args...); code != ExitUsage {
			t.Errorf("%q: code %d, want %d", args, code, ExitUsage)
		}
	}
}

func TestDevicesShowsVirtualPhone(t *testing.T) {
	t.Setenv("DISPLAY", "") // only the phone, not This computer
	_, env := vphonetest.Start(t, vphone.WithSize(720, 1600), vphone.WithProduct("tandem", "Tandem Virtual Phone", "vphone"))
	port := strconv.Itoa(env.Port)
	code, out, errOut := run(t, "devices", "--json", "--adb-port", port)
	if code != ExitOK {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	var rows []deviceRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	want := deviceRow{ID: env.Serial, Kind: "phone", State: "device", Screen: action.Size{W: 720, H: 1600}}
	if len(rows) != 1 || !strings.Contains(rows[0].Name, "Tandem Virtual Phone") {
		t.Fatalf("rows %+v", rows)
	}
	rows[0].Name = ""
	if rows[0] != want {
		t.Errorf("got %+v, want %+v", rows[0], want)
	}
	code, out, _ = run(t, "devices", "--adb-port", port)
	if code != ExitOK || !strings.Contains(out, env.Serial) || !strings.Contains(out, "720x1600") {
		t.Errorf("code %d out %q", code, out)
	}
}

// A Wayland session without XWayland lists "This computer" with the reason
// it cannot be driven, rather than leaving it out without a word.
func TestDevicesSaysWaylandNeedsX11(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a Linux session's rule")
	}
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "wayland-0")
	port := strconv.Itoa(adbServerPort(t))
	code, out, errOut := run(t, "devices", "--adb-port", port)
	if code != ExitOK || !strings.Contains(out, "This computer needs an X11 session or XWayland: ") {
		t.Fatalf("code %d, out %q, stderr %q", code, out, errOut)
	}
	_, out, _ = run(t, "devices", "--json", "--adb-port", port)
	var rows []deviceRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 || rows[0].Kind != device.Desktop ||
		rows[0].State != "unavailable" || !strings.HasPrefix(rows[0].Problem, "This computer needs an X11 session") {
		t.Fatalf("rows %+v (%v)", rows, err)
	}
}

// `tandem run --device desktop:0` opens this computer, not a phone named
// "desktop:0": on Wayland without XWayland it says what is missing.
func TestRunDesktopSaysWhatIsMissing(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a Linux session's rule")
	}
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "wayland-0")
	code, _, errOut := run(t, "run", "--device", "desktop:0", "--goal", "g", "--base-url", "http://127.0.0.1:1/v1", "--data-dir", t.TempDir())
	if code != ExitFail || !strings.Contains(errOut, "This computer needs an X11 session or XWayland: ") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
}
