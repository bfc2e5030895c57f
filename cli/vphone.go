package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"tandem/vphone"
)

// runVphone starts a virtual phone, attaches it to the user's adb server
// (starting the server if needed), prints its serial on stdout and serves
// until Ctrl+C, then detaches it again. With --events it keeps the phone's
// own log of inputs in a file (what the browser suite checks Stop with).
func runVphone(ctx context.Context, env Env) int {
	fs := flag.NewFlagSet("vphone", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	listen := fs.String("listen", "127.0.0.1:0", "address the phone listens on (avoid ports 5555-5585, which adb probes)")
	events := fs.String("events", "", "append every input the phone receives to this file as it arrives, one JSON line each")
	adbPort := new(int)
	adbPortFlag(fs, adbPort)
	if code, ok := parseFlags(fs, env.Args); !ok {
		return code
	}
	if fs.NArg() > 0 || *adbPort <= 0 || *adbPort > 65535 {
		fmt.Fprintln(env.Stderr, "usage: tandem vphone [--listen ADDR] [--adb-port N] [--events FILE]")
		return ExitUsage
	}
	var opts []vphone.Option
	if *events != "" {
		f, err := os.OpenFile(*events, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintf(env.Stderr, "tandem vphone: the event log: %v\n", err)
			return ExitFail
		}
		defer f.Close()
		opts = append(opts, vphone.WithEventLog(f))
	}
	p, err := vphone.New(opts...)
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
