package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"tandem/backend"
	"tandem/engine/action"
	"tandem/engine/device"
)

// deviceRow is one line of `tandem devices`; --json prints an array of them.
type deviceRow struct {
	ID      string      `json:"id"`
	Name    string      `json:"name"`
	Kind    device.Kind `json:"kind"`
	State   string      `json:"state"`             // "device" when usable; adb's word otherwise
	Problem string      `json:"problem,omitempty"` // what to do when the device cannot be used
	Screen  action.Size `json:"screen"`
	Host    string      `json:"host,omitempty"` // the other computer's adb server it is on (--adb, Settings)
	// HeldBy is who in another Tandem drives it now ("tandem run (process 12)").
	HeldBy string `json:"held_by,omitempty"`
}

// devicesTimeout bounds the whole command, so it never hangs.
const devicesTimeout = 20 * time.Second

func runDevices(ctx context.Context, env Env) int {
	fs := flag.NewFlagSet("devices", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "Usage: tandem devices [--json] [--adb-port N] [--adb HOST:PORT ...]")
		fmt.Fprintln(env.Stderr, "Lists the phones adb sees (starting adb's server if needed) and this computer's displays,")
		fmt.Fprintln(env.Stderr, "and the phones of other computers' adb servers (Settings, --adb) as SERIAL@HOST:PORT.")
		fs.PrintDefaults()
	}
	asJSON := fs.Bool("json", false, "print a JSON array of {id, name, kind, state, screen{w,h}, host}")
	port := new(int)
	adbPortFlag(fs, port)
	var others []string
	adbFlag(fs, &others)
	if code, ok := parseFlags(fs, env.Args); !ok {
		return code
	}
	if fs.NArg() > 0 || *port <= 0 || *port > 65535 {
		fs.Usage()
		return ExitUsage
	}
	ctx, cancel := context.WithTimeout(ctx, devicesTimeout)
	defer cancel()

	cfg := backend.ConfigFromEnv()
	cfg.ADB = "127.0.0.1:" + strconv.Itoa(*port)
	cfg.ADBServers = others
	list, err := backend.New(cfg).ListDevices(ctx)
	rows := make([]deviceRow, 0, len(list))
	for _, e := range list {
		rows = append(rows, rowOf(e))
	}
	var le *backend.ListError
	named := false // a server named with --adb could not be listed
	if errors.As(err, &le) {
		for _, e := range le.Errs {
			fmt.Fprintln(env.Stderr, "tandem devices:", e)
			var re *backend.RemoteError
			named = named || errors.As(e, &re) && slices.Contains(others, re.Host)
		}
	}
	if *asJSON {
		b, _ := json.MarshalIndent(rows, "", "  ")
		fmt.Fprintln(env.Stdout, string(b))
	} else {
		printDevices(env.Stdout, rows)
	}
	if le != nil && (le.AllFailed() || named) {
		return ExitFail
	}
	return ExitOK
}

// adbPortFlag defines the --adb-port flag every command shares: by default
// the port the environment names (adb.ServerPort), as the app finds it.
func adbPortFlag(fs *flag.FlagSet, port *int) {
	fs.IntVar(port, "adb-port", backend.ADBPort(os.Getenv), "port of the adb server (default: env TANDEM_ADB_PORT, else ANDROID_ADB_SERVER_PORT, else 5037)")
}

// adbFlag defines --adb, repeatable: another computer's adb server, whose
// phones are listed and run beside the local server's.
func adbFlag(fs *flag.FlagSet, servers *[]string) {
	fs.Func("adb", "another computer's adb server, HOST:PORT (HOST alone: port 5037); repeat it for several.\n"+
		"Its phones are listed as SERIAL@HOST:PORT, beside this computer's and those in the app's Settings;\n"+
		"on that computer: adb -a -P PORT nodaemon server", func(v string) error {
		addr, err := backend.NormalizeADBServer(v)
		if err != nil {
			return err
		}
		*servers = append(*servers, addr)
		return nil
	})
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
		if r.Problem != "" && !strings.HasPrefix(r.ID, "@") { // a server's own problem is said once, on stderr
			name = r.Problem
		}
		if r.HeldBy != "" {
			name += " — in use by " + r.HeldBy
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Kind, r.State, screen, name)
	}
	tw.Flush()
}

// rowOf is a registry entry as `tandem devices` prints it: a display is
// named "This computer · <display>".
func rowOf(e backend.DeviceEntry) deviceRow {
	r := deviceRow{ID: e.ID, Name: e.Name, Kind: e.Kind, State: e.State, Screen: e.Screen, Problem: e.Problem, Host: e.Host}
	if e.Kind == device.Desktop && e.State != "unavailable" {
		r.Name = "This computer · " + e.Name
	}
	if e.HeldBy != nil {
		r.HeldBy = e.HeldBy.Doing()
	}
	return r
}
