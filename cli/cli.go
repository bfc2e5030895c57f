// Package cli is Tandem's command line: `tandem <subcommand> ...`.
//
// It never touches GTK or a display, so every subcommand works on a headless
// machine and in CI. Each subcommand lives in its own file and is listed once
// in commands(); dispatch is by exact name through that table.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// Env is what a subcommand gets: its arguments and standard streams. The
// person's settings and profiles come from the backend (TANDEM_CONFIG_DIR
// moves them).
type Env struct {
	Args   []string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer

	// stops is what Ctrl+C does first (nil: only the context ends).
	stops *stops
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
		{"mcp", "serve Tandem to an MCP client over stdio (the person stays in the loop)", runMCP},
		{"devices", "list phones (adb) and displays [--json]", runDevices},
		{"parse", "parse one raw model reply into canonical actions", runParse},
		{"compress", "compress a uiautomator dump to the compact UI state", runCompress},
		{"vphone", "start a virtual phone and attach it to adb", runVphone},
		{"chore", "list, show, save, delete and run saved chores (replayed without the model while the screens match)", runChore},
		{"eval", "measure a model on the world of chores on virtual phones [--list] [--oracle]", runEval},
		{"help", "show this help", nil}, // handled in Run: it needs the table
	}
}

// Exit codes shared by the subcommands.
const (
	ExitOK    = 0
	ExitFail  = 1 // the command ran and failed (a run that did not succeed)
	ExitUsage = 2 // bad arguments or bad input
)

// ForCLI reports whether main should hand args (without the program name)
// to the command line: any first word is a subcommand, known or not (an
// unknown one is refused there), and so is -h/--help; other flags are for
// the window (Wails' dev server takes -devserver and -assetdir).
func ForCLI(args []string) bool {
	if len(args) == 0 {
		return false
	}
	return !strings.HasPrefix(args[0], "-") || IsCommand(args[0])
}

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
// exit code. Ctrl+C (or SIGTERM) stops what the command registered as its
// stop, then cancels the command's context (signals.go).
func Main(args []string) int {
	env := Env{Args: args, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	return withCPUProfile(os.Getenv(ProfileEnv), env.Stderr, func() int { return runWithSignals(env) })
}

// parseFlags parses a subcommand's flags. -h is help, not a mistake: the
// flag package has printed the usage, and the command exits 0.
func parseFlags(fs *flag.FlagSet, args []string) (code int, ok bool) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return ExitOK, true
	case errors.Is(err, flag.ErrHelp):
		return ExitOK, false
	}
	return ExitUsage, false
}

// environment lists the variables Tandem reads, for the help.
var environment = [][2]string{
	{"TANDEM_BASE_URL", "run: the model server's OpenAI-compatible base URL (--base-url)"},
	{"TANDEM_MODEL", "run: the model's name (--model)"},
	{"TANDEM_API_KEY", "run: the API key (else the --profile's saved key)"},
	{"TANDEM_ADB_PORT", "the adb server's port (else ANDROID_ADB_SERVER_PORT, else 5037)"},
	{"ANDROID_ADB_SERVER_PORT", "adb's own name for the server's port"},
	{"TANDEM_CONFIG_DIR", "settings and saved model profiles (default: the OS config dir/tandem)"},
	{"TANDEM_DATA_DIR", "run records (default: ~/.local/share/tandem or the OS equivalent)"},
	{"TANDEM_SCRCPY_SERVER", "a scrcpy-server file (release 2.0 to 4.1) for the fastest phone mirror; wins over Settings"},
	{"TANDEM_PROBE_PORTS", "first start: where to look for local model servers (Name=port,...)"},
	{ProfileEnv, "write the command's CPU profile to this file (go tool pprof)"},
	{"DISPLAY, WAYLAND_DISPLAY", "where the window opens (the commands need neither)"},
}

func printEnvironment(w io.Writer, only ...string) {
	fmt.Fprintln(w, "Environment:")
	for _, e := range environment {
		if len(only) > 0 && !slices.Contains(only, e[0]) {
			continue
		}
		fmt.Fprintf(w, "  %-24s %s\n", e[0], e[1])
	}
}

// Run dispatches env.Args[0] to its subcommand.
func Run(ctx context.Context, env Env) int {
	if len(env.Args) == 0 {
		usage(env.Stderr)
		return ExitUsage
	}
	name := strings.TrimLeft(env.Args[0], "-")
	if name == "help" || name == "h" {
		return help(ctx, env)
	}
	for _, c := range commands() {
		if c.name == name && c.run != nil {
			sub := env
			sub.Args = env.Args[1:]
			return c.run(ctx, sub)
		}
	}
	fmt.Fprintf(env.Stderr, "tandem: unknown command %q\n\n", env.Args[0])
	usage(env.Stderr)
	return ExitUsage
}

// help prints the general help, or with a command's name ("tandem help
// run") that command's own, on stdout.
func help(ctx context.Context, env Env) int {
	if len(env.Args) < 2 {
		usage(env.Stdout)
		return ExitOK
	}
	for _, c := range commands() {
		if c.name == env.Args[1] && c.run != nil {
			sub := env
			sub.Args, sub.Stderr = []string{"-h"}, env.Stdout
			return c.run(ctx, sub)
		}
	}
	fmt.Fprintf(env.Stderr, "tandem help: no command %q\n\n", env.Args[1])
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
	printEnvironment(w)
	fmt.Fprintln(w, "")
	fmt.Fprintln(w, "Run 'tandem <command> -h' for a command's options.")
}
