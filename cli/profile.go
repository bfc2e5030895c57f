package cli

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
)

// ProfileEnv names the file a subcommand's CPU profile is written to
// (`go tool pprof`): how a step's CPU is looked into from outside, through
// the door a person uses (issue 48). Unset, nothing is profiled.
const ProfileEnv = "TANDEM_CPUPROFILE"

// withCPUProfile runs f, profiling the process's CPU into the file path
// names when it is not empty; a profile that cannot be started is said on
// stderr and f runs anyway.
func withCPUProfile(path string, stderr io.Writer, f func() int) int {
	if path == "" {
		return f()
	}
	out, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(stderr, "tandem: cpu profile:", err)
		return f()
	}
	defer out.Close()
	if err := pprof.StartCPUProfile(out); err != nil {
		fmt.Fprintln(stderr, "tandem: cpu profile:", err)
		return f()
	}
	defer pprof.StopCPUProfile()
	return f()
}
