package backend

import (
	"context"

	"tandem/engine"
	"tandem/engine/action"
)

// A door's hold on a live run: the person's commands, each said by who
// asked, and a subscription — and no input. The person's input on the
// device goes through Hand alone, by type: a door holds a *RunHandle, not
// the engine's *Run, so it has nothing to send input with. (tailscale's
// ipnauth.Actor: every command says who asked, and that reaches the
// record.)

// Door is the way a command came in.
type Door int

// The doors a command can come in by.
const (
	// DoorWindow is the person in Tandem's window.
	DoorWindow Door = iota
	// DoorCommandLine is the person at `tandem run`'s terminal.
	DoorCommandLine
	// DoorMCP is another agent, an MCP client (Actor.Name is its name).
	DoorMCP
	// DoorMCPAsked is the person, asked through an MCP client's form
	// (elicitation; Actor.Name is the client's name).
	DoorMCPAsked
	// DoorHand is the person's own hand on this computer (the desktop's
	// mouse and keyboard, its stop hotkey).
	DoorHand
	// DoorEvaluate is the Evaluate view's or `tandem eval`'s scripted
	// person.
	DoorEvaluate
)

// Actor is who asked for a command: the door it came by and, for an MCP
// client, the client's own name for itself.
type Actor struct {
	Door Door
	Name string
}

// ByWindow is the person in the window.
func ByWindow() Actor { return Actor{Door: DoorWindow} }

// ByCommandLine is the person at the terminal.
func ByCommandLine() Actor { return Actor{Door: DoorCommandLine} }

// ByMCP is the MCP client named client.
func ByMCP(client string) Actor { return Actor{Door: DoorMCP, Name: client} }

// ByMCPAsked is the person, answering client's form.
func ByMCPAsked(client string) Actor { return Actor{Door: DoorMCPAsked, Name: client} }

// ByHand is the person's own hand on this computer.
func ByHand() Actor { return Actor{Door: DoorHand} }

// ByEvaluate is an evaluation's scripted person.
func ByEvaluate() Actor { return Actor{Door: DoorEvaluate} }

// String is how the record names the actor (Entry.Via).
func (a Actor) String() string {
	switch a.Door {
	case DoorWindow:
		return "the person, in the window"
	case DoorCommandLine:
		return "the person, at the command line"
	case DoorMCP:
		return "mcp:" + a.Name
	case DoorMCPAsked:
		return "the person, asked through " + a.Name + " (MCP elicitation)"
	case DoorHand:
		return "the person's hand on this computer"
	case DoorEvaluate:
		return "Evaluate"
	}
	return "someone"
}

// RunHandle is a door's hold on one run: its commands, given as by, its
// state and events. It has no input method: input is Hand's.
type RunHandle struct {
	run *engine.Run
	by  Actor
}

// Run is a live or just-ended run of this backend, for the commands of
// by (Pause, Stop, Confirm, …), which the record names.
func (b *Backend) Run(id string, by Actor) (*RunHandle, error) {
	run, err := b.runs.Get(id)
	if err != nil {
		return nil, err
	}
	return &RunHandle{run: run, by: by}, nil
}

// As is the same run, its commands given by another actor.
func (h *RunHandle) As(by Actor) *RunHandle { return &RunHandle{run: h.run, by: by} }

// By is who gives this handle's commands.
func (h *RunHandle) By() Actor { return h.by }

// said is ctx for a command of h's actor.
func (h *RunHandle) said(ctx context.Context) context.Context { return engine.Via(ctx, h.by.String()) }

// ID is the run's id.
func (h *RunHandle) ID() string { return h.run.ID() }

// Dir is the run's record folder.
func (h *RunHandle) Dir() string { return h.run.Dir() }

// Done is closed when the run has ended.
func (h *RunHandle) Done() <-chan struct{} { return h.run.Done() }

// Result is the run's result (zero until it ends).
func (h *RunHandle) Result() engine.Result { return h.run.Result() }

// Wait waits for the run to end.
func (h *RunHandle) Wait(ctx context.Context) (engine.Result, error) { return h.run.Wait(ctx) }

// Snapshot is the run as the UI shows it now.
func (h *RunHandle) Snapshot() engine.Snapshot { return h.run.Snapshot() }

// State is the run's state now.
func (h *RunHandle) State() engine.State { return h.run.State() }

// Subscribe adds e to the run's listeners; the returned function removes it.
func (h *RunHandle) Subscribe(e engine.Emitter) (cancel func()) { return h.run.Subscribe(e) }

// Pause pauses the run (engine.Run.Pause).
func (h *RunHandle) Pause(ctx context.Context) error { return h.run.Pause(h.said(ctx)) }

// Resume continues the run (engine.Run.Resume).
func (h *RunHandle) Resume(ctx context.Context) error { return h.run.Resume(h.said(ctx)) }

// TakeOver hands the device to the person (engine.Run.TakeOver).
func (h *RunHandle) TakeOver(ctx context.Context) error { return h.run.TakeOver(h.said(ctx)) }

// HandBack gives control back to the agent (engine.Run.HandBack).
func (h *RunHandle) HandBack(ctx context.Context, note string, region *engine.Region) error {
	return h.run.HandBack(h.said(ctx), note, region)
}

// Stop ends the run now (engine.Run.Stop).
func (h *RunHandle) Stop(ctx context.Context) error { return h.run.Stop(h.said(ctx)) }

// StopFor stops the run for a reason not the person's (engine.Run.StopFor).
func (h *RunHandle) StopFor(ctx context.Context, why engine.Cause) error {
	return h.run.StopFor(h.said(ctx), why)
}

// StopGracefully lets the run take at most n more actions (engine.Run.StopGracefully).
func (h *RunHandle) StopGracefully(ctx context.Context, n int) error {
	return h.run.StopGracefully(h.said(ctx), n)
}

// Confirm allows the sensitive action the run waits on.
func (h *RunHandle) Confirm(ctx context.Context) error { return h.run.Confirm(h.said(ctx)) }

// Deny refuses it, with the reason told to the model.
func (h *RunHandle) Deny(ctx context.Context, reason string) error {
	return h.run.Deny(h.said(ctx), reason)
}

// Answer replies to the model's question, or guides it after an escalation.
func (h *RunHandle) Answer(ctx context.Context, text string) error {
	return h.run.Answer(h.said(ctx), text)
}

// EditGoal changes the goal.
func (h *RunHandle) EditGoal(ctx context.Context, goal string) error {
	return h.run.EditGoal(h.said(ctx), goal)
}

// EditPending replaces the queued actions (a plan, not an input: nothing
// reaches the device until the run acts it).
func (h *RunHandle) EditPending(ctx context.Context, actions []action.Action) error {
	return h.run.EditPending(h.said(ctx), actions)
}
