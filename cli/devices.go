package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"tandem/devices/adb"
	"tandem/devices/desktop"
	"tandem/devices/desktop/host"
	"tandem/engine/action"
	"tandem/engine/device"
)

// deviceRow is one line of `tandem devices`; --json prints an array of them.
type deviceRow struct {
	ID      string      `json:"id"`
	Name    string      `json:"name"`
	Kind    device.Kind `json:"kind"`
	State   string      `json:"state"`             // "device" when usable; adb's word otherwise
	Problem string      `json:"problem,omitempty"` // why "This computer" cannot be driven here
	Screen  action.Size `json:"screen"`
}

// deviceProvider lists one family of devices. Each is asked on its own, so
// a missing adb does not hide the desktop's displays.
type deviceProvider struct {
	name string
	list func(ctx context.Context, warn func(string)) ([]deviceRow, error)
}

func devicesProviders(srv adb.Server) []deviceProvider {
	return []deviceProvider{
		{"adb", func(ctx context.Context, warn func(string)) ([]deviceRow, error) { return adbRows(ctx, srv, warn) }},
		{"desktop", desktopRows},
	}
}

// desktopRows lists this computer's displays ("This computer"). Without an X
// display (a server, CI without Xvfb) there are none, which is not an error;
// where the desktop cannot be driven for a reason the person can act on (a
// Wayland session without XWayland, macOS) it is one row saying so.
func desktopRows(ctx context.Context, warn func(string)) ([]deviceRow, error) {
	infos, err := host.Displays(ctx)
	var u *host.Unavailable
	if errors.As(err, &u) {
		return []deviceRow{{ID: strings.TrimSuffix(desktop.IDPrefix, ":"), Name: "This computer", Kind: device.Desktop, State: "unavailable", Problem: u.Reason}}, nil
	}
	if err != nil {
		return nil, err
	}
	rows := make([]deviceRow, 0, len(infos))
	for _, in := range infos {
		rows = append(rows, deviceRow{ID: in.ID, Name: "This computer · " + in.Name, Kind: device.Desktop, State: "ready", Screen: in.Screen})
	}
	return rows, nil
}

// devicesTimeout bounds the whole command, so it never hangs.
const devicesTimeout = 20 * time.Second

func runDevices(ctx context.Context, env Env) int {
	fs := flag.NewFlagSet("devices", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "Usage: tandem devices [--json] [--adb-port N]")
		fmt.Fprintln(env.Stderr, "Lists the phones adb sees (starting adb's server if needed) and this computer's displays.")
		fs.PrintDefaults()
	}
	asJSON := fs.Bool("json", false, "print a JSON array of {id, name, kind, state, screen{w,h}}")
	port := fs.Int("adb-port", defaultADBPort(), "port of the adb server (env ANDROID_ADB_SERVER_PORT)")
	if code, ok := parseFlags(fs, env.Args); !ok {
		return code
	}
	if fs.NArg() > 0 || *port <= 0 || *port > 65535 {
		fs.Usage()
		return ExitUsage
	}
	ctx, cancel := context.WithTimeout(ctx, devicesTimeout)
	defer cancel()

	rows := []deviceRow{}
	failed := 0
	providers := devicesProviders(adb.Server{Addr: "127.0.0.1:" + strconv.Itoa(*port)})
	for _, p := range providers {
		warn := func(msg string) { fmt.Fprintf(env.Stderr, "%s: %s\n", p.name, msg) }
		r, err := p.list(ctx, warn)
		if err != nil {
			failed++
			fmt.Fprintf(env.Stderr, "%s: %v\n", p.name, err)
			continue
		}
		rows = append(rows, r...)
	}
	if *asJSON {
		b, _ := json.MarshalIndent(rows, "", "  ")
		fmt.Fprintln(env.Stdout, string(b))
	} else {
		printDevices(env.Stdout, rows)
	}
	if failed == len(providers) {
		return ExitFail
	}
	return ExitOK
}

func defaultADBPort() int {
	if p, err := strconv.Atoi(os.Getenv("ANDROID_ADB_SERVER_PORT")); err == nil && p > 0 {
		return p
	}
	return 5037
}

func printDevices(w io.Writer, rows []deviceRow) {
	if len(rows) == 0 {
		fmt.Fprintln(w, "No devices. Connect a phone by USB with USB debugging on, or `adb connect IP:5555`,")
		fmt.Fprintln(w, "or start a virtual phone with `tandem vphone`.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tSTATE\tSCREEN\tNAME")
	for _, r := range rows {
		screen := "-"
		if r.Screen.W > 0 {
			screen = r.Screen.String()
		}
		name := r.Name
		if r.Problem != "" {
			name = r.Problem
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Kind, r.State, screen, name)
	}
	tw.Flush()
}

// adbRows lists adb's devices, starting its server as the adb client would;
// online phones are asked for their model and screen size.
func adbRows(ctx context.Context, srv adb.Server, warn func(string)) ([]deviceRow, error) {
	if err := srv.Ensure(ctx); err != nil {
		return nil, err
	}
	list, err := srv.Devices(ctx)
	if err != nil {
		return nil, err
	}
	rows := make([]deviceRow, 0, len(list))
	for _, e := range list {
		r := deviceRow{ID: e.Serial, Name: strings.ReplaceAll(e.Model, "_", " "), Kind: device.Phone, State: e.State}
		if e.Online() {
			if info, err := adbInfo(ctx, srv, e.Serial); err == nil {
				r.Name, r.Screen = info.Name, info.Screen
			} else {
				warn(e.Serial + ": " + err.Error())
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func adbInfo(ctx context.Context, srv adb.Server, serial string) (device.Info, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	d, err := adb.Open(ctx, adb.Options{Server: srv, Serial: serial})
	if err != nil {
		return device.Info{}, err
	}
	defer d.Close()
	return d.Info(ctx)
}
