package cli

import (
	"context"
	"flag"
	"fmt"
	"time"

	"tandem/vphone"
)

// runVphone starts a virtual phone, attaches it to the user's adb server
// (starting the server if needed), prints its serial on stdout and serves
// until Ctrl+C, then detaches it again.
func runVphone(ctx context.Context, env Env) int {
	fs := flag.NewFlagSet("vphone", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	listen := fs.String("listen", "127.0.0.1:0", "address the phone listens on (avoid ports 5555-5585, which adb probes)")
	adbPort := new(int)
	adbPortFlag(fs, adbPort)
	if code, ok := parseFlags(fs, env.Args); !ok {
		return code
	}
	if fs.NArg() > 0 || *adbPort <= 0 || *adbPort > 65535 {
		fmt.Fprintln(env.Stderr, "usage: tandem vphone [--listen ADDR] [--adb-port N]")
		return ExitUsage
	}
	p, err := vphone.New()
	if err != nil {
		fmt.Fprintf(env.Stderr, "tandem vphone: %v\n", err)
		return ExitFail
	}
	defer p.Close()
	if err := p.Listen(*listen); err != nil {
		fmt.Fprintf(env.Stderr, "tandem vphone: %v\n", err)
		return ExitFail
	}
	srv := vphone.ADBServer{Port: *adbPort}
	setup, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := srv.Ensure(setup); err != nil {
		fmt.Fprintf(env.Stderr, "tandem vphone: %v\n", err)
		return ExitFail
	}
	serial := p.Addr()
	if err := srv.Attach(setup, serial); err != nil {
		fmt.Fprintf(env.Stderr, "tandem vphone: %v\n", err)
		return ExitFail
	}
	fmt.Fprintln(env.Stdout, serial)
	fmt.Fprintf(env.Stderr, "Virtual phone %s is attached to the adb server on port %d. Try: adb -s %s shell dumpsys window | grep mCurrentFocus\nPress Ctrl+C to stop.\n",
		serial, *adbPort, serial)
	<-ctx.Done()
	// ctx is cancelled; detaching gets its own short deadline.
	done, cancelDone := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancelDone()
	if err := srv.Detach(done, serial); err != nil {
		fmt.Fprintf(env.Stderr, "tandem vphone: %v\n", err)
	}
	fmt.Fprintln(env.Stderr, "Virtual phone stopped.")
	return ExitOK
}
