// Command tandem is the desktop app when run with no arguments, and the
// command line when given a subcommand (which never touches GTK or a display).
package main

import (
	"embed"
	"fmt"
	"io/fs"
	"os"

	"tandem/app"
	"tandem/cli"
)

//go:embed all:frontend/dist
var embedded embed.FS

func main() {
	if cli.ForCLI(os.Args[1:]) {
		os.Exit(cli.Main(os.Args[1:]))
	}
	if !generatingBindings {
		if err := app.DisplayProblem(os.Getenv); err != nil {
			fmt.Fprintln(os.Stderr, "tandem:", err)
			os.Exit(1)
		}
	}
	assets, err := fs.Sub(embedded, "frontend/dist")
	if err != nil {
		fmt.Fprintln(os.Stderr, "tandem:", err)
		os.Exit(1)
	}
	if v := os.Getenv(app.PopoutEnv); v != "" {
		// The mirror popped out of the app's window (app/popout.go).
		os.Unsetenv(app.PopoutEnv)
		if err := popout(assets, v); err != nil {
			fmt.Fprintln(os.Stderr, "tandem:", err)
			os.Exit(1)
		}
		return
	}
	stopDev, err := devSetup()
	if err != nil {
		fmt.Fprintln(os.Stderr, "tandem:", err)
		os.Exit(1)
	}
	defer stopDev()
	if err := app.Run(assets, app.ConfigFromEnv()); err != nil {
		fmt.Fprintln(os.Stderr, "tandem:", err)
		os.Exit(1)
	}
}

// popout runs a pop-out window of the mirror for the configuration v.
func popout(assets fs.FS, v string) error {
	cfg, err := app.ReadPopoutConfig(v)
	if err != nil {
		return err
	}
	return app.RunPopout(assets, cfg)
}
