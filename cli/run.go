package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"tandem/backend"
	"tandem/engine"
)

// runRun is `tandem run`: a headless run on one device with live
// progress, through the same backend as the window: the person's settings,
// model profile, policy and prices, the same device registry, records and
// desktop take-over. Requests for the person (confirm, questions,
// escalations) are asked on stdin; an empty line or end of input stops the
// run. Exit 0 only when the run finished with success.
func runRun(ctx context.Context, env Env) int {
	o, code, ok := parseRun(env)
	if !ok {
		return code
	}
	return runParsed(ctx, env, o)
}

// runParsed is tandem run once its options are read (tandem chore run
// comes in here too).
func runParsed(ctx context.Context, env Env, o runOptions) int {
	if o.many() {
		return runMany(ctx, env, o)
	}
	b := backend.New(o.config(env))
	defer b.Shutdown()
	setup, err := b.RunSetup(o.choice())
	if err != nil {
		fmt.Fprintln(env.Stderr, "run:", err)
		if errors.Is(err, backend.ErrNoModel) {
			fmt.Fprintln(env.Stderr, "run: or name one here: --base-url URL --model NAME (or TANDEM_BASE_URL and TANDEM_MODEL), with TANDEM_API_KEY when it needs a key")
		}
		return ExitUsage
	}
	fmt.Fprintln(env.Stderr, "run:", strings.ReplaceAll(describe(setup), "\n", "\nrun: "))
	reqs := make(chan engine.Request, 4)
	pr := &progress{env: env, json: o.json}
	b.Listen(backend.NotifierFunc(func(name string, data any) {
		e, ok := data.(engine.Event)
		if !ok {
			return
		}
		pr.print(e)
		if req := requestOf(e); req != nil {
			select {
			case reqs <- *req:
			default:
			}
		}
	}))
	if msg := b.RestoreKeyboards(ctx); msg != "" {
		fmt.Fprintln(env.Stderr, "run:", msg)
	}
	var snap engine.Snapshot
	if o.resume != "" {
		snap, err = b.Resume(ctx, o.resume, setup, backend.Given{Device: o.dev, Goal: o.goal})
	} else {
		snap, err = b.Launch(ctx, o.dev, o.goal, setup)
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, "run:", err)
		return ExitFail
	}
	r, err := b.Run(snap.ID, backend.ByCommandLine())
	if err != nil {
		fmt.Fprintln(env.Stderr, "run:", err)
		return ExitFail
	}
	// Ctrl+C stops the run from the signal's own goroutine: its first act
	// shuts the action gate (the context's end comes after, in supervise).
	defer env.stops.add(func() { _ = r.Stop(context.WithoutCancel(ctx)) })()
	return supervise(ctx, env, r, reqs, o.timeout)
}

// requestOf is what the person is asked on the terminal for event e: the
// run's requests, and a take-over the person made themselves (their hand
// on this computer's mouse), which the terminal hands back on Enter.
func requestOf(e engine.Event) *engine.Request {
	switch {
	case e.Kind == engine.KindRequest:
		return e.Request
	case e.Kind == engine.KindState && e.State.State == engine.Manual && e.State.By == "take_over":
		return &engine.Request{Kind: engine.AskTakeOver, Message: "you took over"}
	}
	return nil
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

// answerRequest asks the person on the terminal and passes the answer on,
// read from the one list of answers (readAnswer). The end of input stops
// the run. A confirmation's prompt names what it would press, as its
// progress line does; with ownLine (several runs on one terminal) the
// prompt is a whole line: the other runs' progress goes on below it, never
// after it on the same line (issue 49 item 14).
func answerRequest(ctx context.Context, env Env, r *backend.RunHandle, req engine.Request, lines <-chan string, ownLine bool) {
	if ownLine {
		env.Stderr = endLine{env.Stderr}
	}
	p := prompt(req.Kind)
	if l := req.Label; l != "" && req.Kind == engine.AskConfirm {
		p = "allow? press “" + escapeControls(clipLine(l)) + "”" + strings.TrimPrefix(p, "allow?")
	}
	fmt.Fprint(env.Stderr, p)
	var line string
	var ok bool
	select {
	case line, ok = <-lines:
	case <-r.Done():
		return
	case <-ctx.Done():
		return // the main loop stops the run
	}
	a, text := engine.AnswerStop, ""
	if ok {
		a, text = readAnswer(req.Kind, line)
	}
	if err := give(ctx, r, a, text); err != nil {
		fmt.Fprintln(env.Stderr, "run:", err)
	}
}

// give passes answer a (with its text) to the run.
func give(ctx context.Context, r *backend.RunHandle, a engine.Answer, text string) error {
	switch a {
	case engine.AnswerStop:
		return r.Stop(ctx)
	case engine.AnswerAllow:
		return r.Confirm(ctx)
	case engine.AnswerDeny:
		return r.Deny(ctx, text)
	case engine.AnswerReply, engine.AnswerHint:
		return r.Answer(ctx, text)
	case engine.AnswerHandBack:
		return r.HandBack(ctx, text, nil)
	case engine.AnswerTakeOver:
		return r.TakeOver(ctx) // the run is the person's: requestOf asks for the hand back
	case engine.AnswerGoOn:
		return r.Resume(ctx)
	}
	return fmt.Errorf("no answer %q", a)
}

// progress prints a run's events as they happen. Events of one run never
// arrive concurrently.
type progress struct {
	env  Env
	json bool
	// device is put in each JSON line when several runs share the
	// terminal ("" for one run: its lines stay as they always were).
	device  string
	thought string
	calls   int
	ahead   int // the model call's place in the model's queue, last printed
}

func (p *progress) print(e engine.Event) {
	out := termSafe{p.env.Stdout} // the model's words must not command the terminal
	if p.json {
		var v any = e
		if p.device != "" {
			v = struct {
				Device string `json:"device"`
				engine.Event
			}{p.device, e}
		}
		b, _ := json.Marshal(v)
		fmt.Fprintln(out, string(b))
		return
	}
	switch e.Kind {
	case engine.KindState:
		if e.State.Reason != "" {
			fmt.Fprintf(out, "[%s] %s\n", e.State.State, clipLine(e.State.Reason))
		} else {
			fmt.Fprintf(out, "[%s]\n", e.State.State)
		}
	case engine.KindPlan:
		if t := strings.TrimSpace(e.Plan.Thought); t != "" && t != p.thought {
			p.thought = t
			fmt.Fprintf(out, "  thinking: %s\n", clipLine(t))
		}
	case engine.KindStep:
		who := ""
		if e.Step.ByPerson {
			who = " (by you)"
		}
		fmt.Fprintf(out, "  step %d%s: %s -> %s (%d ms)\n", e.Step.N, who, clipLine(e.Step.What()), clipLine(e.Step.Result), e.Step.Ms)
	case engine.KindWaiting:
		// A place in the model's queue (other runs' requests ahead) is
		// printed as it changes; the time waited not every second, which
		// would flood a log: the first notice at 2 s, then every 5 s.
		a := e.Waiting.Ahead
		if a != p.ahead {
			p.ahead = a
			if a > 0 {
				fmt.Fprintf(out, "  waiting for the model: %d ahead…\n", a)
			}
		} else if s := e.Waiting.ElapsedMs / 1000; s == 2 || (s > 0 && s%5 == 0) {
			if a > 0 {
				fmt.Fprintf(out, "  waiting for the model: %d ahead (%d s)…\n", a, s)
			} else {
				fmt.Fprintf(out, "  waiting for the model (%d s)…\n", s)
			}
		}
	case engine.KindRequest:
		if l := e.Request.Label; l != "" && e.Request.Kind == engine.AskConfirm {
			fmt.Fprintf(out, "? %s: press “%s” (%s)\n", e.Request.Kind, clipLine(l), clipLine(e.Request.Message))
			break
		}
		fmt.Fprintf(out, "? %s: %s\n", e.Request.Kind, clipLine(e.Request.Message))
	case engine.KindUsage:
		if e.Usage.Calls == p.calls {
			return // printed once per model call
		}
		p.calls = e.Usage.Calls
		fmt.Fprintf(out, "  usage: %d calls, %d tokens\n", e.Usage.Calls, e.Usage.Total.PromptTokens+e.Usage.Total.CompletionTokens)
	case engine.KindDone:
		fmt.Fprintf(out, "%s success=%v: %s\n", e.Done.State, e.Done.Success, clipLine(e.Done.Summary+e.Done.Reason))
		for _, pend := range e.Done.Pending {
			fmt.Fprintln(out, "  pending:", clipLine(pend))
		}
	case engine.KindSnapshot, engine.KindThought, engine.KindRetry, engine.KindManual, engine.KindPerson:
		// not printed: the state and steps say it
	}
}

// maxLine is the most of a model's words one progress line shows: a reply
// of megabytes is the record's to keep, not the terminal's to scroll.
const maxLine = 2000

// clipLine is s cut to maxLine characters, saying how much more the
// record has.
func clipLine(s string) string {
	r := []rune(s)
	if len(r) <= maxLine {
		return s
	}
	return fmt.Sprintf("%s… (%d more characters, in the run's record)", string(r[:maxLine]), len(r)-maxLine)
}
