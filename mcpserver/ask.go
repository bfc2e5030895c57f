package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tandem/engine"
	"tandem/engine/action"
)

// asker asks the person what a run needs them for, through the client
// (MCP elicitation), when no window of Tandem's is open to ask them; the
// client shows the form to its human. A confirmation the person does not
// give (declined, cancelled, the form gone) is a refusal: nothing
// sensitive happens without a yes. The calling agent's own call is never
// the person's answer.
type asker struct {
	t      *tools
	ss     *mcp.ServerSession
	run    *engine.Run
	client string

	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// ask handles one request of the run's.
func (a *asker) ask(ctx context.Context, req engine.Request) {
	if a.t.window {
		a.log(ctx, "Tandem is waiting for the person in its window: "+req.Message)
		return
	}
	if !canElicit(a.ss) {
		a.log(ctx, "Tandem is waiting for the person: "+req.Message+" (this client cannot ask them; open Tandem's window, or get_run to follow)")
		return
	}
	a.once.Do(func() { a.ctx, a.cancel = context.WithCancel(context.WithoutCancel(ctx)) })
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		a.elicit(a.ctx, req)
	}()
}

// wait ends the questions still open (the run ended) and waits for them.
func (a *asker) wait() {
	if a.cancel != nil {
		a.cancel()
	}
	a.wg.Wait()
}

func (a *asker) log(ctx context.Context, msg string) {
	//nolint:staticcheck // logging is part of 2025-11-25 and 2025-06-18, the versions served
	_ = a.ss.Log(ctx, &mcp.LoggingMessageParams{Level: "notice", Logger: "tandem", Data: msg})
}

// who is how the record names the person answering through this client.
func (a *asker) who() string { return "the person, asked through " + a.client + " (MCP elicitation)" }

func (a *asker) elicit(ctx context.Context, req engine.Request) {
	switch req.Kind {
	case engine.AskConfirm:
		a.confirm(ctx, req)
	case engine.AskQuestion:
		res, err := a.ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: a.intro() + "The agent asks you: " + req.Message,
			RequestedSchema: field("answer", "Your answer", "what the agent should know", true)})
		if err == nil && res.Action == "accept" {
			_ = a.run.Answer(engine.Via(ctx, a.who()), str(res.Content, "answer"))
		}
	case engine.AskTakeOver:
		res, err := a.ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: a.intro() + "The agent asks you to do this yourself on the device: " +
			req.Message + "\nDo it on the device, then accept to hand control back (a note tells the agent what you did).",
			RequestedSchema: field("note", "Note for the agent", "what you did, optional", false)})
		if err == nil && res.Action == "accept" {
			_ = a.run.HandBack(engine.Via(ctx, a.who()), str(res.Content, "note"), nil)
		}
	case engine.AskLoop, engine.AskBudget, engine.AskModelError, engine.AskDevice:
		a.decide(ctx, req) // go on (with a hint) or stop
	}
}

// confirm asks before a sensitive action: only "allow" lets it run. With
// Settings' "confirmations in the window only" the client is not asked: the
// run waits for the person in the window (a client can answer its own
// form).
func (a *asker) confirm(ctx context.Context, req engine.Request) {
	if s, _, err := a.t.b.GetSettingsOnly(); err == nil && s.ConfirmInWindowOnly {
		a.log(ctx, "Tandem is waiting for the person in its window (Settings keep confirmations there): "+req.Message)
		return
	}
	why := ""
	if req.Why != nil {
		why = " It asks you first because " + req.Why.String() + "."
	}
	what := req.Message
	if req.Action != nil {
		what = describe(*req.Action, req.Label)
	}
	schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"allow":  {Type: "boolean", Title: "Allow it", Description: "yes lets the agent do it; no refuses"},
		"reason": {Type: "string", Title: "If not, why", Description: "told to the agent, optional"},
	}, Required: []string{"allow"}}
	res, err := a.ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", RequestedSchema: schema,
		Message: a.intro() + "The agent wants to " + what + "." + why + " Allow it?"})
	c := engine.Via(context.WithoutCancel(ctx), a.who())
	switch {
	case err != nil && ctx.Err() != nil:
		return // the run ended meanwhile
	case err == nil && res.Action == "accept" && res.Content["allow"] == true:
		_ = a.run.Confirm(c)
	case err == nil && res.Action == "accept":
		_ = a.run.Deny(c, orDefault(str(res.Content, "reason"), "the person said no"))
	case err == nil && res.Action == "decline":
		_ = a.run.Deny(c, "the person declined")
	case err == nil:
		_ = a.run.Deny(c, "the person canceled the question without a yes")
	default:
		a.log(ctx, "could not ask the person ("+err.Error()+"): the run waits for them in Tandem's window")
	}
}

// decide asks whether a run that stopped to ask (a loop, a budget, a
// fault) goes on, with an optional hint, or stops.
func (a *asker) decide(ctx context.Context, req engine.Request) {
	schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"decision": {Type: "string", Title: "What now", Enum: []any{"continue", "stop"}},
		"hint":     {Type: "string", Title: "A hint for the agent", Description: "optional"},
	}, Required: []string{"decision"}}
	res, err := a.ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", RequestedSchema: schema,
		Message: a.intro() + "The run stopped to ask: " + req.Message + "\nContinue (with a hint if you like) or stop?"})
	if err != nil || res.Action != "accept" {
		return // it waits; the window or get_run show it
	}
	c := engine.Via(context.WithoutCancel(ctx), a.who())
	switch hint := str(res.Content, "hint"); {
	case str(res.Content, "decision") == "stop":
		_ = a.run.Stop(c)
	case hint != "":
		_ = a.run.Answer(c, hint)
	default:
		_ = a.run.Resume(c)
	}
}

// describe words an action for a person: what it aims at by its label,
// not by its coordinates.
func describe(a action.Action, label string) string {
	verb := map[string]string{"tap": "tap", "double_tap": "double-tap", "long_press": "long-press", "swipe": "swipe on",
		"type": "type", "key": "press the key", "launch": "open"}[string(a.Type)]
	switch {
	case a.Text != "":
		return fmt.Sprintf("type %q", a.Text)
	case a.App != "":
		return "open " + a.App
	case a.Key != "":
		return "press the key " + a.Key
	case label != "" && verb != "":
		return fmt.Sprintf("%s %q", verb, label)
	case verb != "":
		return verb + " a point on the screen with no label"
	}
	return a.String()
}

// intro says who asks, where and for what, so a person reading it in
// another program knows what it is about.
func (a *asker) intro() string {
	s := a.run.Snapshot()
	return fmt.Sprintf("Tandem, on %s, in the task %s gave it (%q):\n", a.t.b.DeviceName(a.ctx, s.Device), a.client, s.Goal)
}

// field is a form of one string field.
func field(name, title, desc string, required bool) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		name: {Type: "string", Title: title, Description: desc}}}
	if required {
		s.Required = []string{name}
	}
	return s
}

func str(m map[string]any, k string) string {
	v, _ := m[k].(string)
	return strings.TrimSpace(v)
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
