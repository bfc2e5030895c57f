package eval

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"tandem/backend"
	"tandem/devices/adb"
	"tandem/engine"
	"tandem/vphone/screens"
)

// Result is one task run, as `tandem eval --json` prints it.
type Result struct {
	Task        string  `json:"task"`
	Template    string  `json:"template"`
	Tier        Tier    `json:"tier"`
	Goal        string  `json:"goal"`
	Success     bool    `json:"success"`
	ClaimedDone bool    `json:"claimed_done"`
	Steps       int     `json:"steps"`
	ModelCalls  int     `json:"model_calls"`
	Tokens      int     `json:"tokens"`
	Cost        float64 `json:"cost"`
	Seconds     float64 `json:"seconds"`
	// Ended is how the run ended (done, failed, stopped) or "error" when
	// it could not start; Error says why.
	Ended     string `json:"ended"`
	Confirmed int    `json:"confirmations,omitempty"` // confirmations the task answered
	Run       string `json:"run,omitempty"`           // the record's id, for History
	Device    string `json:"device,omitempty"`
	Error     string `json:"error,omitempty"`
}

// Config is a suite's run: where, with which model, how often.
type Config struct {
	Backend *backend.Backend
	// ADB is the adb server's address the backend uses (its shell reads
	// and sets the phones' state).
	ADB string
	// Devices are phones to use; none: Phones virtual phones of its own.
	Devices []string
	Phones  int
	Choice  backend.RunChoice
	// ChoiceFor, when set, is the model choice of each task's run instead
	// of Choice (the oracle's names the task).
	ChoiceFor func(Task) backend.RunChoice
	Repeat    int
	// Tweak changes each run's setup (the features a suite runs without).
	Tweak func(*backend.Setup)
	// Faults are turned on in the virtual phones it starts (with Seed);
	// Devices given take none.
	Faults Faults
	Seed   uint64
	// TaskTime bounds one task run (0: 5 minutes).
	TaskTime time.Duration
	// Started and Finished are told of each task run (from the runs'
	// goroutines, one call at a time).
	Started  func(t Task, device string)
	Finished func(Result)
}

// adbPhone is a phone's shell through the adb server.
type adbPhone struct {
	srv    adb.Server
	serial string
}

func (p adbPhone) Shell(ctx context.Context, cmd string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	res, err := p.srv.Shell(ctx, p.serial, true, cmd)
	if err != nil {
		return "", err
	}
	if res.Exit != 0 {
		return string(res.Stdout), fmt.Errorf("%s: exit %d: %s", cmd, res.Exit, res.Output())
	}
	return string(res.Stdout), nil
}

// Run plays tasks (each Repeat times) on the devices at once, a task at a
// time on each, and returns the results in the order the tasks were given.
func Run(ctx context.Context, c Config, tasks []Task) ([]Result, error) {
	devs := c.Devices
	if len(devs) == 0 {
		for range max(1, c.Phones) {
			e, err := c.Backend.StartVirtualPhone(ctx)
			if err != nil {
				return nil, fmt.Errorf("starting a virtual phone: %w", err)
			}
			devs = append(devs, e.ID)
			if p, ok := c.Backend.VirtualPhone(e.ID); ok {
				f := c.Faults
				p.SetChaos(screens.Chaos{DropChars: f.DropChars, PopupRate: f.Popup, SlowFor: f.Slow, ShiftAfter: f.Shift, Seed: c.Seed + uint64(len(devs))})
			}
		}
	} else if c.Faults != (Faults{}) {
		return nil, errors.New("faults are for the virtual phones eval starts: leave out --device")
	}
	reqs := newRequests()
	c.Backend.Listen(backend.NotifierFunc(reqs.event))
	type job struct {
		i int
		t Task
	}
	var jobs []job
	for k := range max(1, c.Repeat) {
		for i, t := range tasks {
			jobs = append(jobs, job{k*len(tasks) + i, t})
		}
	}
	results := make([]Result, len(jobs))
	queue := make(chan job)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, d := range devs {
		wg.Go(func() {
			ph := adbPhone{srv: adb.Server{Addr: c.ADB}, serial: d}
			for j := range queue {
				if c.Started != nil {
					mu.Lock()
					c.Started(j.t, d)
					mu.Unlock()
				}
				res := c.runOne(ctx, ph, d, j.t, reqs)
				results[j.i] = res
				if c.Finished != nil {
					mu.Lock()
					c.Finished(res)
					mu.Unlock()
				}
			}
		})
	}
	for _, j := range jobs {
		select {
		case queue <- j:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(queue)
	wg.Wait()
	return results, ctx.Err()
}

// runOne sets the task up on the phone, runs it as a normal run, answers
// what it asks as the task says, and reads the phone.
func (c Config) runOne(ctx context.Context, ph adbPhone, dev string, t Task, reqs *requests) (res Result) {
	res = Result{Task: t.ID, Template: t.Template, Tier: t.Tier, Goal: t.Goal, Device: dev, Ended: "error"}
	start := time.Now()
	defer func() { res.Seconds = time.Since(start).Seconds() }()
	for _, cmd := range t.Spec.Setup {
		if _, err := ph.Shell(ctx, cmd); err != nil {
			res.Error = "set-up: " + err.Error()
			return res
		}
	}
	choice := c.Choice
	if c.ChoiceFor != nil {
		choice = c.ChoiceFor(t)
	}
	setup, err := c.Backend.RunSetup(choice)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	if c.Tweak != nil {
		c.Tweak(&setup)
	}
	snap, err := c.Backend.Launch(ctx, dev, t.Goal, setup)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	r, err := c.Backend.Run(snap.ID)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.Run = r.ID()
	asks := reqs.watch(r.ID())
	defer reqs.forget(r.ID())
	limit := c.TaskTime
	if limit <= 0 {
		limit = 5 * time.Minute
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for waiting := true; waiting; {
		select {
		case <-r.Done():
			waiting = false
		case <-ctx.Done():
			_ = r.Stop(context.WithoutCancel(ctx))
			<-r.Done()
			waiting = false
		case <-timer.C:
			_ = r.StopFor(context.WithoutCancel(ctx), engine.Cause{Code: engine.CauseTimeLimit, N: limit.String()})
			<-r.Done()
			waiting = false
		case q := <-asks:
			if q.Kind == engine.AskConfirm {
				res.Confirmed++
			}
			answer(ctx, r, q, t.Spec.Confirm)
		}
	}
	out, _ := r.Wait(context.WithoutCancel(ctx))
	res.Ended = out.State.String()
	res.ClaimedDone = out.State == engine.Done && out.Success
	res.Steps, res.ModelCalls = out.Steps, out.Calls
	res.Tokens = out.Usage.PromptTokens + out.Usage.CompletionTokens
	res.Cost = out.Usage.Cost
	check, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	ok, err := t.Spec.Check(check, ph, Outcome{ClaimedDone: res.ClaimedDone})
	if err != nil {
		res.Error = "check: " + err.Error()
	}
	res.Success = ok && err == nil
	return res
}

// answer is the task's person: a confirmation as the goal says, a
// question with what the goal already says, anything else (a loop, a
// budget, a broken model or phone) ends the run, since no one is there.
func answer(ctx context.Context, r *engine.Run, q engine.Request, a Answer) {
	var err error
	switch q.Kind {
	case engine.AskConfirm:
		if a == Allow {
			err = r.Confirm(ctx)
		} else {
			err = r.Deny(ctx, "the person did not ask for this")
		}
	case engine.AskQuestion:
		err = r.Answer(ctx, "Do what the task says; I have nothing to add.")
	case engine.AskTakeOver, engine.AskLoop, engine.AskBudget, engine.AskModelError, engine.AskDevice:
		err = r.Stop(ctx)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		_ = r.Stop(context.WithoutCancel(ctx))
	}
}

// requests hands each run's requests to the goroutine that runs it.
// A request that comes before its run is watched (the run starts asking
// the moment Launch returns) waits in early.
type requests struct {
	mu    sync.Mutex
	runs  map[string]chan engine.Request
	early map[string][]engine.Request
}

func newRequests() *requests {
	return &requests{runs: map[string]chan engine.Request{}, early: map[string][]engine.Request{}}
}

func (q *requests) watch(run string) <-chan engine.Request {
	q.mu.Lock()
	defer q.mu.Unlock()
	ch := make(chan engine.Request, 16)
	for _, r := range q.early[run] {
		ch <- r
	}
	delete(q.early, run)
	q.runs[run] = ch
	return ch
}

func (q *requests) forget(run string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.runs, run)
	delete(q.early, run)
}

func (q *requests) event(_ string, data any) {
	e, ok := data.(engine.Event)
	if !ok {
		return
	}
	var req *engine.Request
	switch {
	case e.Kind == engine.KindRequest:
		req = e.Request
	case e.Kind == engine.KindState && e.State != nil && e.State.State == engine.Manual && e.State.By == "take_over":
		req = &engine.Request{Kind: engine.AskTakeOver}
	}
	if req == nil {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	ch := q.runs[e.Run]
	if ch == nil {
		if len(q.early[e.Run]) < 16 {
			q.early[e.Run] = append(q.early[e.Run], *req)
		}
		return
	}
	select {
	case ch <- *req:
	default: // a run asks one thing at a time: sixteen unanswered never happen
	}
}
