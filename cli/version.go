package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"

	"tandem/internal/version"
)

func runVersion(_ context.Context, env Env) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	if code, ok := parseFlags(fs, env.Args); !ok {
		return code
	}
	v := version.Get()
	if *asJSON {
		b, _ := json.Marshal(v)
		fmt.Fprintln(env.Stdout, string(b))
		return ExitOK
	}
	fmt.Fprintln(env.Stdout, v.String())
	return ExitOK
}
