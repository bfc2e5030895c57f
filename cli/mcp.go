package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"tandem/backend"
	"tandem/mcpserver"
)

// runMCP is `tandem mcp`: Tandem as an MCP server over stdin and stdout,
// as MCP clients start it from their configuration. It is a door on the
// same backend as the window: the person's profile, policy and budgets;
// the runs it starts are recorded where History reads them. Nothing but
// the protocol goes to stdout; notices go to stderr.
func runMCP(ctx context.Context, env Env) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	port := new(int)
	adbPortFlag(fs, port)
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "Usage: tandem mcp [--adb-port N]")
		fmt.Fprintln(env.Stderr, "Serve Tandem's tools to an MCP client over stdin/stdout (the client starts this command).")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, env.Args); !ok {
		return code
	}
	if fs.NArg() > 0 || *port <= 0 || *port > 65535 {
		fs.Usage()
		return ExitUsage
	}
	cfg := backend.ConfigFromEnv()
	cfg.ADB = "127.0.0.1:" + strconv.Itoa(*port)
	cfg.Interrupted = env.stops.Interrupted
	cfg.Door = "mcp"
	b := backend.New(cfg)
	defer b.Shutdown()
	if msg := b.RestoreKeyboards(ctx); msg != "" {
		fmt.Fprintln(env.Stderr, "tandem mcp:", msg)
	}
	err := mcpserver.Serve(ctx, b, io.NopCloser(env.Stdin), nopWriteCloser{env.Stdout})
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		fmt.Fprintln(env.Stderr, "tandem mcp:", err)
		return ExitFail
	}
	return ExitOK
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
