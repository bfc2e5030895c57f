// Command tandem is the desktop app when run with no arguments, and the
// command line when given a subcommand (which never touches GTK or a display).
package main

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"os"

	"tandem/app"
	"tandem/cli"
	"tandem/internal/display"
	"tandem/popout"
)

//go:embed all:frontend/dist
var embedded embed.FS

func main() {
	if cli.ForCLI(os.Args[1:]) {
		os.Exit(cli.Main(os.Args[1:]))
	}
	if !generatingBindings {
		if err := display.Problem(os.Getenv); err != nil {
			fmt.Fprintln(os.Stderr, "tandem:", err)
			os.Exit(1)
		}
	}
	assets, err := fs.Sub(embedded, "frontend/dist")
	if err != nil {
		fmt.Fprintln(os.Stderr, "tandem:", err)
		os.Exit(1)
	}
	if v := os.Getenv(popout.Env); v != "" {
		// The mirror popped out of the app's window (tandem/popout).
		os.Unsetenv(popout.Env)
		if err := runPopout(assets, v); err != nil {
			fmt.Fprintln(os.Stderr, "tandem:", err)
			os.Exit(1)
		}
		return
	}
	dev, err := devSetup()
	if err != nil {
		fmt.Fprintln(os.Stderr, "tandem:", err)
		os.Exit(1)
	}
	defer dev.stop()
	if err := app.Run(assets, app.ConfigFromEnv(), dev.startup); err != nil {
		fmt.Fprintln(os.Stderr, "tandem:", err)
		os.Exit(1)
	}
}

// devHooks is what the development build adds to the window (main_dev.go):
// startup hears Wails' context when the window starts, stop ends its
// server. Outside it, startup is nil and stop does nothing.
type devHooks struct {
	startup func(context.Context)
	stop    func()
}

// runPopout runs a pop-out window of the mirror for the configuration v.
func runPopout(assets fs.FS, v string) error {
	cfg, err := popout.ReadConfig(v)
	if err != nil {
		return err
	}
	return popout.Run(assets, cfg, app.LinuxOptions())
}
