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

	"tandem/engine"
	"tandem/engine/device/adb"
	"tandem/engine/model"
	"tandem/engine/model/dialect"
	"tandem/internal/datadir"
)

// runRun is `tandem run`: a headless run on one phone with live progress.
// Requests for the person (confirm, questions, escalations) are asked on
// stdin; an empty line or end of input stops the run. Exit 0 only when the
// run finished with success.
func runRun(ctx context.Context, env Env) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	dev := fs.String("device", "", "adb serial of the phone (required)")
	goal := fs.String("goal", "", "what the agent should do (required)")
	dia := fs.String("dialect", "tools", "model dialect: tools, autoglm, uitars, json")
	variant := fs.String("variant", "", "dialect variant")
	mdl := fs.String("model", os.Getenv("TANDEM_MODEL"), "model name")
	base := fs.String("base-url", os.Getenv("TANDEM_BASE_URL"), "OpenAI-compatible base URL")
	maxSteps := fs.Int("max-steps", 50, "step budget")
	dataDir := fs.String("data-dir", "", "where to write the run record (default: the app's, so its History lists the run; env TANDEM_DATA_DIR)")
	resume := fs.String("resume", "", "continue the interrupted run with this id from its record (goal and settings come from it)")
	asJSON := fs.Bool("json", false, "print events as JSON lines")
	port := fs.Int("adb-port", runADBPort(), "port of the adb server (env TANDEM_ADB_PORT, else ANDROID_ADB_SERVER_PORT)")
	if err := fs.Parse(env.Args); err != nil {
		return ExitUsage
	}
	if *dataDir == "" {
		*dataDir = datadir.Runs(datadir.Dir())
	}
	if *resume != "" && *dev == "" {
		*dev = recordedDevice(filepath.Join(*dataDir, *resume))
	}
	if *dev == "" || (*goal == "" && *resume == "") || *base == "" {
		fmt.Fprintln(env.Stderr, "run: --device, --goal (or --resume ID) and --base-url (or TANDEM_BASE_URL) are required")
		return ExitUsage
	}
	if fs.NArg() > 0 || *port <= 0 || *port > 65535 || *maxSteps <= 0 {
		fmt.Fprintln(env.Stderr, "run: unexpected arguments, or a bad --adb-port or --max-steps")
		return ExitUsage
	}
	d, err := dialect.New(*dia, *variant)
	if err != nil {
		fmt.Fprintln(env.Stderr, "run:", err)
		return ExitUsage
	}
	client, err := model.NewClient(model.ClientConfig{BaseURL: *base, APIKey: os.Getenv("TANDEM_API_KEY"), Model: *mdl, Prices: model.DefaultPrices()})
	if err != nil {
		fmt.Fprintln(env.Stderr, "run:", err)
		return ExitUsage
	}
	stateDir := ""
	if *dataDir != "" {
		// Where the driver keeps the person's keyboard while it types, so a
		// crashed run can still give it back.
		stateDir = filepath.Join(filepath.Dir(*dataDir), "adb-state")
	}
	phone, err := adb.Open(ctx, adb.Options{Server: adb.Server{Addr: "127.0.0.1:" + strconv.Itoa(*port)}, Serial: *dev, StateDir: stateDir})
	if err != nil {
		fmt.Fprintln(env.Stderr, "run:", err)
		return ExitFail
	}
	reqs := make(chan engine.Request, 4)
	pr := &progress{env: env, json: *asJSON}
	cfg := engine.Config{Goal: *goal, Device: phone, DeviceID: *dev, Planner: model.NewPlanner(client, d, model.PlannerOptions{}),
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
	for {
		select {
		case <-ctx.Done():
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
