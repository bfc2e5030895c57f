package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"tandem/backend"
	"tandem/engine/model"
)

// runOptions is what `tandem run` was asked for: the flags, read over the
// person's settings and model profile (the same the window uses).
type runOptions struct {
	dev, goal, resume, profile string
	// replay is --replay: a finished run's id, whose steps are played
	// again without the model.
	replay string
	// stopKey is --stop-key: the desktop's stop hotkey for this run.
	stopKey string
	// devs is every --device given; dev is the one device of a single
	// run. jobs is the --jobs file (several runs, runmany.go).
	devs    []string
	jobs    string
	adbs    []string // --adb: other computers' adb servers
	json    bool
	port    int
	timeout time.Duration
	dataDir string
	// model is the profile the flags give in full (--base-url without
	// --profile), nil to use a saved one; edit puts the other flags on top.
	model *backend.Profile
	flags profileFlags
	// maxSteps and verbatim override the settings when above 0.
	maxSteps, verbatim int
	// replayWith plays a finished run's steps first with a chore's values
	// (tandem chore run).
	replayWith *backend.Replay
	// wait waits for a device another Tandem drives (--wait).
	wait bool
	// noVideo keeps no video of the run (--no-video).
	noVideo bool
}

// profileFlags are the flags that change the model profile for this run.
type profileFlags struct {
	dialect, variant, model, baseURL string
	sampling                         model.Sampling
	contextTokens                    int
	visionOnDemand, uiTree, cache    bool
	set                              map[string]bool // the flags given on the line
}

// parseRun reads the flags; ok is false when the command must end with code
// (help, a bad flag, a missing one).
func parseRun(env Env) (o runOptions, code int, ok bool) {
	return parseRunWith(env, "run", runFlags(env, &o), &o, nil)
}

// parseRunWith reads run's flags in fs into o; fill, when set, completes
// the options from what was read before they are checked (tandem chore
// run: the goal and the replay from the chore).
func parseRunWith(env Env, cmd string, fs *flag.FlagSet, o *runOptions, fill func() error) (runOptions, int, bool) {
	if code, ok := parseFlags(fs, env.Args); !ok {
		return *o, code, false
	}
	o.flags.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.flags.set[f.Name] = true })
	if o.flags.baseURL != "" && o.profile == "" {
		// A model given on the line (or by TANDEM_BASE_URL) replaces the
		// saved profiles; the person's settings still hold.
		o.model = &backend.Profile{Name: "command line", BaseURL: o.flags.baseURL, Model: o.flags.model, Dialect: "tools"}
	}
	err := o.check(fs)
	if fill != nil && err == nil {
		err = fill()
	}
	if err == nil {
		err = o.checkGoal()
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, cmd+":", err)
		return *o, ExitUsage, false
	}
	return *o, 0, true
}

func runFlags(env Env, o *runOptions) *flag.FlagSet {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	f := &o.flags
	fs.Func("device", "adb serial of the phone (as `tandem devices` lists it), or desktop:N for this computer's display N (required);\n"+
		"repeat it to run the goal on several devices at once, or say \"all\" for every ready phone and virtual phone\n"+
		"(never this computer's displays: name desktop:N to include one); each line printed then starts with [ID]", func(v string) error {
		o.devs = append(o.devs, strings.TrimSpace(v))
		return nil
	})
	fs.StringVar(&o.goal, "goal", "", "what the agent should do (required)")
	fs.BoolVar(&o.wait, "wait", false, "when another Tandem drives the device (the window, another tandem run, an MCP client),\n"+
		"wait for it to let go instead of ending")
	fs.StringVar(&o.jobs, "jobs", "", "a file of jobs, one run per device at once, instead of --device and --goal: one JSON object\n"+
		"a line, {\"device\": \"ID\", \"goal\": \"TEXT\"}; empty lines and lines starting with # are skipped")
	modelFlags(fs, o)
	fs.IntVar(&o.maxSteps, "max-steps", 0, "step budget (default: the app's Settings, 50 on a new install)")
	fs.StringVar(&o.dataDir, "data-dir", "", "where to write the run record (default: the data dir's runs folder, as the app, so its History lists the run; env TANDEM_DATA_DIR moves the data dir)")
	fs.StringVar(&o.resume, "resume", "", "continue the interrupted run with this id from its record (goal and settings come from it)")
	fs.StringVar(&o.replay, "replay", "", "play a finished run's steps again on --device without the model (its id, as --resume takes it; the goal is\n"+
		"its goal unless --goal says otherwise): each step's target is found on the screen as it is now; the first step that is\n"+
		"not there goes to the model (or, with no model set up, to you), and the run goes on as a normal run")
	fs.StringVar(&o.stopKey, "stop-key", "", "on this computer's desktop: the hotkey that stops the run from any window (default: Settings', else ctrl+shift+escape), e.g. ctrl+alt+k")
	fs.BoolVar(&o.json, "json", false, "print events as JSON lines")
	fs.BoolVar(&o.noVideo, "no-video", false, "keep no video of the run (by default the record folder gets the screen as an MP4, unless Settings turn videos off)")
	adbPortFlag(fs, &o.port)
	adbFlag(fs, &o.adbs)
	fs.DurationVar(&o.timeout, "timeout", 0, "stop the run after this long (e.g. 10m; 0: no limit)")
	fs.Func("temperature", "sampling temperature (default: the profile's, else the dialect's reference)", floatFlag(&f.sampling.Temperature, 0, 2))
	fs.Func("top-p", "nucleus sampling top_p (default: the profile's, else the dialect's reference)", floatFlag(&f.sampling.TopP, 0.001, 1))
	fs.IntVar(&f.sampling.MaxTokens, "max-tokens", 0, "reply token limit (default: the profile's, else the dialect's reference)")
	fs.IntVar(&f.contextTokens, "context-tokens", 0, "the model's context length; the history sent is trimmed to fit (default 32768)")
	fs.IntVar(&o.verbatim, "verbatim-steps", 0, "recent steps shown in full; older ones are summarized (default 3)")
	fs.BoolVar(&f.visionOnDemand, "vision-on-demand", false, "send a screenshot only when the UI tree is not enough (tools and json dialects)")
	fs.BoolVar(&f.uiTree, "ui-tree", false, "the model also reads the compact UI tree as text (tools dialect)")
	fs.BoolVar(&f.cache, "action-cache", false, "reuse a decision for an identical screen at the same step (each reuse is marked in the record)")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "Usage: tandem run --device ID --goal TEXT [--profile NAME | --base-url URL] [options]")
		fmt.Fprintln(env.Stderr, "       tandem run --device ID --device ID2 ... | --device all --goal TEXT [options]")
		fmt.Fprintln(env.Stderr, "       tandem run --jobs FILE [options]")
		fmt.Fprintln(env.Stderr, "       tandem run --replay ID --device ID [--profile NAME | --base-url URL] [options]")
		fmt.Fprintln(env.Stderr, "Run one task on a phone without the window, with live progress. The app's")
		fmt.Fprintln(env.Stderr, "Settings hold (what to confirm, budgets, stability, prices) unless a flag changes one.")
		fmt.Fprintln(env.Stderr, "With several devices each runs at once with its own record; every line says which device")
		fmt.Fprintln(env.Stderr, "it is about ([ID], or \"device\" in --json), questions are asked one at a time, naming the")
		fmt.Fprintln(env.Stderr, "device (an empty answer stops that device's run), Ctrl+C and --timeout stop them all, and the")
		fmt.Fprintln(env.Stderr, "exit code is 0 only when every run finished with success (else 1; 2 for bad arguments).")
		fs.PrintDefaults()
		fmt.Fprintln(env.Stderr, "")
		printEnvironment(env.Stderr, "TANDEM_BASE_URL", "TANDEM_MODEL", "TANDEM_API_KEY", "TANDEM_ADB_PORT", "ANDROID_ADB_SERVER_PORT", "TANDEM_CONFIG_DIR", "TANDEM_DATA_DIR")
	}
	return fs
}

// modelFlags are the flags that choose the model: a saved profile, or one
// given in full (tandem run and tandem eval).
func modelFlags(fs *flag.FlagSet, o *runOptions) {
	f := &o.flags
	fs.StringVar(&o.profile, "profile", "", "a model profile saved in the app (its name); default: the app's active one, unless --base-url gives a model")
	fs.StringVar(&f.dialect, "dialect", "", "model dialect: tools, autoglm, uitars, json (default: the profile's, else tools)")
	fs.StringVar(&f.variant, "variant", "", "dialect variant")
	fs.StringVar(&f.model, "model", os.Getenv("TANDEM_MODEL"), "model name")
	fs.StringVar(&f.baseURL, "base-url", os.Getenv("TANDEM_BASE_URL"), "OpenAI-compatible base URL (a model of its own instead of a saved profile)")
}

// edit puts the flags given on the line over the chosen profile.
func (f profileFlags) edit(p *backend.Profile) {
	if f.set["base-url"] {
		p.BaseURL = f.baseURL
	}
	if f.set["model"] || (f.model != "" && p.Model == "") {
		p.Model = f.model
	}
	if f.dialect != "" {
		p.Dialect, p.Variant = f.dialect, f.variant
	} else if f.variant != "" {
		p.Variant = f.variant
	}
	if f.set["temperature"] {
		p.Temperature = f.sampling.Temperature
	}
	if f.set["top-p"] {
		p.TopP = f.sampling.TopP
	}
	if f.set["max-tokens"] {
		p.MaxTokens = f.sampling.MaxTokens
	}
	if f.set["context-tokens"] {
		p.ContextTokens = f.contextTokens
	}
	p.VisionOnDemand = p.VisionOnDemand || f.visionOnDemand
	p.UITree = p.UITree || f.uiTree
	p.ActionCache = p.ActionCache || f.cache
}

// choice is the run's choice on top of the person's settings.
func (o *runOptions) choice() backend.RunChoice {
	c := backend.RunChoice{Profile: o.profile, Model: o.model, Edit: o.flags.edit,
		Key: os.Getenv("TANDEM_API_KEY"), MaxSteps: o.maxSteps, VerbatimSteps: o.verbatim, NoVideo: o.noVideo}
	if o.replay != "" {
		c.Replay = &backend.Replay{RunID: o.replay}
	}
	if o.replayWith != nil {
		c.Replay = o.replayWith
	}
	return c
}

// config is the backend's configuration: the person's files, this run's
// adb server, with --data-dir where its record goes, and Ctrl+C's mark
// that every action asks first.
func (o *runOptions) config(env Env) backend.Config {
	c := backend.ConfigFromEnv()
	c.Interrupted = env.stops.Interrupted
	c.ADB = "127.0.0.1:" + strconv.Itoa(o.port)
	c.ADBServers = o.adbs
	c.Door, c.WaitForDevice, c.StopHotkey = "run", o.wait, o.stopKey
	if o.dataDir != "" {
		c.RunsDir = o.dataDir
	}
	return c
}

// check refuses what cannot run, naming the flag.
func (o *runOptions) check(fs *flag.FlagSet) error {
	if len(o.devs) == 1 && o.devs[0] != allDevices {
		o.dev = o.devs[0]
	}
	if err := o.checkMany(); err != nil {
		return err
	}
	if o.stopKey != "" {
		norm, err := backend.CheckStopHotkey(o.stopKey)
		if err != nil {
			return fmt.Errorf("--stop-key: %w", err)
		}
		o.stopKey = norm
	}
	switch {
	case o.replay != "" && (o.resume != "" || o.jobs != ""):
		return errors.New("--replay cannot go with --resume or --jobs")
	case o.replay != "" && o.dev == "" && !o.many():
		return errors.New("--replay needs --device")
	case fs.NArg() > 0 || o.port <= 0 || o.port > 65535 || o.maxSteps < 0 || o.timeout < 0:
		return errors.New("unexpected arguments, or a bad --adb-port, --max-steps or --timeout")
	case o.flags.contextTokens < 0 || o.verbatim < 0:
		return errors.New("--context-tokens and --verbatim-steps cannot be negative")
	}
	return nil
}

// checkGoal refuses a run with no device or no goal.
func (o *runOptions) checkGoal() error {
	if o.jobs == "" && o.replay == "" && ((o.dev == "" && !o.many() && o.resume == "") || (o.goal == "" && o.resume == "")) {
		return errors.New("--device and --goal (or --resume ID) are required")
	}
	return nil
}

// describe says which model, policy and budget a run uses, in one or two
// lines for the terminal.
func describe(s backend.Setup) string {
	p := s.Profile
	from := fmt.Sprintf("profile %q", p.Name)
	if !s.Saved {
		from = "the command line's model"
	}
	var b strings.Builder
	name := p.Model
	if name == "" {
		name = "the server's model"
	}
	switch {
	case s.NoModel:
		b.WriteString("model: none — a replay; a step that is not on the screen is handed to you\n")
	default:
		fmt.Fprintf(&b, "model: %s — %s at %s (%s replies)\n", from, name, p.BaseURL, p.Dialect)
	}
	pol := s.Settings.Policy
	switch {
	case pol.Off:
		b.WriteString("asks before: only what the model flags")
	default:
		fmt.Fprintf(&b, "asks before: %d words (%s)", len(pol.Words), shortList(pol.Words, 6))
		if len(pol.Apps) > 0 {
			fmt.Fprintf(&b, " and anything in %s", shortList(pol.Apps, 4))
		}
	}
	bud := s.Settings.Budget
	fmt.Fprintf(&b, "; budget: %s steps, %s", limit(bud.Steps), limitDur(bud.WallTime))
	return b.String()
}

func shortList(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(", … %d more", len(xs)-n)
}

func limit(n int) string {
	if n <= 0 {
		return "no limit of"
	}
	return strconv.Itoa(n)
}

func limitDur(d time.Duration) string {
	if d <= 0 {
		return "no time limit"
	}
	return d.String() + " at most"
}

// recordDir is where run id's record is.
func recordDir(c backend.Config, id string) string {
	return filepath.Join(c.Runs(), filepath.Base(id))
}
