// Package cli is Tandem's command line: `tandem <subcommand> ...`.
//
// It never touches GTK or a display, so every subcommand works on a headless
// machine and in CI. Each subcommand lives in its own file and is listed once
// in commands(); dispatch is by exact name through that table.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// Env is what a subcommand gets: its arguments and standard streams.
type Env struct {
	Args   []string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// command is one subcommand. run returns the process exit code.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env Env) int
}

func commands() []command {
	return []command{
		{"version", "print the version and commit", runVersion},
		{"run", "run one task on a phone headless, with live progress", runRun},
		{"devices", "list phones (adb) and displays [--json]", runDevices},
		{"parse", "parse one raw model reply into canonical actions", runParse},
		{"compress", "compress a uiautomator dump to the compact UI state", runCompress},
		{"vphone", "start a virtual phone and attach it to adb", runVphone},
		{"help", "show this help", nil}, // handled in Run: it needs the table
	}
}

// Exit codes shared by the subcommands.
const (
	ExitOK    = 0
	ExitFail  = 1 // the command ran and failed (a run that did not succeed)
	ExitUsage = 2 // bad arguments or bad input
)

// IsCommand reports whether name is a subcommand (main uses it to decide
// between the CLI and the desktop app).
func IsCommand(name string) bool {
	name = strings.TrimLeft(name, "-")
	if name == "h" {
		return true
	}
	for _, c := range commands() {
		if c.name == name {
			return true
		}
	}
	return false
}

// Main runs the CLI with the process's streams and signals and returns the
// exit code. Ctrl+C cancels the command's context.
func Main(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, Env{Args: args, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr})
}

// Run dispatches env.Args[0] to its subcommand.
func Run(ctx context.Context, env Env) int {
	if len(env.Args) == 0 {
		usage(env.Stderr)
		return ExitUsage
	}
	name := strings.TrimLeft(env.Args[0], "-")
	if name == "help" || name == "h" {
		usage(env.Stdout)
		return ExitOK
	}
	for _, c := range commands() {
		if c.name == name && c.run != nil {
			return c.run(ctx, Env{Args: env.Args[1:], Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr})
		}
	}
	fmt.Fprintf(env.Stderr, "tandem: unknown command %q\n\n", env.Args[0])
	usage(env.Stderr)
	return ExitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Tandem: an AI agent that operates your phone or desktop while you watch.")
	fmt.Fprintln(w, "")
	fmt.Fprintln(w, "Usage:")
	fmt.Fprintln(w, "  tandem                 start the desktop app")
	fmt.Fprintln(w, "  tandem <command> ...   run a command without the window")
	fmt.Fprintln(w, "")
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "")
	fmt.Fprintln(w, "Run 'tandem <command> -h' for a command's options.")
}
