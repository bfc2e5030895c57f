package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"tandem/devices/adb"
	"tandem/engine"
	"tandem/engine/model"
	"tandem/engine/model/dialect"
	"tandem/engine/observe"
	"tandem/internal/datadir"
)

// runRun is `tandem run`: a headless run on one phone with live progress.
// Requests for the person (confirm, questions, escalations) are asked on
// stdin; an empty line or end of input stops the run. Exit 0 only when the
// run finished with success.
func runRun(ctx context.Context, env Env) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	dev := fs.String("device", "", "adb serial of the phone, or desktop:N for this computer's display N (required)")
	goal := fs.String("goal", "", "what the agent should do (required)")
	dia := fs.String("dialect", "tools", "model dialect: tools, autoglm, uitars, json")
	variant := fs.String("variant", "", "dialect variant")
	mdl := fs.String("model", os.Getenv("TANDEM_MODEL"), "model name")
	base := fs.String("base-url", os.Getenv("TANDEM_BASE_URL"), "OpenAI-compatible base URL")
	maxSteps := fs.Int("max-steps", 50, "step budget")
	dataDir := fs.String("data-dir", "", "where to write the run record (default: the data dir's runs folder, as the app, so its History lists the run; env TANDEM_DATA_DIR moves the data dir)")
	resume := fs.String("resume", "", "continue the interrupted run with this id from its record (goal and settings come from it)")
	asJSON := fs.Bool("json", false, "print events as JSON lines")
	port := fs.Int("adb-port", runADBPort(), "port of the adb server (env TANDEM_ADB_PORT, else ANDROID_ADB_SERVER_PORT)")
	timeout := fs.Duration("timeout", 0, "stop the run after this long (e.g. 10m; 0: no limit)")
	var own model.Sampling
	fs.Func("temperature", "sampling temperature (default: the dialect's reference, 0 for most)", floatFlag(&own.Temperature, 0, 2))
	fs.Func("top-p", "nucleus sampling top_p (default: the dialect's reference)", floatFlag(&own.TopP, 0.001, 1))
	fs.IntVar(&own.MaxTokens, "max-tokens", 0, "reply token limit (default: the dialect's reference)")
	var popt model.PlannerOptions
	fs.IntVar(&popt.ContextTokens, "context-tokens", 0, "the model's context length; the history sent is trimmed to fit (default 32768)")
	fs.IntVar(&popt.VerbatimSteps, "verbatim-steps", 0, "recent steps shown in full; older ones are summarized (default 3)")
	fs.BoolVar(&popt.SmallModel, "vision-on-demand", false, "send a screenshot only when the UI tree is not enough (tools and json dialects)")
	fs.BoolVar(&popt.UITree, "ui-tree", false, "the model also reads the compact UI tree as text (tools dialect)")
	actionCache := fs.Bool("action-cache", false, "reuse a decision for an identical screen at the same step (each reuse is marked in the record)")
	profile := fs.String("profile", "", "use a model profile saved in the app (its URL, model, reply format and key); flags given here win")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "Usage: tandem run --device ID --goal TEXT (--base-url URL | --profile NAME) [options]")
		fmt.Fprintln(env.Stderr, "Run one task on a phone without the window, with live progress.")
		fs.PrintDefaults()
		fmt.Fprintln(env.Stderr, "")
		printEnvironment(env.Stderr, "TANDEM_BASE_URL", "TANDEM_MODEL", "TANDEM_API_KEY", "TANDEM_ADB_PORT", "ANDROID_ADB_SERVER_PORT", "TANDEM_CONFIG_DIR")
	}
	if code, ok := parseFlags(fs, env.Args); !ok {
		return code
	}
	key := os.Getenv("TANDEM_API_KEY")
	if *profile != "" {
		if env.Profiles == nil {
			fmt.Fprintf(env.Stderr, "run: cannot read the app's saved profiles for %q\n", *profile)
			return ExitUsage
		}
		p, err := env.Profiles(*profile)
		if err != nil {
			fmt.Fprintln(env.Stderr, "run:", err)
			return ExitUsage
		}
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["base-url"] {
			*base = p.BaseURL
		}
		if !set["model"] {
			*mdl = p.Model
		}
		if !set["dialect"] && p.Dialect != "" {
			*dia, *variant = p.Dialect, p.Variant
		}
		if key == "" {
			key = p.APIKey
		}
		if !set["temperature"] {
			own.Temperature = p.Sampling.Temperature
		}
		if !set["top-p"] {
			own.TopP = p.Sampling.TopP
		}
		if !set["max-tokens"] {
			own.MaxTokens = p.Sampling.MaxTokens
		}
		if !set["context-tokens"] {
			popt.ContextTokens = p.ContextTokens
		}
		popt.SmallModel = popt.SmallModel || p.VisionOnDemand
		popt.UITree = popt.UITree || p.UITree
		*actionCache = *actionCache || p.ActionCache
	}
	shared := datadir.Dir(os.Getenv)
	if *dataDir == "" {
		*dataDir = datadir.Runs(shared) // where the app keeps its records too
	}
	if *resume != "" && *dev == "" {
		*dev = recordedDevice(filepath.Join(*dataDir, *resume))
	}
	if *dev == "" || (*goal == "" && *resume == "") || *base == "" {
		fmt.Fprintln(env.Stderr, "run: --device, --goal (or --resume ID) and --base-url (or TANDEM_BASE_URL, or --profile) are required")
		return ExitUsage
	}
	if fs.NArg() > 0 || *port <= 0 || *port > 65535 || *maxSteps <= 0 || *timeout < 0 {
		fmt.Fprintln(env.Stderr, "run: unexpected arguments, or a bad --adb-port, --max-steps or --timeout")
		return ExitUsage
	}
	d, err := dialect.New(*dia, *variant)
	if err != nil {
		fmt.Fprintln(env.Stderr, "run:", err)
		return ExitUsage
	}
	client, err := model.NewClient(model.ClientConfig{BaseURL: *base, APIKey: key, Model: *mdl, Prices: model.DefaultPrices(),
		Sampling: model.DefaultSampling(*dia, *variant).Over(own)})
	if err != nil {
		fmt.Fprintln(env.Stderr, "run:", err)
		return ExitUsage
	}
	if *actionCache {
		popt.Cache = observe.NewActionCache[model.Plan](0)
	}
	if popt.ContextTokens < 0 || popt.VerbatimSteps < 0 {
		fmt.Fprintln(env.Stderr, "run: --context-tokens and --verbatim-steps cannot be negative")
		return ExitUsage
	}
	// Where the driver keeps the person's keyboard while it types: the same
	// folder as the app's, so whichever starts next repairs the other's crash.
	stateDir := datadir.KeyboardNotes(shared)
	server := adb.Server{Addr: "127.0.0.1:" + strconv.Itoa(*port)}
	restored, err := adb.RestorePending(ctx, server, stateDir)
	if msg := adb.RestoredText(restored); msg != "" {
		fmt.Fprintln(env.Stderr, "run:", msg)
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, "run: could not give a keyboard back:", err)
	}
	phone, desk, err := openRunDevice(ctx, *dev, adb.Options{Server: server, Serial: *dev, StateDir: stateDir})
	if err != nil {
		fmt.Fprintln(env.Stderr, "run:", err)
		return ExitFail
	}
	reqs := make(chan engine.Request, 4)
	pr := &progress{env: env, json: *asJSON}
	cfg := engine.Config{Goal: *goal, Device: phone, DeviceID: *dev, Planner: model.NewPlanner(client, d, popt),
		DataDir: *dataDir, Settings: engine.Settings{Budget: engine.Budget{Steps: *maxSteps}, Policy: engine.DefaultPolicy(),
			// The policy's label check ("Pay ¥99") needs the screen's tree.
			UITree: phone.Capabilities().UITree,
			Model:  *mdl, Dialect: *dia, BaseURL: *base},
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
	if *resume != "" {
		cfg.Settings = engine.Settings{} // the record's
		r, err = engine.Resume(filepath.Join(*dataDir, *resume), cfg)
	} else {
		r, err = engine.New(cfg)
	}
	if err != nil {
		_ = phone.Close()
		fmt.Fprintln(env.Stderr, "run:", err)
		return ExitFail
	}
	if err := r.Start(ctx); err != nil {
		fmt.Fprintln(env.Stderr, "run:", err)
		return ExitFail
	}
	lines := readLines(env.Stdin, r.Done())
	var limit <-chan time.Time
	if *timeout > 0 {
		t := time.NewTimer(*timeout)
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
			_ = r.Stop(context.Background())
			<-r.Done()
			return ExitFail
		case <-limit:
			fmt.Fprintf(env.Stderr, "run: --timeout %s reached: stopping the run\n", *timeout)
			_ = r.Stop(context.Background())
			<-r.Done()
			return ExitFail
		case <-r.Done():
			res := r.Result()
			if res.State == engine.Done && res.Success {
				return ExitOK
			}
			return ExitFail
		case req := <-reqs:
			answerRequest(ctx, env, r, req, lines)
		}
	}
}

// floatFlag parses a float flag within [lo, hi] into *dst, so an unset
// flag stays nil (the dialect's reference value) and 0 can be asked for.
func floatFlag(dst **float32, lo, hi float64) func(string) error {
	return func(v string) error {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 32)
		if err != nil || f < lo || f > hi {
			return fmt.Errorf("want a number from %g to %g", lo, hi)
		}
		g := float32(f)
		*dst = &g
		return nil
	}
}

// recordedDevice is the device a recorded run used ("" when unreadable).
func recordedDevice(dir string) string {
	entries, _, err := engine.ReadRecord(dir)
	if err != nil || len(entries) == 0 {
		return ""
	}
	return entries[0].Device
}

// readLines delivers stdin's lines until it ends (then the channel closes)
// or done closes; reading happens off the main loop so Ctrl+C and the run's
// end are never stuck behind a prompt.
func readLines(in io.Reader, done <-chan struct{}) <-chan string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			select {
			case ch <- sc.Text():
			case <-done:
				return
			}
		}
	}()
	return ch
}

// answerRequest asks the person on the terminal and passes the answer on.
// An empty line (or the end of input) stops the run, except at a take-over,
// where Enter hands control back.
func answerRequest(ctx context.Context, env Env, r *engine.Run, req engine.Request, lines <-chan string) {
	switch req.Kind {
	case engine.AskConfirm:
		fmt.Fprint(env.Stderr, "allow? [y = yes, n or a reason = no, empty stops] ")
	case engine.AskQuestion:
		fmt.Fprint(env.Stderr, "your answer (empty stops): ")
	case engine.AskTakeOver:
		fmt.Fprint(env.Stderr, "do it on the phone, then press Enter to hand back (optionally type a note first; \"stop\" stops): ")
	default:
		fmt.Fprint(env.Stderr, "type c to continue, or a hint (empty stops): ")
	}
	var line string
	var ok bool
	select {
	case line, ok = <-lines:
	case <-r.Done():
		return
	case <-ctx.Done():
		return // the main loop stops the run
	}
	t := strings.TrimSpace(line)
	if !ok || (t == "" && req.Kind != engine.AskTakeOver) || (req.Kind == engine.AskTakeOver && strings.EqualFold(t, "stop")) {
		_ = r.Stop(ctx)
		return
	}
	var err error
	switch {
	case req.Kind == engine.AskTakeOver:
		err = r.HandBack(ctx, t, nil)
	case req.Kind == engine.AskConfirm && strings.EqualFold(t, "y"):
		err = r.Confirm(ctx)
	case req.Kind == engine.AskConfirm && (strings.EqualFold(t, "n") || strings.EqualFold(t, "no")):
		err = r.Deny(ctx, "")
	case req.Kind == engine.AskConfirm:
		err = r.Deny(ctx, t)
	case req.Kind != engine.AskQuestion && strings.EqualFold(t, "c"):
		err = r.Resume(ctx)
	default:
		err = r.Answer(ctx, t)
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, "run:", err)
	}
}

// runADBPort is the adb server port: TANDEM_ADB_PORT (as the app uses),
// else ANDROID_ADB_SERVER_PORT, else 5037.
func runADBPort() int {
	if p, err := strconv.Atoi(os.Getenv("TANDEM_ADB_PORT")); err == nil && p > 0 {
		return p
	}
	return defaultADBPort()
}

// progress prints a run's events as they happen. Events of one run never
// arrive concurrently.
type progress struct {
	env     Env
	json    bool
	thought string
	calls   int
}

func (p *progress) print(e engine.Event) {
	out := p.env.Stdout
	if p.json {
		b, _ := json.Marshal(e)
		fmt.Fprintln(out, string(b))
		return
	}
	switch e.Kind {
	case engine.KindState:
		if e.State.Reason != "" {
			fmt.Fprintf(out, "[%s] %s\n", e.State.State, e.State.Reason)
		} else {
			fmt.Fprintf(out, "[%s]\n", e.State.State)
		}
	case engine.KindPlan:
		if t := strings.TrimSpace(e.Plan.Thought); t != "" && t != p.thought {
			p.thought = t
			fmt.Fprintf(out, "  thinking: %s\n", t)
		}
	case engine.KindStep:
		who := ""
		if e.Step.ByPerson {
			who = " (by you)"
		}
		fmt.Fprintf(out, "  step %d%s: %s -> %s (%d ms)\n", e.Step.N, who, e.Step.Action, e.Step.Result, e.Step.Ms)
	case engine.KindWaiting:
		// Every second would flood a log: the first notice at 2 s, then
		// every 5 s.
		if s := e.Waiting.ElapsedMs / 1000; s == 2 || (s > 0 && s%5 == 0) {
			fmt.Fprintf(out, "  waiting for the model (%d s)…\n", s)
		}
	case engine.KindRequest:
		fmt.Fprintf(out, "? %s: %s\n", e.Request.Kind, e.Request.Message)
	case engine.KindUsage:
		if e.Usage.Calls == p.calls {
			return // printed once per model call
		}
		p.calls = e.Usage.Calls
		fmt.Fprintf(out, "  usage: %d calls, %d tokens\n", e.Usage.Calls, e.Usage.Total.PromptTokens+e.Usage.Total.CompletionTokens)
	case engine.KindDone:
		fmt.Fprintf(out, "%s success=%v: %s%s\n", e.Done.State, e.Done.Success, e.Done.Summary, e.Done.Reason)
		for _, pend := range e.Done.Pending {
			fmt.Fprintln(out, "  pending:", pend)
		}
	}
}
