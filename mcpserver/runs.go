package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tandem/backend"
	"tandem/engine"
)

// tools are the server's tools over one backend.
type tools struct {
	b      *backend.Backend
	window bool
}

func ptr[T any](v T) *T { return &v }

func (t *tools) add(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "list_devices", Title: "List devices",
		Description: "Phones, virtual phones and this computer's displays Tandem can use, with whether each is free, running a task, or waiting for the person.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}}, t.listDevices)
	mcp.AddTool(s, &mcp.Tool{Name: "run_task", Title: "Run a task",
		Description: "Hand Tandem's own agent a goal on a device, with the person's model, confirmation policy and budgets. " +
			"The person sees the run live and may pause, take over or stop it; sensitive steps wait for the person. " +
			"Sends a progress notification at every step; cancelling the call stops the run at once. Returns the summary, final state, steps, cost and the record's id.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(true)}}, t.runTask)
	mcp.AddTool(s, &mcp.Tool{Name: "get_run", Title: "Get a run",
		Description: "A run's state now: running, waiting for the person (and for what, and how they can answer), or ended with its summary.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}}, t.getRun)
	mcp.AddTool(s, &mcp.Tool{Name: "stop_run", Title: "Stop a run",
		Description: "Stop a run now (no device action after it), or with graceful let the step under way finish first.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}}, t.stopRun)
	t.addDeviceTools(s)
}

// DeviceOut is one device as list_devices reports it.
type DeviceOut struct {
	ID      string `json:"id" jsonschema:"the device's id, for the other tools"`
	Name    string `json:"name"`
	Kind    string `json:"kind" jsonschema:"phone or desktop"`
	Virtual bool   `json:"virtual,omitempty"`
	Usable  bool   `json:"usable" jsonschema:"false when Tandem cannot drive it now; problem says why"`
	Problem string `json:"problem,omitempty"`
	Width   int    `json:"width"`
	Height  int    `json:"height"`
	State   string `json:"state" jsonschema:"free, running (a task runs on it), needs_person (its task waits for the person) or in_use (another Tandem drives it: held_by says who)"`
	Run     string `json:"run,omitempty" jsonschema:"the id of the task on it"`
	HeldBy  string `json:"held_by,omitempty" jsonschema:"who drives it in another Tandem: the window, tandem run with its process id, an MCP client by name"`
}

// DevicesOut is list_devices' result.
type DevicesOut struct {
	Devices []DeviceOut `json:"devices"`
}

func (t *tools) listDevices(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, DevicesOut, error) {
	list, err := t.b.ListDevices(ctx)
	if len(list) == 0 && err != nil {
		return nil, DevicesOut{}, err
	}
	runs := map[string]engine.Snapshot{}
	for _, s := range t.b.ActiveRuns() {
		if !s.State.Terminal() {
			runs[s.Device] = s
		}
	}
	out := DevicesOut{Devices: []DeviceOut{}}
	for _, e := range list {
		d := DeviceOut{ID: e.ID, Name: e.Name, Kind: string(e.Kind), Virtual: e.Virtual, Usable: e.Usable(), Problem: e.Problem,
			Width: e.Screen.W, Height: e.Screen.H, State: "free"}
		if e.HeldBy != nil {
			d.State, d.HeldBy = "in_use", e.HeldBy.Doing()
		}
		if s, ok := runs[e.ID]; ok {
			d.State, d.Run = "running", s.ID
			if s.State == engine.WaitingForUser {
				d.State = "needs_person"
			}
		}
		out.Devices = append(out.Devices, d)
	}
	return nil, out, nil
}

// RunTaskIn is run_task's input.
type RunTaskIn struct {
	Device     string `json:"device" jsonschema:"the device's id (list_devices)"`
	Goal       string `json:"goal" jsonschema:"what the agent should do, in the person's words"`
	MaxSteps   int    `json:"max_steps,omitempty" jsonschema:"a step budget for this run (default: the person's Settings)"`
	MaxMinutes int    `json:"max_minutes,omitempty" jsonschema:"a time budget in minutes for this run (default: the person's Settings)"`
}

// Waiting is what a run waits for from the person.
type Waiting struct {
	Kind    string `json:"kind" jsonschema:"confirm, question, take_over, loop, budget or error"`
	Message string `json:"message"`
	How     string `json:"how" jsonschema:"how the person can answer"`
}

// ModelWait is a run's model call that has no answer yet: waiting its
// turn behind other runs' requests to the same model (the profile's
// requests at once), or for the server's first word.
type ModelWait struct {
	Ahead   int    `json:"ahead" jsonschema:"requests to the same model that go before this run's (0: its request is at the server)"`
	Seconds int64  `json:"seconds" jsonschema:"how long the call has waited"`
	Message string `json:"message"`
}

// RunOut is a run as the tools report it.
type RunOut struct {
	ID       string   `json:"id"`
	Device   string   `json:"device"`
	Goal     string   `json:"goal"`
	State    string   `json:"state" jsonschema:"the engine's state: Planning, Executing, WaitingForUser, Paused, Manual, Done, Failed, Stopped…"`
	Ended    bool     `json:"ended"`
	Success  bool     `json:"success"`
	Summary  string   `json:"summary,omitempty" jsonschema:"the agent's summary, or why it ended"`
	Why      string   `json:"why,omitempty" jsonschema:"why it ended, when not by the agent's own finish: denied (the person said no), stopped_by_person, stopped_by_client, time_limit…"`
	Steps    int      `json:"steps"`
	Cost     float64  `json:"cost"`
	Currency string   `json:"currency,omitempty"`
	Record   string   `json:"record" jsonschema:"the run's record as a resource (its HTML report: record + /report)"`
	Waiting  *Waiting `json:"waiting,omitempty"`
	// Model is set while the run waits for the model.
	Model *ModelWait `json:"model_wait,omitempty"`
}

func (t *tools) runTask(ctx context.Context, req *mcp.CallToolRequest, in RunTaskIn) (*mcp.CallToolResult, RunOut, error) {
	if in.MaxSteps < 0 || in.MaxMinutes < 0 {
		return nil, RunOut{}, errors.New("max_steps and max_minutes cannot be negative")
	}
	client := clientName(req.Session)
	snap, err := t.b.StartRun(ctx, in.Device, in.Goal, backend.RunChoice{MaxSteps: in.MaxSteps, MaxMinutes: in.MaxMinutes,
		StartedBy: "mcp:" + client})
	if err != nil {
		return nil, RunOut{}, err
	}
	run, err := t.b.Run(snap.ID, backend.ByMCP(client))
	if err != nil {
		return nil, RunOut{}, err
	}
	out, err := t.follow(ctx, req, run)
	return nil, out, err
}

// follow reports run's steps as progress, asks the person what it needs
// them for (when no window can), and returns the run as it ended; the
// client's cancellation stops it (hard: no device action after).
func (t *tools) follow(ctx context.Context, req *mcp.CallToolRequest, run *backend.RunHandle) (RunOut, error) {
	q := newEventQueue()
	unsubscribe := run.Subscribe(engine.EmitterFunc(q.push))
	defer unsubscribe()
	token := req.Params.GetProgressToken()
	client := clientName(req.Session)
	asking := &asker{t: t, ss: req.Session, run: run.As(backend.ByMCPAsked(client)), client: client}
	defer asking.wait()
	for {
		select {
		case <-ctx.Done():
			stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			// The client's cancellation (or its leaving), not the person's.
			_ = run.StopFor(stopCtx, engine.Cause{Code: engine.CauseStoppedByClient, Detail: asking.client})
			<-run.Done()
			return t.runOut(ctx, run), ctx.Err()
		case <-run.Done():
			for _, e := range q.drain() { // the last steps before the end
				t.progress(ctx, req, token, e)
			}
			return t.runOut(ctx, run), nil
		case <-q.ready:
			for _, e := range q.drain() {
				t.progress(ctx, req, token, e)
				if e.Kind == engine.KindRequest && e.Request != nil {
					asking.ask(ctx, *e.Request)
				}
			}
		}
	}
}

// progress sends one notification per step of the run.
func (t *tools) progress(ctx context.Context, req *mcp.CallToolRequest, token any, e engine.Event) {
	if token == nil || e.Kind != engine.KindStep || e.Step == nil {
		return
	}
	who := ""
	if e.Step.ByPerson {
		who = " (by the person)"
	}
	_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(e.Step.N),
		Message: fmt.Sprintf("step %d%s: %s → %s", e.Step.N, who, e.Step.What(), e.Step.Result)})
}

// runOut is run as the tools report it.
func (t *tools) runOut(ctx context.Context, run *backend.RunHandle) RunOut {
	s := run.Snapshot()
	o := RunOut{ID: s.ID, Device: s.Device, Goal: s.Goal, State: s.State.String(), Ended: s.State.Terminal(),
		Steps: len(s.Steps), Cost: s.Usage.Total.Cost, Currency: s.Usage.Total.Currency, Record: "tandem://runs/" + s.ID}
	if o.Ended {
		res, _ := run.Wait(context.WithoutCancel(ctx)) // ended: it returns at once
		o.Success, o.Summary = res.Success, res.Summary
		if o.Summary == "" {
			o.Summary = res.Reason
		}
		if res.Why != nil {
			o.Why = res.Why.Code
		}
	}
	if s.State == engine.WaitingForUser && s.Request != nil {
		o.Waiting = &Waiting{Kind: string(s.Request.Kind), Message: s.Request.Message, How: t.how()}
	}
	if w := s.Waiting; w != nil && !o.Ended {
		o.Model = &ModelWait{Ahead: w.Ahead, Seconds: w.ElapsedMs / 1000, Message: "waiting for the model"}
		if w.Ahead > 0 {
			o.Model.Message = fmt.Sprintf("waiting for the model: %d ahead", w.Ahead)
		}
	}
	return o
}

// how says how the person can answer a run's request through this door.
func (t *tools) how() string {
	if t.window {
		return "the person answers in Tandem's window"
	}
	return "the person answers in Tandem's window (open it), or through this client if it can ask them (MCP elicitation); the run waits until then"
}

// RunIn names a run.
type RunIn struct {
	ID string `json:"id" jsonschema:"the run's id (run_task's result)"`
}

func (t *tools) getRun(ctx context.Context, req *mcp.CallToolRequest, in RunIn) (*mcp.CallToolResult, RunOut, error) {
	run, err := t.b.Run(in.ID, backend.ByMCP(clientName(req.Session)))
	if err == nil {
		return nil, t.runOut(ctx, run), nil
	}
	d, rerr := t.b.RunSteps(in.ID)
	if rerr != nil {
		return nil, RunOut{}, fmt.Errorf("no run %q: %w", in.ID, err)
	}
	r := d.Run
	o := RunOut{ID: r.ID, Device: r.Device, Goal: r.Goal, State: r.State, Steps: r.Steps, Record: "tandem://runs/" + r.ID,
		Success: r.Success, Summary: r.Summary}
	o.Ended = d.Result != nil
	if r.State == backend.StateElsewhere {
		o.Waiting = nil
		o.Summary = "going on in another Tandem: follow it there"
	}
	return nil, o, nil
}

// StopIn is stop_run's input.
type StopIn struct {
	ID       string `json:"id" jsonschema:"the run's id"`
	Graceful bool   `json:"graceful,omitempty" jsonschema:"let the step under way finish instead of stopping at once"`
}

func (t *tools) stopRun(ctx context.Context, req *mcp.CallToolRequest, in StopIn) (*mcp.CallToolResult, RunOut, error) {
	run, err := t.b.Run(in.ID, backend.ByMCP(clientName(req.Session)))
	if err != nil {
		return nil, RunOut{}, err
	}
	if in.Graceful {
		err = run.StopGracefully(ctx, 0)
	} else {
		err = run.Stop(ctx)
	}
	var ill *engine.IllegalError
	if err != nil && !errors.As(err, &ill) && !errors.Is(err, engine.ErrFinished) {
		return nil, RunOut{}, err
	}
	if !in.Graceful {
		select {
		case <-run.Done():
		case <-ctx.Done():
		}
	}
	return nil, t.runOut(ctx, run), nil
}

// eventQueue keeps a run's events for the tool call following it (never
// dropped: every step is a progress notification).
type eventQueue struct {
	mu    sync.Mutex
	items []engine.Event
	ready chan struct{}
}

func newEventQueue() *eventQueue { return &eventQueue{ready: make(chan struct{}, 1)} }

func (q *eventQueue) push(e engine.Event) {
	q.mu.Lock()
	q.items = append(q.items, e)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

func (q *eventQueue) drain() []engine.Event {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.items
	q.items = nil
	return out
}
