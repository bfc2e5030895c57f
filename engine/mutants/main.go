// Command mutants plants faults in the run's core, one at a time, and
// shows that the core's random runs (engine: TestCore*) or the simulation
// (engine/sim) catch each one (issue 50, item 7; `make mutants`). A mutant
// is the real source with one edit, handed to `go test` through -overlay:
// nothing in the tree changes, and an edit whose text is no longer found
// exactly once is an error, so the list cannot silently go stale.
//
// It prints a Markdown table (docs/develop.md keeps the last one) and
// exits 1 when a mutant survives both, or does not build.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// options are the command line's.
type options struct {
	root     string
	seeds    int
	coreRuns int
	only     *regexp.Regexp
	timeout  time.Duration
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("mutants", flag.ContinueOnError)
	o := options{}
	fs.StringVar(&o.root, "root", ".", "the module's root")
	fs.IntVar(&o.seeds, "seeds", 2000, "the simulation's seeds for each mutant")
	fs.IntVar(&o.coreRuns, "core-runs", 3000, "the core's random runs for each mutant")
	only := fs.String("run", "", "plant only the mutants whose name matches this regexp")
	fs.DurationVar(&o.timeout, "timeout", 3*time.Minute, "each go test's -timeout (a reply never answered may hang a run)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	re, err := regexp.Compile(*only)
	if err != nil {
		return err
	}
	o.only = re
	tmp, err := os.MkdirTemp("", "tandem-mutants-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	fmt.Fprintln(out, "| mutant | fault | core test | simulation |")
	fmt.Fprintln(out, "|---|---|---|---|")
	var bad []string
	for _, m := range mutants() {
		if !o.only.MatchString(m.name) {
			continue
		}
		core, sim, err := plant(ctx, o, tmp, m)
		if err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
		fmt.Fprintf(out, "| %s | %s | %s | %s |\n", m.name, m.kind, core, sim)
		if !core.caught && !sim.caught {
			bad = append(bad, m.name)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("survived: %s", strings.Join(bad, ", "))
	}
	return nil
}

// verdict is what one test made of a mutant.
type verdict struct {
	caught bool
	how    string // the first line that says so
}

func (v verdict) String() string {
	if !v.caught {
		return "**survived**"
	}
	return "caught: " + strings.ReplaceAll(v.how, "|", `\|`)
}

// plant writes m's source and runs the core test and the simulation on it.
func plant(ctx context.Context, o options, tmp string, m mutant) (core, sim verdict, err error) {
	src := filepath.Join(o.root, m.file)
	b, err := os.ReadFile(src)
	if err != nil {
		return core, sim, err
	}
	if n := strings.Count(string(b), m.old); n != 1 {
		return core, sim, fmt.Errorf("%s holds its text %d times, not once", m.file, n)
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		return core, sim, err
	}
	patched := filepath.Join(tmp, m.name+".go")
	if err := os.WriteFile(patched, []byte(strings.Replace(string(b), m.old, m.new, 1)), 0o600); err != nil {
		return core, sim, err
	}
	overlay := filepath.Join(tmp, m.name+".json")
	j, err := json.Marshal(map[string]map[string]string{"Replace": {abs: patched}})
	if err != nil {
		return core, sim, err
	}
	if err := os.WriteFile(overlay, j, 0o600); err != nil {
		return core, sim, err
	}
	core, err = goTest(ctx, o, overlay, "./engine", "-run", "^TestCore", fmt.Sprintf("-core-runs=%d", o.coreRuns))
	if err != nil {
		return core, sim, err
	}
	sim, err = goTest(ctx, o, overlay, "./engine/sim", "-run", "TestSimulation$", fmt.Sprintf("-seeds=%d", o.seeds))
	return core, sim, err
}

// why is the line of go test's output that says why it failed: the
// simulation's first violation, else a test's failure or a panic.
func why(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.Contains(l, " violation(s), final state ") && i+1 < len(lines) {
			seed, _, _ := strings.Cut(strings.TrimSpace(l), ":")
			return seed + ": " + strings.TrimSpace(lines[i+1])
		}
	}
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "panic: ") || strings.Contains(l, "_test.go:") && !strings.Contains(l, " invariant checks in ") {
			return l
		}
	}
	return "go test failed"
}

// goTest runs go test on pkg with the overlay; a failing test is a caught
// mutant, a mutant that does not build an error.
func goTest(ctx context.Context, o options, overlay, pkg string, args ...string) (verdict, error) {
	all := append([]string{"test", "-count=1", "-overlay=" + overlay, fmt.Sprintf("-timeout=%s", o.timeout), pkg}, args...)
	cmd := exec.CommandContext(ctx, "go", all...)
	cmd.Dir = o.root
	outb, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return verdict{}, ctx.Err()
	}
	text := string(outb)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return verdict{}, nil
	case !errors.As(err, &exit):
		return verdict{}, err
	case strings.Contains(text, "[build failed]") || strings.Contains(text, "[setup failed]"):
		return verdict{}, fmt.Errorf("does not build:\n%s", text)
	}
	how := why(text)
	if r := []rune(how); len(r) > 140 {
		how = string(r[:140]) + "…"
	}
	return verdict{caught: true, how: how}, nil
}
