package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"tandem/engine/observe"
)

// maxDumpBytes bounds what compress reads: real dumps are under 1 MB.
const maxDumpBytes = 32 << 20

func runCompress(_ context.Context, env Env) int {
	fs := flag.NewFlagSet("compress", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: tandem compress [--max-tokens N] FILE|-")
		fmt.Fprintln(env.Stderr, "Compress one uiautomator dump to the compact UI state (JSON on stdout).")
		fs.PrintDefaults()
	}
	maxTokens := fs.Int("max-tokens", 0, "bound the compact state's tokens (0: no bound)")
	if err := fs.Parse(env.Args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	fail := func(format string, args ...any) int {
		fmt.Fprintf(env.Stderr, "compress error: "+format+"\n", args...)
		return ExitUsage
	}
	if fs.NArg() != 1 {
		return fail("want one FILE or - (got %d arguments)", fs.NArg())
	}
	if *maxTokens < 0 {
		return fail("--max-tokens must not be negative")
	}
	var in io.Reader = env.Stdin
	if name := fs.Arg(0); name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return fail("%v", err)
		}
		defer f.Close()
		in = f
	}
	dump, err := io.ReadAll(io.LimitReader(in, maxDumpBytes+1))
	if err != nil {
		return fail("reading input: %v", err)
	}
	if len(dump) > maxDumpBytes {
		return fail("input is over %d MB", maxDumpBytes>>20)
	}
	tokens, err := observe.NewTokens()
	if err != nil {
		return fail("%v", err)
	}
	c, err := observe.Compress(dump, tokens, observe.CompressOptions{MaxTokens: *maxTokens})
	if err != nil {
		return fail("%v", err)
	}
	b, err := json.Marshal(c)
	if err != nil {
		return fail("%v", err)
	}
	fmt.Fprintln(env.Stdout, string(b))
	return ExitOK
}
