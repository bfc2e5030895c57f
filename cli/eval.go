package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"tandem/backend"
	"tandem/eval"
)

// evalOptions is what `tandem eval` was asked for.
type evalOptions struct {
	list, json, oracle bool
	seed               uint64
	filter             eval.Filter
	repeat, phones     int
	devs               []string
	out                string
	faults             eval.Faults
	noise              *eval.Noise
	without            []string
	run                runOptions // the model flags, the adb port, the person's settings
}

// runEval lists or runs the world of chores (eval/): tasks on virtual
// phones of its own (or the devices given), through normal runs, each
// scored by reading the phone.
func runEval(ctx context.Context, env Env) int {
	o, code, ok := parseEval(env)
	if !ok {
		return code
	}
	tasks, err := eval.Suite(o.seed, o.filter)
	if err != nil {
		fmt.Fprintln(env.Stderr, "eval:", err)
		return ExitUsage
	}
	if o.list {
		return listTasks(env, tasks, o.json)
	}
	if len(tasks) == 0 {
		fmt.Fprintln(env.Stderr, "eval: no task matches --tier and --tasks (`tandem eval --list` lists them)")
		return ExitUsage
	}
	return playSuite(ctx, env, o, tasks)
}

func parseEval(env Env) (o evalOptions, code int, ok bool) {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.BoolVar(&o.list, "list", false, "list the tasks and exit")
	fs.BoolVar(&o.json, "json", false, "one JSON object a line: a task (with --list) or a task run, then {\"summary\": …}")
	fs.Uint64Var(&o.seed, "seed", 1, "the seed the tasks' parameters are drawn from: one seed, the same tasks")
	fs.Func("tier", "only the tasks of this tier: simple, medium or complex", func(v string) error { o.filter.Tier = eval.Tier(v); return nil })
	fs.StringVar(&o.filter.Tasks, "tasks", "", "only the tasks whose id or template matches this glob (a comma separates several)")
	fs.IntVar(&o.repeat, "repeat", 1, "run each task this many times")
	fs.IntVar(&o.phones, "phones", 2, "virtual phones to start and run tasks on at once (without --device)")
	fs.Func("device", "run on this phone instead of virtual phones of its own (repeat it for several)", func(v string) error {
		o.devs = append(o.devs, strings.TrimSpace(v))
		return nil
	})
	fs.BoolVar(&o.oracle, "oracle", false, "play the built-in oracle, a perfect model that reads the screen, instead of a model")
	fs.Func("faults", "turn on the virtual phones' faults: drop=RATE (characters `input text` loses), popup=RATE (a pop-up after a tap),\n"+
		"slow=DURATION (an app loading after each input), shift=DURATION (a banner pushes the screen down that long after a tap)", func(v string) error {
		f, err := eval.ParseFaults(v)
		o.faults = f
		return err
	})
	fs.Func("oracle-noise", "make the oracle imperfect: mistap=RATE,malformed=RATE,early=RATE (premature done), per reply", func(v string) error {
		n, err := eval.ParseNoise(v)
		o.noise = &n
		return err
	})
	fs.Func("without", "run without some of Tandem's own features: "+strings.Join(eval.Features, ", ")+" (a comma separates several)", func(v string) error {
		w, err := eval.ParseWithout(v)
		o.without = w
		return err
	})
	fs.StringVar(&o.out, "out", "", "also write the results (results.jsonl) and the summary (summary.json) to this folder")
	r := &o.run
	f := &r.flags
	modelFlags(fs, r)
	fs.BoolVar(&f.uiTree, "ui-tree", false, "the model also reads the compact UI tree as text (tools dialect)")
	fs.IntVar(&r.maxSteps, "max-steps", 0, "step budget of each task run (default: the app's Settings)")
	adbPortFlag(fs, &r.port)
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "Usage: tandem eval --list [--json] [--seed N] [--tier T] [--tasks GLOB]")
		fmt.Fprintln(env.Stderr, "       tandem eval [--tasks GLOB] [--tier T] [--seed N] [--repeat K] [--phones P] [--device ID ...]")
		fmt.Fprintln(env.Stderr, "                   [--profile NAME | --base-url U --model M --dialect D] [--oracle] [--json] [--out DIR]")
		fmt.Fprintln(env.Stderr, "Measure a model on the world of chores: each task is set up on a phone, run as a normal run")
		fmt.Fprintln(env.Stderr, "(History keeps it), and scored by reading the phone's own state, never the model's claim. A")
		fmt.Fprintln(env.Stderr, "confirmation is answered as the goal says; the app's Settings hold. Exit 0 when the suite ran.")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, env.Args); !ok {
		return o, code, false
	}
	r.flags.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { r.flags.set[fl.Name] = true })
	switch {
	case fs.NArg() > 0 || o.repeat < 1 || o.phones < 1 || o.phones > 8 || r.port <= 0 || r.port > 65535:
		fmt.Fprintln(env.Stderr, "eval: unexpected arguments, or a bad --repeat, --phones (1-8) or --adb-port")
		return o, ExitUsage, false
	case o.oracle && (r.profile != "" || r.flags.set["base-url"]):
		fmt.Fprintln(env.Stderr, "eval: --oracle is the model: leave out --profile and --base-url")
		return o, ExitUsage, false
	case o.noise != nil && !o.oracle:
		fmt.Fprintln(env.Stderr, "eval: --oracle-noise makes the oracle imperfect: give --oracle too")
		return o, ExitUsage, false
	case o.faults != (eval.Faults{}) && len(o.devs) > 0:
		fmt.Fprintln(env.Stderr, "eval: --faults are for the virtual phones eval starts: leave out --device")
		return o, ExitUsage, false
	}
	if o.noise != nil {
		o.noise.Seed = o.seed
	}
	if f.baseURL != "" && r.profile == "" {
		r.model = &backend.Profile{Name: "command line", BaseURL: f.baseURL, Model: f.model, Dialect: "tools"}
	}
	return o, 0, true
}

func listTasks(env Env, tasks []eval.Task, asJSON bool) int {
	if asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetEscapeHTML(false)
		for _, t := range tasks {
			_ = enc.Encode(t)
		}
		return ExitOK
	}
	for _, t := range tasks {
		fmt.Fprintf(env.Stdout, "%-22s %-8s %-20s %s\n", t.ID, t.Tier, strings.Join(t.Apps, ","), escapeControls(t.Goal))
	}
	fmt.Fprintf(env.Stderr, "%d tasks\n", len(tasks))
	return ExitOK
}

// playSuite runs the tasks and prints each result and the summary.
func playSuite(ctx context.Context, env Env, o evalOptions, tasks []eval.Task) int {
	b := backend.New(o.run.config(env))
	defer b.Shutdown()
	choice := o.run.choice()
	var choiceFor func(eval.Task) backend.RunChoice
	if o.oracle {
		or, err := eval.StartOracle(ctx, tasks, o.noise)
		if err != nil {
			fmt.Fprintln(env.Stderr, "eval:", err)
			return ExitFail
		}
		defer or.Close()
		choiceFor = func(t eval.Task) backend.RunChoice {
			return backend.RunChoice{Model: &backend.Profile{Name: "oracle", BaseURL: or.BaseURL(), Model: eval.ModelFor(t), Dialect: "tools", UITree: true},
				Key: or.Key(), MaxSteps: o.run.maxSteps}
		}
		choice = choiceFor(tasks[0])
	}
	if _, err := b.RunSetup(choice); err != nil {
		fmt.Fprintln(env.Stderr, "eval:", err)
		return ExitUsage
	}
	total := len(tasks) * o.repeat
	p := &suitePrinter{env: env, json: o.json, total: total}
	start := time.Now()
	cfg := eval.Config{Backend: b, ADB: b.ADBAddr(), Devices: o.devs, Phones: o.phones, Choice: choice, ChoiceFor: choiceFor, Repeat: o.repeat,
		Tweak: eval.Without(o.without), Faults: o.faults, Seed: o.seed,
		Finished: p.finished}
	if !o.json {
		fmt.Fprintf(env.Stderr, "eval: %d task runs on %s\n", total, phonesWord(o))
	}
	results, err := eval.Run(ctx, cfg, tasks)
	if err != nil && ctx.Err() == nil {
		fmt.Fprintln(env.Stderr, "eval:", err)
		return ExitFail
	}
	sum := eval.Summarize(done(results), eval.Declined(tasks), time.Since(start).Seconds())
	p.summary(sum)
	if o.out != "" {
		if err := writeOut(o.out, results, sum); err != nil {
			fmt.Fprintln(env.Stderr, "eval:", err)
			return ExitFail
		}
	}
	if ctx.Err() != nil {
		return ExitFail
	}
	return ExitOK
}

func phonesWord(o evalOptions) string {
	if len(o.devs) > 0 {
		return strings.Join(o.devs, ", ")
	}
	return fmt.Sprintf("%d virtual phones", o.phones)
}

// done is the results of the task runs that ran (a stopped suite leaves
// the rest empty).
func done(rs []eval.TaskRun) []eval.TaskRun {
	var out []eval.TaskRun
	for _, r := range rs {
		if r.Task != "" {
			out = append(out, r)
		}
	}
	return out
}

func writeOut(dir string, rs []eval.TaskRun, s eval.Summary) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b strings.Builder
	for _, r := range done(rs) {
		line, _ := json.Marshal(r)
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "results.jsonl"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	sb, _ := json.MarshalIndent(s, "", "  ")
	return os.WriteFile(filepath.Join(dir, "summary.json"), sb, 0o644)
}

// suitePrinter prints a line per task run (with a count of those done)
// and the summary's table, or JSON lines.
type suitePrinter struct {
	env   Env
	json  bool
	total int
	n     int
}

func (p *suitePrinter) finished(r eval.TaskRun) {
	p.n++
	if p.json {
		enc := json.NewEncoder(p.env.Stdout)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(r)
		return
	}
	mark := "✗"
	if r.Success {
		mark = "✓"
	}
	note := ""
	switch {
	case r.Error != "":
		note = " — " + escapeControls(r.Error)
	case r.ClaimedDone && !r.Success:
		note = " — false done"
	}
	fmt.Fprintf(p.env.Stdout, "[%*d/%d] %s %-22s %-7s %3d steps %6.1f s  %s%s\n", len(fmt.Sprint(p.total)), p.n, p.total, mark, r.Task, r.Tier,
		r.Steps, r.Seconds, r.Ended, note)
}

func (p *suitePrinter) summary(s eval.Summary) {
	if p.json {
		enc := json.NewEncoder(p.env.Stdout)
		_ = enc.Encode(map[string]any{"summary": s})
		return
	}
	w := p.env.Stdout
	fmt.Fprintf(w, "\n%-8s %6s %8s %6s\n", "tier", "tasks", "success", "rate")
	for _, t := range eval.Tiers {
		ts := s.ByTier[t]
		fmt.Fprintf(w, "%-8s %6d %8d %5.0f%%\n", t, ts.Tasks, ts.Success, ts.Rate*100)
	}
	fmt.Fprintf(w, "%-8s %6d %8d %5.0f%%\n", "all", s.Tasks, s.Success, s.Rate*100)
	fmt.Fprintf(w, "false done %d, missed done %d; %d tokens, cost %.4f; %.0f s\n", s.FalseDone, s.MissedDone, s.Tokens, s.Cost, s.Seconds)
}
