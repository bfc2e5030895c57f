package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"tandem/devices/adb"
	"tandem/devices/desktop/host"
	"tandem/engine"
	"tandem/engine/model"
	"tandem/engine/model/dialect"
	"tandem/engine/observe"
	"tandem/internal/datadir"
)

// runOptions is what `tandem run` was asked for, after flags, the
// environment and a saved profile.
type runOptions struct {
	dev, goal, dialect, variant, model, baseURL, key string
	maxSteps                                         int
	dataDir, resume                                  string
	json                                             bool
	port                                             int
	timeout                                          time.Duration
	sampling                                         model.Sampling
	plannerOpts                                      model.PlannerOptions
	actionCache                                      bool
	profile                                          string
	shared                                           string // the data dir the app uses too
}

// parseRun reads the flags; ok is false when the command must end with code
// (help, a bad flag, a missing one).
func parseRun(env Env) (o runOptions, code int, ok bool) {
	fs := runFlags(env, &o)
	if code, ok := parseFlags(fs, env.Args); !ok {
		return o, code, false
	}
	o.key = os.Getenv("TANDEM_API_KEY")
	if o.profile != "" {
		if err := o.useProfile(env, fs); err != nil {
			fmt.Fprintln(env.Stderr, "run:", err)
			return o, ExitUsage, false
		}
	}
	o.shared = datadir.Dir(os.Getenv)
	if o.dataDir == "" {
		o.dataDir = datadir.Runs(o.shared) // where the app keeps its records too
	}
	if o.resume != "" && o.dev == "" {
		o.dev = recordedDevice(filepath.Join(o.dataDir, o.resume))
	}
	if err := o.check(fs); err != nil {
		fmt.Fprintln(env.Stderr, "run:", err)
		return o, ExitUsage, false
	}
	return o, 0, true
}

func runFlags(env Env, o *runOptions) *flag.FlagSet {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.StringVar(&o.dev, "device", "", "adb serial of the phone, or desktop:N for this computer's display N (required)")
	fs.StringVar(&o.goal, "goal", "", "what the agent should do (required)")
	fs.StringVar(&o.dialect, "dialect", "tools", "model dialect: tools, autoglm, uitars, json")
	fs.StringVar(&o.variant, "variant", "", "dialect variant")
	fs.StringVar(&o.model, "model", os.Getenv("TANDEM_MODEL"), "model name")
	fs.StringVar(&o.baseURL, "base-url", os.Getenv("TANDEM_BASE_URL"), "OpenAI-compatible base URL")
	fs.IntVar(&o.maxSteps, "max-steps", 50, "step budget")
	fs.StringVar(&o.dataDir, "data-dir", "", "where to write the run record (default: the data dir's runs folder, as the app, so its History lists the run; env TANDEM_DATA_DIR moves the data dir)")
	fs.StringVar(&o.resume, "resume", "", "continue the interrupted run with this id from its record (goal and settings come from it)")
	fs.BoolVar(&o.json, "json", false, "print events as JSON lines")
	adbPortFlag(fs, &o.port)
	fs.DurationVar(&o.timeout, "timeout", 0, "stop the run after this long (e.g. 10m; 0: no limit)")
	fs.Func("temperature", "sampling temperature (default: the dialect's reference, 0 for most)", floatFlag(&o.sampling.Temperature, 0, 2))
	fs.Func("top-p", "nucleus sampling top_p (default: the dialect's reference)", floatFlag(&o.sampling.TopP, 0.001, 1))
	fs.IntVar(&o.sampling.MaxTokens, "max-tokens", 0, "reply token limit (default: the dialect's reference)")
	fs.IntVar(&o.plannerOpts.ContextTokens, "context-tokens", 0, "the model's context length; the history sent is trimmed to fit (default 32768)")
	fs.IntVar(&o.plannerOpts.VerbatimSteps, "verbatim-steps", 0, "recent steps shown in full; older ones are summarized (default 3)")
	fs.BoolVar(&o.plannerOpts.SmallModel, "vision-on-demand", false, "send a screenshot only when the UI tree is not enough (tools and json dialects)")
	fs.BoolVar(&o.plannerOpts.UITree, "ui-tree", false, "the model also reads the compact UI tree as text (tools dialect)")
	fs.BoolVar(&o.actionCache, "action-cache", false, "reuse a decision for an identical screen at the same step (each reuse is marked in the record)")
	fs.StringVar(&o.profile, "profile", "", "use a model profile saved in the app (its URL, model, reply format and key); flags given here win")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "Usage: tandem run --device ID --goal TEXT (--base-url URL | --profile NAME) [options]")
		fmt.Fprintln(env.Stderr, "Run one task on a phone without the window, with live progress.")
		fs.PrintDefaults()
		fmt.Fprintln(env.Stderr, "")
		printEnvironment(env.Stderr, "TANDEM_BASE_URL", "TANDEM_MODEL", "TANDEM_API_KEY", "TANDEM_ADB_PORT", "ANDROID_ADB_SERVER_PORT", "TANDEM_CONFIG_DIR")
	}
	return fs
}

// useProfile fills what the flags left unset from the app's saved profile.
func (o *runOptions) useProfile(env Env, fs *flag.FlagSet) error {
	if env.Profiles == nil {
		return fmt.Errorf("cannot read the app's saved profiles for %q", o.profile)
	}
	p, err := env.Profiles(o.profile)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["base-url"] {
		o.baseURL = p.BaseURL
	}
	if !set["model"] {
		o.model = p.Model
	}
	if !set["dialect"] && p.Dialect != "" {
		o.dialect, o.variant = p.Dialect, p.Variant
	}
	if o.key == "" {
		o.key = p.APIKey
	}
	if !set["temperature"] {
		o.sampling.Temperature = p.Sampling.Temperature
	}
	if !set["top-p"] {
		o.sampling.TopP = p.Sampling.TopP
	}
	if !set["max-tokens"] {
		o.sampling.MaxTokens = p.Sampling.MaxTokens
	}
	if !set["context-tokens"] {
		o.plannerOpts.ContextTokens = p.ContextTokens
	}
	o.plannerOpts.SmallModel = o.plannerOpts.SmallModel || p.VisionOnDemand
	o.plannerOpts.UITree = o.plannerOpts.UITree || p.UITree
	o.actionCache = o.actionCache || p.ActionCache
	return nil
}

// check refuses what cannot run, naming the flag.
func (o *runOptions) check(fs *flag.FlagSet) error {
	switch {
	case o.dev == "" || (o.goal == "" && o.resume == "") || o.baseURL == "":
		return errors.New("--device, --goal (or --resume ID) and --base-url (or TANDEM_BASE_URL, or --profile) are required")
	case fs.NArg() > 0 || o.port <= 0 || o.port > 65535 || o.maxSteps <= 0 || o.timeout < 0:
		return errors.New("unexpected arguments, or a bad --adb-port, --max-steps or --timeout")
	case o.plannerOpts.ContextTokens < 0 || o.plannerOpts.VerbatimSteps < 0:
		return errors.New("--context-tokens and --verbatim-steps cannot be negative")
	}
	return nil
}

// planner is the model, its reply format and the planner's options.
func (o *runOptions) planner() (model.Planner, error) {
	d, err := dialect.New(o.dialect, o.variant)
	if err != nil {
		return nil, err
	}
	client, err := model.NewClient(model.ClientConfig{BaseURL: o.baseURL, APIKey: o.key, Model: o.model, Prices: model.DefaultPrices(),
		Sampling: model.DefaultSampling(o.dialect, o.variant).Over(o.sampling)})
	if err != nil {
		return nil, err
	}
	popt := o.plannerOpts
	if o.actionCache {
		popt.Cache = observe.NewActionCache[model.Plan](0)
	}
	return model.NewPlanner(client, d, popt), nil
}

// start opens the device and starts (or resumes) the run; the person's
// requests arrive on reqs, and desk is this computer's driver when the
// device is a display.
func (o *runOptions) start(ctx context.Context, env Env, planner model.Planner) (*engine.Run, host.Driver, <-chan engine.Request, error) {
	// Where the driver keeps the person's keyboard while it types: the same
	// folder as the app's, so whichever starts next repairs the other's crash.
	stateDir := datadir.KeyboardNotes(o.shared)
	server := adb.Server{Addr: "127.0.0.1:" + strconv.Itoa(o.port)}
	restored, err := adb.RestorePending(ctx, server, stateDir)
	if msg := adb.RestoredText(restored); msg != "" {
		fmt.Fprintln(env.Stderr, "run:", msg)
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, "run: could not give a keyboard back:", err)
	}
	phone, desk, err := openRunDevice(ctx, o.dev, adb.Options{Server: server, Serial: o.dev, StateDir: stateDir})
	if err != nil {
		return nil, nil, nil, err
	}
	reqs := make(chan engine.Request, 4)
	pr := &progress{env: env, json: o.json}
	cfg := engine.Config{Goal: o.goal, Device: phone, DeviceID: o.dev, Planner: planner,
		DataDir: o.dataDir, Settings: engine.Settings{Budget: engine.Budget{Steps: o.maxSteps}, Policy: engine.DefaultPolicy(),
			// The policy's label check ("Pay ¥99") needs the screen's tree.
			UITree: phone.Capabilities().UITree,
			Model:  o.model, Dialect: o.dialect, BaseURL: o.baseURL},
		Emitter: engine.EmitterFunc(func(e engine.Event) {
			pr.print(e)
			if e.Kind == engine.KindRequest {
				select {
				case reqs <- *e.Request:
				default:
				}
			}
		})}
	var r *engine.Run
	if o.resume != "" {
		cfg.Settings = engine.Settings{} // the record's
		r, err = engine.Resume(filepath.Join(o.dataDir, o.resume), cfg)
	} else {
		r, err = engine.New(cfg)
	}
	if err != nil {
		_ = phone.Close()
		return nil, nil, nil, err
	}
	if err := r.Start(ctx); err != nil {
		return nil, nil, nil, err
	}
	return r, desk, reqs, nil
}

// supervise answers the run's requests from stdin, hands the desktop back
// after the person's hand, and stops on the stop hotkey, Ctrl+C or the
// timeout, until the run ends; the exit code says whether it succeeded.
func supervise(ctx context.Context, env Env, r *engine.Run, desk host.Driver, reqs <-chan engine.Request, timeout time.Duration) int {
	lines := readLines(env.Stdin, r.Done())
	var limit <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		limit = t.C
	}
	var takeover, stopKey <-chan struct{}
	if desk != nil {
		takeover, stopKey = desk.Takeover(), desk.StopHotkey()
	}
	for {
		select {
		case <-takeover:
			handTakeover(ctx, env, r, desk, lines)
		case <-stopKey:
			fmt.Fprintln(env.Stderr, "run: stop hotkey pressed")
			_ = r.Stop(ctx)
		case <-ctx.Done():
			_ = r.Stop(context.WithoutCancel(ctx))
			<-r.Done()
			return ExitFail
		case <-limit:
			fmt.Fprintf(env.Stderr, "run: --timeout %s reached: stopping the run\n", timeout)
			_ = r.StopFor(context.WithoutCancel(ctx), engine.Cause{Code: engine.CauseTimeLimit, N: timeout.String()})
			<-r.Done()
			return ExitFail
		case <-r.Done():
			if res := r.Result(); res.State == engine.Done && res.Success {
				return ExitOK
			}
			return ExitFail
		case req := <-reqs:
			answerRequest(ctx, env, r, req, lines)
		}
	}
}
