package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"

	"tandem/backend"
)

// choreRun is tandem chore run NAME: tandem run with the chore's goal and
// its run's replay; the flags are run's, with --param for the values.
func choreRun(ctx context.Context, env Env) int {
	name, args := nameFirst(env.Args)
	env.Args = args
	var o runOptions
	fs := runFlags(env, &o)
	params := paramFlag{}
	fs.Var(params, "param", "a value for one of the chore's parameters, KEY=VALUE (repeat it; tandem chore show lists them)")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "Usage: tandem chore run NAME [--param KEY=VALUE ...] --device ID|all [options]")
		fmt.Fprintln(env.Stderr, "Runs a saved chore as tandem run does: its steps are replayed without the model while the")
		fmt.Fprintln(env.Stderr, "screens match, then the model (the same flags choose it) takes over. --goal, --jobs, --resume")
		fmt.Fprintln(env.Stderr, "do not apply.")
		fs.PrintDefaults()
	}
	fill := func() error {
		switch {
		case name == "":
			return errors.New("name the chore right after run (tandem chore list shows them)")
		case o.goal != "" || o.jobs != "" || o.resume != "":
			return errors.New("a chore brings its own goal: --goal, --jobs and --resume do not apply")
		}
		cr, err := choreBackend().PrepareChore(name, params, backend.RunChoice{})
		if err != nil {
			return err
		}
		o.goal, o.replayWith = cr.Goal, cr.Choice.Replay
		return nil
	}
	o, code, ok := parseRunWith(env, "chore run", fs, &o, fill)
	if !ok {
		return code
	}
	return runParsed(ctx, env, o)
}

// choreSave is tandem chore save NAME: a chore from a goal or a finished
// run, replacing the one of that name.
func choreSave(env Env) int {
	name, args := nameFirst(env.Args)
	fs := flag.NewFlagSet("chore save", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	goal := fs.String("goal", "", "the goal; {KEY} stands for a parameter")
	from := fs.String("from", "", "a finished run's id (as History and tandem run print it): its goal, and its steps to replay")
	params := paramFlag{}
	fs.Var(params, "param", "a parameter and its value, KEY=VALUE; with --from, a text the run typed or tapped becomes {KEY}")
	var devs []string
	fs.Func("device", "a device a scheduled run starts on (repeat it; all: every ready phone)", func(v string) error {
		devs = append(devs, strings.TrimSpace(v))
		return nil
	})
	var sched backend.ChoreSchedule
	fs.Func("daily", "run every day at HH:MM while Tandem's window is open", kindAt(&sched, backend.ScheduleDaily))
	fs.Func("weekdays", "run Monday to Friday at HH:MM", kindAt(&sched, backend.ScheduleWeekdays))
	fs.IntVar(&sched.Every, "every", 0, "run every N hours (with --at HH:MM, one of the day's times)")
	at := fs.String("at", "", "with --every: one of the day's times, HH:MM")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	name, err := nameOf(name, fs)
	if err == nil {
		err = saveChore(env, name, *goal, *from, params, devs, schedule(sched, *at))
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, "chore save:", err)
		if errors.Is(err, errUsage) {
			return ExitUsage
		}
		return ExitFail
	}
	return ExitOK
}

var errUsage = errors.New("usage")

func kindAt(s *backend.ChoreSchedule, k backend.ScheduleKind) func(string) error {
	return func(v string) error {
		s.Kind, s.At = k, v
		return nil
	}
}

func schedule(s backend.ChoreSchedule, at string) *backend.ChoreSchedule {
	if s.Every > 0 {
		s.Kind, s.At = backend.ScheduleHourly, at
	}
	if s.Kind == "" {
		return nil
	}
	return &s
}

func saveChore(env Env, name, goal, from string, params paramFlag, devs []string, sched *backend.ChoreSchedule) error {
	if (goal == "") == (from == "") {
		return fmt.Errorf("%w: give --goal TEXT or --from RUN_ID", errUsage)
	}
	b := choreBackend()
	c := backend.Chore{Name: name, Goal: goal}
	if from != "" {
		d, err := b.DraftChore(from)
		if err != nil {
			return err
		}
		c = d.Chore
		c.Name = name
	}
	keys := slices.Sorted(maps.Keys(params))
	for _, k := range keys {
		if v := params[k]; from != "" {
			c = c.Named(k, v)
		} else {
			c.Params = append(c.Params, backend.ChoreParam{Name: k, Value: v})
		}
	}
	c.Devices, c.Schedule = devs, sched
	if old, err := b.Chore(name); err == nil {
		c.ID = old.ID
	}
	saved, err := b.SaveChore(c)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Saved %s: %s\n", escapeControls(saved.Name), escapeControls(saved.Goal))
	return nil
}
