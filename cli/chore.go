package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"tandem/backend"
)

// runChore is `tandem chore`: the person's saved chores, the same list the
// window's Chores view shows. `run` is `tandem run` with the chore's goal
// (its parameters filled in) and the replay of the run it was saved from,
// so every flag of run holds, and so do the person's guarantees.
func runChore(ctx context.Context, env Env) int {
	sub := ""
	if len(env.Args) > 0 {
		sub, env.Args = env.Args[0], env.Args[1:]
	}
	switch sub {
	case "list":
		return choreList(env)
	case "show":
		return choreShow(env)
	case "run":
		return choreRun(ctx, env)
	case "save":
		return choreSave(env)
	case "delete":
		return choreDelete(env)
	}
	choreUsage(env.Stderr)
	if sub == "-h" || sub == "--help" || sub == "help" {
		return ExitOK
	}
	return ExitUsage
}

func choreUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: tandem chore list [--json]
       tandem chore show NAME [--json]
       tandem chore run NAME [--param KEY=VALUE ...] --device ID|all [tandem run's options]
       tandem chore save NAME (--goal TEXT | --from RUN_ID) [--param KEY=VALUE ...]
                         [--device ID ...] [--daily HH:MM | --weekdays HH:MM | --every N --at HH:MM]
       tandem chore delete NAME
A chore is a saved goal with parameters ({key} in its goal), and the run it was saved from,
which "run" replays without the model while the screens match. The window's Chores view shows
the same list and runs the schedules while it is open; on a computer that stays on without the
window, let the system's scheduler call "tandem chore run" (README: "Chores").
`)
}

// nameFirst takes the chore's name from the front of args (flags may come
// before or after it).
func nameFirst(args []string) (string, []string) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0], args[1:]
	}
	return "", args
}

// nameOf is the name given before the flags, or the one left after them.
func nameOf(name string, fs *flag.FlagSet) (string, error) {
	rest := fs.Args()
	switch {
	case name == "" && len(rest) == 1:
		return rest[0], nil
	case name != "" && len(rest) == 0:
		return name, nil
	case name == "" && len(rest) == 0:
		return "", errors.New("name the chore (tandem chore list shows them)")
	}
	return "", fmt.Errorf("unexpected arguments: %s", strings.Join(rest, " "))
}

func choreBackend() *backend.Backend { return backend.New(backend.ConfigFromEnv()) }

func choreList(env Env) int {
	fs := flag.NewFlagSet("chore list", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	asJSON := fs.Bool("json", false, "print a JSON array of the chores")
	if code, ok := parseFlags(fs, env.Args); !ok {
		return code
	}
	list, err := choreBackend().Chores()
	if err != nil {
		fmt.Fprintln(env.Stderr, "chore:", err)
		return ExitFail
	}
	if *asJSON {
		return printJSON(env, list)
	}
	if len(list) == 0 {
		fmt.Fprintln(env.Stdout, "No chores yet: save one from History in the window, or with tandem chore save.")
		return ExitOK
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tPARAMETERS\tSCHEDULE\tGOAL")
	for _, c := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", escapeControls(c.Name), escapeControls(paramList(c)), scheduleText(c), escapeControls(shortGoal(c.Goal)))
	}
	_ = tw.Flush()
	return ExitOK
}

func printJSON(env Env, v any) int {
	enc := json.NewEncoder(env.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		fmt.Fprintln(env.Stderr, "chore:", err)
		return ExitFail
	}
	return ExitOK
}

func paramList(c backend.Chore) string {
	parts := make([]string, 0, len(c.Params))
	for _, p := range c.Params {
		parts = append(parts, p.Name+"="+p.Value)
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

func shortGoal(g string) string {
	r := []rune(strings.Join(strings.Fields(g), " "))
	if len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return string(r)
}

// scheduleText says a chore's schedule in a few words.
func scheduleText(c backend.Chore) string {
	s := c.Schedule
	if s == nil {
		return "-"
	}
	var t string
	switch s.Kind {
	case backend.ScheduleDaily:
		t = "daily " + s.At
	case backend.ScheduleWeekdays:
		t = "weekdays " + s.At
	case backend.ScheduleHourly:
		t = fmt.Sprintf("every %dh at %s", s.Every, s.At)
	}
	if s.Off {
		t += " (off)"
	}
	return t + " on " + strings.Join(c.Devices, ",")
}

func choreShow(env Env) int {
	name, args := nameFirst(env.Args)
	fs := flag.NewFlagSet("chore show", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	asJSON := fs.Bool("json", false, "print the chore as JSON")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	name, err := nameOf(name, fs)
	if err != nil {
		fmt.Fprintln(env.Stderr, "chore show:", err)
		return ExitUsage
	}
	c, err := choreBackend().Chore(name)
	if err != nil {
		fmt.Fprintln(env.Stderr, "chore show:", err)
		return ExitFail
	}
	if *asJSON {
		return printJSON(env, c)
	}
	fmt.Fprintf(env.Stdout, "Name:       %s\nGoal:       %s\nParameters: %s\nSchedule:   %s\n", escapeControls(c.Name),
		escapeControls(c.Goal), escapeControls(paramList(c)), scheduleText(c))
	if c.FromRun != "" {
		fmt.Fprintf(env.Stdout, "Replays:    run %s (its steps without the model while the screens match)\n", c.FromRun)
	}
	return ExitOK
}

func choreDelete(env Env) int {
	name, args := nameFirst(env.Args)
	fs := flag.NewFlagSet("chore delete", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	name, err := nameOf(name, fs)
	if err != nil {
		fmt.Fprintln(env.Stderr, "chore delete:", err)
		return ExitUsage
	}
	if err := choreBackend().DeleteChore(name); err != nil {
		fmt.Fprintln(env.Stderr, "chore delete:", err)
		return ExitFail
	}
	fmt.Fprintf(env.Stdout, "Deleted %s (its runs stay in History).\n", escapeControls(name))
	return ExitOK
}

// paramFlag collects --param KEY=VALUE.
type paramFlag map[string]string

func (p paramFlag) String() string { return "" }

func (p paramFlag) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("--param is KEY=VALUE, not %q", v)
	}
	if _, dup := p[k]; dup {
		return fmt.Errorf("--param %s given twice", k)
	}
	p[strings.TrimSpace(k)] = val
	return nil
}
