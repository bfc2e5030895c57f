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
	if len(os.Args) > 1 && cli.IsCommand(os.Args[1]) {
		os.Exit(cli.Main(os.Args[1:]))
	}
	assets, err := fs.Sub(embedded, "frontend/dist")
	if err != nil {
		fmt.Fprintln(os.Stderr, "tandem:", err)
		os.Exit(1)
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
