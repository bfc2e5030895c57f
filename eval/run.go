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

// TaskRun is one task run, as `tandem eval --json` prints it.
type TaskRun struct {
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
	// Finished is told of each task run (from the runs' goroutines, one
	// call at a time).
	Finished func(TaskRun)
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
func Run(ctx context.Context, c Config, tasks []Task) ([]TaskRun, error) {
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
	for _, d := range devs {
		if err := waitReady(ctx, adbPhone{srv: adb.Server{Addr: c.ADB}, serial: d}); err != nil {
			return nil, fmt.Errorf("%s: %w", d, err)
		}
	}
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
	results := make([]TaskRun, len(jobs))
	queue := make(chan job)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, d := range devs {
		wg.Go(func() {
			ph := adbPhone{srv: adb.Server{Addr: c.ADB}, serial: d}
			for j := range queue {
				res := c.runOne(ctx, ph, d, j.t)
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

// waitReady waits (30 s at most) for a phone's shell to answer: a virtual
// phone just attached is offline to the adb server for a moment.
func waitReady(ctx context.Context, p adbPhone) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		_, err := p.Shell(ctx, "true")
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the phone did not answer in 30 s: %w", err)
		case <-tick.C:
		}
	}
}

// runOne sets the task up on the phone, runs it as a normal run, answers
// what it asks as the task says, and reads the phone.
func (c Config) runOne(ctx context.Context, ph adbPhone, dev string, t Task) (res TaskRun) {
	res = TaskRun{Task: t.ID, Template: t.Template, Tier: t.Tier, Goal: t.Goal, Device: dev, Ended: "error"}
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
	// An evaluation's runs keep no video: they are scored from the phone,
	// dozens at once, and a stream per phone would cost more than the run.
	setup.Video = false
	if c.Tweak != nil {
		c.Tweak(&setup)
	}
	snap, err := c.Backend.Launch(ctx, dev, t.Goal, setup)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	r, err := c.Backend.Run(snap.ID, backend.ByEvaluate())
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.Run = r.ID()
	// The run's own events (a subscriber gets its snapshot first, with a
	// request already pending): the door's notifier stays the window's.
	asks := make(chan engine.Request, 16)
	stopWatch := r.Subscribe(engine.EmitterFunc(func(e engine.Event) {
		if q := requestOf(e); q != nil {
			select {
			case asks <- *q:
			default: // a run asks one thing at a time: sixteen unanswered never happen
			}
		}
	}))
	defer stopWatch()
	res.Confirmed = c.supervise(ctx, r, asks, t.Spec)
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

// supervise is the task's person until the run ends: it answers what the
// run asks, and stops it when the suite is stopped or the task's time is
// up. It returns how many confirmations it answered.
func (c Config) supervise(ctx context.Context, r *backend.RunHandle, asks <-chan engine.Request, spec Spec) (confirmed int) {
	limit := c.TaskTime
	if limit <= 0 {
		limit = 5 * time.Minute
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for {
		select {
		case <-r.Done():
			return confirmed
		case <-ctx.Done():
			_ = r.Stop(context.WithoutCancel(ctx))
			<-r.Done()
			return confirmed
		case <-timer.C:
			_ = r.StopFor(context.WithoutCancel(ctx), engine.Cause{Code: engine.CauseTimeLimit, N: limit.String()})
			<-r.Done()
			return confirmed
		case q := <-asks:
			if q.Kind == engine.AskConfirm {
				confirmed++
			}
			answer(ctx, r, q, spec)
		}
	}
}

// answer is the task's person: a confirmation as the goal says, a
// question with what the goal already says, anything else (a loop, a
// budget, a broken model or phone) ends the run, since no one is there.
func answer(ctx context.Context, r *backend.RunHandle, q engine.Request, spec Spec) {
	var err error
	switch q.Kind {
	case engine.AskConfirm:
		if spec.Confirm == Allow {
			err = r.Confirm(ctx)
		} else {
			err = r.Deny(ctx, "the person did not ask for this")
		}
	case engine.AskQuestion:
		reply := spec.Reply
		if reply == "" {
			reply = "Do what the task says; I have nothing to add."
		}
		err = r.Answer(ctx, reply)
	case engine.AskTakeOver, engine.AskLoop, engine.AskBudget, engine.AskModelError, engine.AskDevice:
		err = r.Stop(ctx)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		_ = r.Stop(context.WithoutCancel(ctx))
	}
}

// requestOf is what an event asks of the person: a request, one pending
// in a snapshot, or a take-over the model asked for.
func requestOf(e engine.Event) *engine.Request {
	switch {
	case e.Kind == engine.KindRequest:
		return e.Request
	case e.Kind == engine.KindSnapshot && e.Snapshot != nil:
		return e.Snapshot.Request
	case e.Kind == engine.KindState && e.State != nil && e.State.State == engine.Manual && e.State.By == "take_over":
		return &engine.Request{Kind: engine.AskTakeOver}
	}
	return nil
}
