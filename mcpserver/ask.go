package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tandem/backend"
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
	run    *backend.RunHandle // its commands given as the person, asked through the client
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

// elicit asks the person through the client's form: the answers the one
// list gives the request's kind (engine.Answers), and the text its free
// answer carries.
func (a *asker) elicit(ctx context.Context, req engine.Request) {
	if req.Kind == engine.AskConfirm {
		if s, _, err := a.t.b.GetSettingsOnly(); err == nil && s.ConfirmInWindowOnly {
			// A client can answer its own form: with Settings' "confirmations
			// in the window only" the run waits for the person there.
			a.log(ctx, "Tandem is waiting for the person in its window (Settings keep confirmations there): "+req.Message)
			return
		}
	}
	res, err := a.ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", RequestedSchema: form(req.Kind), Message: a.intro() + a.asks(req)})
	c := context.WithoutCancel(ctx)
	switch {
	case err != nil && ctx.Err() != nil:
		return // the run ended meanwhile
	case err != nil:
		a.log(ctx, "could not ask the person ("+err.Error()+"): the run waits for them in Tandem's window")
	case res.Action == "accept":
		a.give(c, req, engine.Answer(str(res.Content, "choice")), str(res.Content, "text"))
	case req.Kind != engine.AskConfirm: // it waits; the window or get_run show it
	case res.Action == "decline":
		_ = a.run.Deny(c, "the person declined")
	default:
		_ = a.run.Deny(c, "the person canceled the question without a yes")
	}
}

// give passes the person's answer on; one the kind does not take is no
// answer (a confirmation is refused: nothing sensitive happens without a
// yes).
func (a *asker) give(ctx context.Context, req engine.Request, ans engine.Answer, text string) {
	if !slices.ContainsFunc(engine.Answers(req.Kind), func(s engine.AnswerSpec) bool { return s.Answer == ans }) {
		if req.Kind == engine.AskConfirm {
			_ = a.run.Deny(ctx, "the person gave no answer the question takes")
		}
		return
	}
	switch ans {
	case engine.AnswerStop:
		_ = a.run.Stop(ctx)
	case engine.AnswerAllow:
		_ = a.run.Confirm(ctx)
	case engine.AnswerDeny:
		_ = a.run.Deny(ctx, orDefault(text, "the person said no"))
	case engine.AnswerReply, engine.AnswerHint:
		if text != "" {
			_ = a.run.Answer(ctx, text)
		}
	case engine.AnswerHandBack:
		_ = a.run.HandBack(ctx, text, nil)
	case engine.AnswerTakeOver:
		if a.run.TakeOver(ctx) == nil { // then the hand back, asked the same way
			a.elicit(ctx, engine.Request{Kind: engine.AskTakeOver, Message: req.Message})
		}
	case engine.AnswerGoOn:
		_ = a.run.Resume(ctx)
	}
}

// asks words the request for the person.
func (a *asker) asks(req engine.Request) string {
	switch req.Kind {
	case engine.AskConfirm:
		why := ""
		if req.Why != nil {
			why = " It asks you first because " + req.Why.String() + "."
		}
		what := req.Message
		if req.Action != nil {
			what = describe(*req.Action, req.Label)
		}
		return "The agent wants to " + what + "." + why + " Allow it?"
	case engine.AskQuestion:
		return "The agent asks you: " + req.Message
	case engine.AskTakeOver:
		return "The agent asks you to do this yourself on the device: " + req.Message +
			"\nDo it on the device, then hand control back (a note tells the agent what you did)."
	case engine.AskLoop, engine.AskBudget, engine.AskModelError, engine.AskDevice:
	}
	return "The run stopped to ask: " + req.Message + "\nContinue (with a hint if you like), do it yourself, or stop?"
}

// form is the elicitation form of a request of kind k: a choice among the
// answers the one list gives it, and the text its free answer carries.
func form(k engine.RequestKind) *jsonschema.Schema {
	var enum []any
	var words []string
	for _, a := range engine.Answers(k) {
		enum = append(enum, string(a.Answer))
		words = append(words, string(a.Answer)+": "+a.En+" ("+a.Zh+")")
	}
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"choice": {Type: "string", Title: "Your answer", Enum: enum, Description: strings.Join(words, "; ")},
	}, Required: []string{"choice"}}
	if free := engine.FreeText(k); free != "" {
		title := map[engine.RequestKind]string{engine.AskConfirm: "If not, why (told to the agent)", engine.AskQuestion: "Your answer to the agent",
			engine.AskTakeOver: "A note: what you did"}[k]
		if title == "" {
			title = "A hint for the agent"
		}
		s.Properties["text"] = &jsonschema.Schema{Type: "string", Title: title, Description: "with " + string(free)}
	}
	return s
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
