package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"tandem/engine"
	"tandem/engine/device/adb"
	"tandem/engine/model"
	"tandem/engine/model/dialect"
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
	dataDir := fs.String("data-dir", "", "where to write the run record (default: user cache dir)")
	asJSON := fs.Bool("json", false, "print events as JSON lines")
	if err := fs.Parse(env.Args); err != nil {
		return ExitUsage
	}
	if *dev == "" || *goal == "" || *base == "" {
		fmt.Fprintln(env.Stderr, "run: --device, --goal and --base-url (or TANDEM_BASE_URL) are required")
		return ExitUsage
	}
	d, err := dialect.New(*dia, *variant)
	if err != nil {
		fmt.Fprintln(env.Stderr, "run:", err)
		return ExitUsage
	}
	client, err := model.NewClient(model.ClientConfig{BaseURL: *base, APIKey: os.Getenv("TANDEM_API_KEY"), Model: *mdl})
	if err != nil {
		fmt.Fprintln(env.Stderr, "run:", err)
		return ExitUsage
	}
	phone, err := adb.Open(ctx, adb.Options{Serial: *dev})
	if err != nil {
		fmt.Fprintln(env.Stderr, "run:", err)
		return ExitFail
	}
	if *dataDir == "" {
		if c, err := os.UserCacheDir(); err == nil {
			*dataDir = filepath.Join(c, "tandem", "runs")
		}
	}
	reqs := make(chan engine.Request, 4)
	r, err := engine.New(engine.Config{Goal: *goal, Device: phone, Planner: model.NewPlanner(client, d, model.PlannerOptions{}),
		DataDir: *dataDir, Settings: engine.Settings{Budget: engine.Budget{Steps: *maxSteps}, Policy: engine.DefaultPolicy(),
			Model: *mdl, Dialect: *dia, BaseURL: *base},
		Emitter: engine.EmitterFunc(func(e engine.Event) {
			printEvent(env, e, *asJSON)
			if e.Kind == engine.KindRequest && e.Request.Kind != engine.AskTakeOver {
				select {
				case reqs <- *e.Request:
				default:
				}
			}
		})})
	if err != nil {
		_ = phone.Close()
		fmt.Fprintln(env.Stderr, "run:", err)
		return ExitFail
	}
	if err := r.Start(ctx); err != nil {
		fmt.Fprintln(env.Stderr, "run:", err)
		return ExitFail
	}
	in := bufio.NewScanner(env.Stdin)
	for {
		select {
		case <-ctx.Done():
			_ = r.Stop(context.Background())
		case <-r.Done():
			res := r.Result()
			if res.State == engine.Done && res.Success {
				return ExitOK
			}
			return ExitFail
		case req := <-reqs:
			answerRequest(ctx, env, r, req, in)
		}
	}
}

func answerRequest(ctx context.Context, env Env, r *engine.Run, req engine.Request, in *bufio.Scanner) {
	switch req.Kind {
	case engine.AskConfirm:
		fmt.Fprint(env.Stderr, "allow? [y/N, empty stops] ")
	case engine.AskQuestion:
		fmt.Fprint(env.Stderr, "your answer (empty stops): ")
	default:
		fmt.Fprint(env.Stderr, "type c to continue, or a hint (empty stops): ")
	}
	if !in.Scan() || strings.TrimSpace(in.Text()) == "" {
		_ = r.Stop(ctx)
		return
	}
	t := strings.TrimSpace(in.Text())
	var err error
	switch {
	case req.Kind == engine.AskConfirm && strings.EqualFold(t, "y"):
		err = r.Confirm(ctx)
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

func printEvent(env Env, e engine.Event, asJSON bool) {
	if asJSON {
		b, _ := json.Marshal(e)
		fmt.Fprintln(env.Stdout, string(b))
		return
	}
	switch e.Kind {
	case engine.KindState:
		fmt.Fprintf(env.Stdout, "[%s] %s\n", e.State.State, e.State.Reason)
	case engine.KindStep:
		fmt.Fprintf(env.Stdout, "  step %d: %s -> %s (%d ms)\n", e.Step.N, e.Step.Action, e.Step.Result, e.Step.Ms)
	case engine.KindRequest:
		fmt.Fprintf(env.Stdout, "? %s: %s\n", e.Request.Kind, e.Request.Message)
	case engine.KindUsage:
		fmt.Fprintf(env.Stdout, "  usage: %d calls, %d tokens\n", e.Usage.Calls, e.Usage.Total.PromptTokens+e.Usage.Total.CompletionTokens)
	case engine.KindDone:
		fmt.Fprintf(env.Stdout, "%s success=%v: %s%s\n", e.Done.State, e.Done.Success, e.Done.Summary, e.Done.Reason)
		for _, p := range e.Done.Pending {
			fmt.Fprintln(env.Stdout, "  pending:", p)
		}
	}
}
