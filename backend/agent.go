package backend

import (
	"context"
	"errors"
	"fmt"
	"image"
	"sync"
	"time"

	"tandem/engine"
	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/engine/model"
	"tandem/engine/observe"
)

// What another agent may do on a device itself (the MCP door's
// screenshot, ui_state and act): look at it, and act on it one action at
// a time under the person's policy. A device with a live run belongs to
// that run: another agent's act is refused there.

// agentDevices are the devices opened for another agent's calls, kept
// open between calls (opening costs adb round trips) until Shutdown.
type agentDevices struct {
	mu   sync.Mutex
	open map[string]device.Device
}

// agentDevice is device id, opened once for another agent's calls.
func (b *Backend) agentDevice(ctx context.Context, id string) (device.Device, error) {
	b.agents.mu.Lock()
	defer b.agents.mu.Unlock()
	if d := b.agents.open[id]; d != nil {
		return d, nil
	}
	d, err := b.devices.Open(ctx, id)
	if err != nil {
		return nil, err
	}
	if b.agents.open == nil {
		b.agents.open = map[string]device.Device{}
	}
	b.agents.open[id] = d
	return d, nil
}

// forget closes device id after an error that may mean it went away, so
// the next call opens it again.
func (b *Backend) forget(id string, err error) {
	if !errors.Is(err, device.ErrGone) {
		return
	}
	b.agents.mu.Lock()
	d := b.agents.open[id]
	delete(b.agents.open, id)
	b.agents.mu.Unlock()
	if d != nil {
		d.Close()
	}
}

func (b *Backend) closeAgentDevices() {
	b.agents.mu.Lock()
	defer b.agents.mu.Unlock()
	for id, d := range b.agents.open {
		d.Close()
		delete(b.agents.open, id)
	}
}

// Screenshot is device id's screen now, and its size in device pixels.
func (b *Backend) Screenshot(ctx context.Context, id string) (image.Image, action.Size, error) {
	d, err := b.agentDevice(ctx, id)
	if err != nil {
		return nil, action.Size{}, err
	}
	info, err := d.Info(ctx)
	if err != nil {
		b.forget(id, err)
		return nil, action.Size{}, err
	}
	img, err := d.Screenshot(ctx)
	if err != nil {
		b.forget(id, err)
		return nil, action.Size{}, err
	}
	return img, info.Screen, nil
}

// ScreenSize is device id's screen in device pixels.
func (b *Backend) ScreenSize(ctx context.Context, id string) (action.Size, error) {
	d, err := b.agentDevice(ctx, id)
	if err != nil {
		return action.Size{}, err
	}
	info, err := d.Info(ctx)
	if err != nil {
		b.forget(id, err)
		return action.Size{}, err
	}
	return info.Screen, nil
}

// ErrNoUITree means the device has no UI tree to read (this computer).
var ErrNoUITree = errors.New("this device has no UI tree (it is a display): use the screenshot")

// UIState is device id's screen as Tandem's compact UI state (the
// elements the agent reads), within maxTokens (0: no limit).
func (b *Backend) UIState(ctx context.Context, id string, maxTokens int) (*observe.Compact, error) {
	d, err := b.agentDevice(ctx, id)
	if err != nil {
		return nil, err
	}
	t, ok := d.(device.UITree)
	if !ok {
		return nil, ErrNoUITree
	}
	dump, err := t.UITree(ctx)
	if err != nil {
		b.forget(id, err)
		return nil, err
	}
	tokens, err := observe.NewTokens()
	if err != nil {
		return nil, err
	}
	return observe.Compress(dump, tokens, observe.CompressOptions{MaxTokens: maxTokens})
}

// NeedsPersonError says an act is sensitive by the person's policy: it
// runs only as a run of one action, which asks them.
type NeedsPersonError struct{ Why engine.Why }

func (e *NeedsPersonError) Error() string {
	return "this action needs the person's confirmation: " + e.Why.String()
}

// agentAct does one action of another agent's on device id (Hand's
// Input.Act, once the rule gave it the device), in device pixels, when the
// person's policy lets it go unasked; a sensitive one is refused with a
// *NeedsPersonError (ActAsRun asks the person). A device another Tandem
// drives is refused (a *HeldError naming it).
func (b *Backend) agentAct(ctx context.Context, id string, a action.Action, by Actor) error {
	release, err := b.lease(ctx, id, by.String(), false)
	if err != nil {
		return err
	}
	defer release()
	d, err := b.agentDevice(ctx, id)
	if err != nil {
		return err
	}
	info, err := d.Info(ctx)
	if err != nil {
		b.forget(id, err)
		return err
	}
	if err := a.Validate(info.Screen); err != nil {
		return err
	}
	set, _, err := b.settings.Load()
	if err != nil {
		return err
	}
	if why := engine.Judge(ctx, d, engine.Policy{Words: set.PolicyWords, Apps: set.PolicyApps}, a); why.By != "" {
		return &NeedsPersonError{Why: why}
	}
	if err := d.Do(ctx, a); err != nil {
		b.forget(id, err)
		return err
	}
	b.desks.Poke(id)
	return nil
}

// ActAsRun starts a run of the one action a on device id: the run asks
// the person before it as any run would (in the window, or through the
// door's own way), records it, and ends Done once it is done or Stopped,
// denied (engine.CauseDenied), when the person refuses: no model was
// involved, and nothing failed.
func (b *Backend) ActAsRun(ctx context.Context, id string, a action.Action, c RunChoice) (engine.Snapshot, error) {
	s, err := b.RunSetup(c)
	if err != nil {
		return engine.Snapshot{}, err
	}
	one := &onePlanner{act: a}
	s.Planner = one
	// One act is over before a phone's stream would open: no video.
	s.Video = false
	snap, err := b.Launch(ctx, id, "Do one action for "+orAgent(c.StartedBy)+": "+a.String(), s)
	if err == nil {
		if run, gerr := b.runs.Get(snap.ID); gerr == nil {
			one.ended(run)
		}
	}
	return snap, err
}

func orAgent(who string) string {
	if who == "" {
		return "another agent"
	}
	return who
}

// onePlanner plans the one action, then finishes; after a refusal it
// ends its run as denied (or, with no run to end, fails with the
// person's words).
type onePlanner struct {
	mu   sync.Mutex
	act  action.Action
	done bool
	run  *engine.Run // its run, to end as denied
}

// ended gives the planner its run.
func (p *onePlanner) ended(r *engine.Run) {
	p.mu.Lock()
	p.run = r
	p.mu.Unlock()
}

func (p *onePlanner) Plan(ctx context.Context, in model.Input, _ func(string)) (model.Plan, error) {
	p.mu.Lock()
	yes := true
	if !p.done {
		p.done = true
		p.mu.Unlock()
		return model.Plan{Thought: "The action another agent asked for.", Handed: true, Actions: []action.Action{p.act,
			{Type: action.Finish, Summary: "Done: " + p.act.String(), Success: &yes}}}, nil
	}
	run := p.run
	p.mu.Unlock()
	if run != nil {
		// Asked again only after the person denied the action: the run
		// ends, stopped for that reason; the stop cancels this call.
		go func() {
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			_ = run.StopFor(sctx, engine.Cause{Code: engine.CauseDenied})
		}()
		select {
		case <-ctx.Done():
		case <-run.Done():
		}
		return model.Plan{}, context.Canceled
	}
	return model.Plan{Thought: "The action was not done.", Handed: true, Actions: []action.Action{
		{Type: action.Fail, Reason: fmt.Sprintf("%s was not done (%s)", p.act, lastWords(in))}}}, nil
}

// lastWords is what the run last told the planner (the person's refusal).
func lastWords(in model.Input) string {
	if n := len(in.Notes); n > 0 {
		return in.Notes[n-1]
	}
	return "the person refused"
}
