package engine

import (
	"fmt"
	"sync"
	"time"

	"tandem/engine/action"
	"tandem/engine/model"
)

// Emitter receives what the engine tells the UI. Emit is called from the
// run's goroutines (the loop, and the model call for thought deltas) but
// never concurrently for one run; it must not block for long, as the run
// waits for it. The app layer forwards events to the UI; the CLI prints them.
type Emitter interface {
	Emit(Event)
}

// EmitterFunc adapts a function to Emitter.
type EmitterFunc func(Event)

// Emit calls f(e).
func (f EmitterFunc) Emit(e Event) { f(e) }

// EventKind names the one concern an event is about.
type EventKind string

// Event kinds.
const (
	KindSnapshot EventKind = "snapshot" // the full state; always the first event a subscriber gets
	KindState    EventKind = "state"
	KindStep     EventKind = "step"    // a device action (the agent's or the person's) finished
	KindPlan     EventKind = "plan"    // the todo list changed
	KindThought  EventKind = "thought" // a piece of the model's reply as it streams in
	KindRetry    EventKind = "retry"   // a model call failed and is tried again after a wait
	KindWaiting  EventKind = "waiting" // a model call has no answer yet (each second, with the time waited)
	KindManual   EventKind = "manual"  // one input the person made while driving
	KindUsage    EventKind = "usage"
	KindRequest  EventKind = "request" // the run waits for the person
	KindDone     EventKind = "done"
	// KindPerson is one act of the person's: a command (pause, take over,
	// stop, resume, hand back, confirm, deny, answer, goal or plan edits)
	// with what it carried, so the timeline shows it beside the agent's steps.
	KindPerson EventKind = "person"
)

// Event is one message to the UI. Exactly one of the payload fields is set,
// the one named by Kind.
type Event struct {
	Run  string    `json:"run"`
	Seq  int64     `json:"seq"`
	Time time.Time `json:"time"`
	Kind EventKind `json:"kind"`

	Snapshot *Snapshot     `json:"snapshot,omitempty"`
	State    *StateEvent   `json:"state,omitempty"`
	Step     *StepEvent    `json:"step,omitempty"`
	Plan     *PlanEvent    `json:"plan,omitempty"`
	Thought  *ThoughtEvent `json:"thought,omitempty"`
	Retry    *RetryEvent   `json:"retry,omitempty"`
	Waiting  *WaitingEvent `json:"waiting,omitempty"`
	Manual   *ManualEvent  `json:"manual,omitempty"`
	Usage    *UsageEvent   `json:"usage,omitempty"`
	Request  *Request      `json:"request,omitempty"`
	Done     *Result       `json:"done,omitempty"`
	Person   *PersonAct    `json:"person,omitempty"`
}

// PersonAct is one act of the person's. Command is the trigger's name
// ("pause", "take_over", "stop", "resume", "hand_back", "stop_gracefully",
// "confirm", "deny", "answer", "edit_goal", "edit_pending"); the other
// fields are what that command carried.
type PersonAct struct {
	Command string          `json:"command"`
	Text    string          `json:"text,omitempty"`    // a denial's reason, an answer, a hand-back note, the new goal
	Action  *action.Action  `json:"action,omitempty"`  // the action confirmed or denied
	Actions []action.Action `json:"actions,omitempty"` // the plan kept by edit_pending
	Region  *Region         `json:"region,omitempty"`  // the region marked on hand back
	N       int             `json:"n,omitempty"`       // steps left for stop_gracefully
	// Asked is what the run had asked when the person answered, allowed,
	// denied or let it keep going (the question, the confirmation with the
	// element's words, the error), so the act keeps both sides.
	Asked *Request `json:"asked,omitempty"`
}

// personEntry emits the person's recorded command as a KindPerson event.
func (h *hub) personEntry(e Entry) {
	h.emit(Event{Kind: KindPerson, Person: &PersonAct{Command: e.Command, Text: e.Text, Action: e.Action,
		Actions: e.Actions, Region: e.Region, N: e.N, Asked: e.Request}})
}

// RetryEvent is a model call's failed attempt that is tried again after
// WaitMs: a "Thinking…" that lasts is explained (a rate limit, a server
// error, a timeout) instead of silent.
type RetryEvent struct {
	Call int `json:"call"`
	model.Retry
}

// WaitingEvent is a model call that has not answered yet: the UI words it
// as "waiting for the model (12 s)…" (Since lets it count on between
// events), or "waiting for the model: 2 ahead" while it waits its turn
// behind other runs' requests (Ahead). It ends with the first piece of
// the reply, or the call.
type WaitingEvent struct {
	Call int `json:"call"`
	model.Waiting
}

// StateEvent is a state change.
type StateEvent struct {
	State  State  `json:"state"`
	From   State  `json:"from"`
	Reason string `json:"reason,omitempty"`
	// By names the trigger behind the change when it was the person's
	// command or the device going away ("pause", "stop", "device_lost"…),
	// so a UI can word the reason in its own language.
	By string `json:"by,omitempty"`
	// Why is Reason in parts a UI words in its own language, when the
	// engine itself gave the reason (a stop, a limit): Reason is its
	// English, for the record and the terminal.
	Why *Cause `json:"why,omitempty"`
}

// StepEvent is one finished device action.
type StepEvent struct {
	N        int           `json:"n"` // 1-based count of device actions in the run
	Action   action.Action `json:"action"`
	Result   string        `json:"result"` // "ok" or what went wrong
	Ms       int64         `json:"ms"`
	ByPerson bool          `json:"by_person,omitempty"`
	// Target is what a person read on the element a pointed action hit
	// (Element.Shown), when the screen it was chosen on named one: the UI
	// says "Tap “+1”" rather than where.
	Target string `json:"target,omitempty"`
	// Call is the model call that chose the action (0 for the person's).
	Call int `json:"call,omitempty"`
	// Thought is what the model said of the call, on the call's first
	// action only (a resumed run's list shows it from the record).
	Thought string `json:"thought,omitempty"`
	// Frame is the recorded screen the action was chosen on (a path inside
	// the run's record directory), for the timeline's thumbnail.
	Frame string `json:"frame,omitempty"`
	// Usage is what the call cost; only the first action of a call has it.
	Usage *model.Usage `json:"usage,omitempty"`
	// Salvaged says what the dialect repaired to read the call's reply;
	// Cached marks a decision reused from the action cache rather than
	// made by the model. Like Usage, on the call's first action only.
	Salvaged string `json:"salvaged,omitempty"`
	Cached   bool   `json:"cached,omitempty"`
}

// What is the step's action for a log line, with the words on what it
// pressed when the screen named them: tap(759,1200) “+1”.
func (s StepEvent) What() string {
	if s.Target == "" {
		return s.Action.String()
	}
	return s.Action.String() + " “" + s.Target + "”"
}

// TodoStatus is an item's place in the plan.
type TodoStatus string

// Todo statuses.
const (
	TodoDone    TodoStatus = "done"
	TodoCurrent TodoStatus = "current"
	TodoPending TodoStatus = "pending"
)

// TodoItem is one action of the current plan.
type TodoItem struct {
	Action action.Action `json:"action"`
	Status TodoStatus    `json:"status"`
	// Element is the on-screen element a pointed current action aims at,
	// when the UI tree names one: the UI outlines it on the mirror.
	Element *Element `json:"element,omitempty"`
}

// Element is a UI element: its words and its box in device pixels.
type Element struct {
	Label  string `json:"label"`
	Bounds Region `json:"bounds"`
	// Shown is what a person reads on it (its text and description, not
	// its resource id, which Label includes for the policy's words).
	Shown string `json:"shown,omitempty"`
	// ID and Class are its resource id and class, by which a replay finds
	// it again (with Shown and Bounds as a hint).
	ID    string `json:"id,omitempty"`
	Class string `json:"class,omitempty"`
}

// PlanEvent is the current plan as a todo list.
type PlanEvent struct {
	Thought string     `json:"thought,omitempty"`
	Todo    []TodoItem `json:"todo"`
}

// ThoughtEvent is a piece of streamed reply text.
type ThoughtEvent struct {
	Call  int    `json:"call"`
	Delta string `json:"delta"`
}

// ManualEvent is one input the person made while driving.
type ManualEvent struct {
	Action action.Action `json:"action"`
	At     time.Time     `json:"at"`
	Before string        `json:"before,omitempty"` // frame file in the record
	After  string        `json:"after,omitempty"`
	Error  string        `json:"error,omitempty"`
}

// UsageEvent is the run's totals so far.
type UsageEvent struct {
	Total model.Usage `json:"total"`
	Calls int         `json:"calls"`
	Steps int         `json:"steps"` // the agent's (what a step budget counts)
	// PersonSteps are the person's inputs, steps too (History and the
	// report count both; the live meter shows the sum).
	PersonSteps int   `json:"person_steps"`
	ElapsedMs   int64 `json:"elapsed_ms"`
	// At is when ElapsedMs was measured: a window adds only the time since.
	At time.Time `json:"at"`
}

// RequestKind says why the run waits for the person.
type RequestKind string

// Request kinds.
const (
	AskConfirm    RequestKind = "confirm"     // a sensitive action: confirm or deny
	AskQuestion   RequestKind = "question"    // the model asks; answer
	AskTakeOver   RequestKind = "take_over"   // the model asks the person to drive (the run is in Manual)
	AskLoop       RequestKind = "loop"        // the agent is going round in circles
	AskBudget     RequestKind = "budget"      // a budget ran out; resume grants as much again
	AskModelError RequestKind = "model_error" // the model failed and retries did not help
	AskDevice     RequestKind = "device_error"
)

// Request is what the run asks of the person.
type Request struct {
	Kind    RequestKind    `json:"kind"`
	Message string         `json:"message"`          // in English, for the record and the terminal
	Action  *action.Action `json:"action,omitempty"` // the action to confirm, that failed or repeats
	Why     *Why           `json:"why,omitempty"`    // the rule behind a confirmation
	// Label is what the screen calls the element the action aims at
	// ("Pay ¥99"), when its UI tree says, so the person reads what, not where.
	Label string `json:"label,omitempty"`
	Cause *Cause `json:"cause,omitempty"` // the case behind any other request
	// Frame is the recorded screen the request is about (the newest the
	// model saw), so the person decides on what the agent saw.
	Frame string `json:"frame,omitempty"`
}

// Cause says why a run stopped to ask, in parts a UI can word in its own
// language: Code names the case (the Cause* constants), N is a limit or a
// count, Detail what only the source can say (an error's own words).
type Cause struct {
	Code   string `json:"code"`
	N      string `json:"n,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// Cause codes.
const (
	CauseBudgetSteps      = "budget_steps"
	CauseBudgetTokens     = "budget_tokens"
	CauseBudgetCost       = "budget_cost"
	CauseBudgetTime       = "budget_time" // N in minutes
	CauseLoopRepeat       = "loop_repeat" // Detail is the repeated action, in English
	CauseLoopUnchanged    = "loop_unchanged"
	CauseModelFailed      = "model_failed"
	CauseModelKey         = "model_key"          // 401: the key was refused
	CauseModelForbidden   = "model_forbidden"    // 403
	CauseModelNotFound    = "model_not_found"    // 404: N the model, Detail the base URL
	CauseModelRateLimited = "model_rate_limited" // 429 after the retries
	CauseModelUnusable    = "model_unusable"
	// The model server misbehaved on the wire (engine/model's bounds); N is
	// the bound in seconds, or the size cap ("4 MiB"); Detail the base URL.
	CauseModelNoFirstByte = "model_no_first_byte"
	CauseModelStalled     = "model_stalled"
	CauseModelTimeout     = "model_timeout"
	CauseModelTooLarge    = "model_too_large"
	CauseModelWebPage     = "model_web_page"
	CauseActionFailed     = "action_failed"
	CauseDevice           = "device"
	CauseDeviceRepeated   = "device_repeated" // N failures in a row
	// The run was stopped for a limit its caller set (`tandem run
	// --timeout`), not by the person: N is the limit ("10m0s").
	CauseTimeLimit = "time_limit"
	// Why a run stopped, or is stopping, at the person's word: at once, or
	// after the N more steps they allowed (stop_gracefully).
	CauseStoppedByPerson    = "stopped_by_person"
	CauseStoppingGracefully = "stopping_gracefully" // N: at most so many more steps
	CauseStoppedGracefully  = "stopped_gracefully"
	// The run was stopped by the program that started it, not by the
	// person: an MCP client cancelled its call or left (Detail: its name).
	CauseStoppedByClient = "stopped_by_client"
	// The model server could not be reached at all (refused, no such
	// host): Detail is the base URL.
	CauseModelUnreachable = "model_unreachable"
	// The device stayed away longer than the run waits (N, "2m0s");
	// Detail is why it went, in the driver's words.
	CauseDeviceAway = "device_away"
	// The person denied the one action another agent asked for (an MCP
	// act run as a run of its own): the run ends Stopped, for this reason,
	// never Failed (issue 49 item 15).
	CauseDenied = "denied"
	// The judge could not read what it judges an action by, so the person
	// is asked (unread.go): the screen's labels, the app in front, a
	// desktop's windows. Detail is the device's own words for why.
	CauseLabelsUnread  = "labels_unread"
	CauseAppUnread     = "app_unread"
	CauseWindowsUnread = "windows_unread"
)

// CauseCodes are every Cause code the engine sends, for the UI's wording
// (frontend/src/lib/gen/causes.ts is generated from it).
var CauseCodes = []string{
	CauseBudgetSteps, CauseBudgetTokens, CauseBudgetCost, CauseBudgetTime, CauseLoopRepeat, CauseLoopUnchanged,
	CauseModelFailed, CauseModelKey, CauseModelForbidden, CauseModelNotFound, CauseModelRateLimited, CauseModelUnusable,
	CauseModelNoFirstByte, CauseModelStalled, CauseModelTimeout, CauseModelTooLarge, CauseModelWebPage,
	CauseActionFailed, CauseDevice, CauseDeviceRepeated, CauseTimeLimit,
	CauseStoppedByPerson, CauseStoppingGracefully, CauseStoppedGracefully, CauseModelUnreachable, CauseDeviceAway,
	CauseStoppedByClient, CauseDenied, CauseLabelsUnread, CauseAppUnread, CauseWindowsUnread,
}

// String is the cause in English, for the record, the terminal and the model.
func (c Cause) String() string {
	switch c.Code {
	case CauseBudgetSteps:
		return fmt.Sprintf("the step limit (%s) is reached", c.N)
	case CauseBudgetTokens:
		return fmt.Sprintf("the token budget (%s) is used up", c.N)
	case CauseBudgetCost:
		return fmt.Sprintf("the cost budget (%s) is used up", c.N)
	case CauseBudgetTime:
		return fmt.Sprintf("the time budget (%s min) is used up", c.N)
	case CauseLoopRepeat:
		return c.Detail + " was done again on a screen it did not change"
	case CauseLoopUnchanged:
		return fmt.Sprintf("the screen has not changed for %s actions", c.N)
	case CauseDeviceRepeated:
		return fmt.Sprintf("the device failed %s times in a row: %s", c.N, c.Detail)
	case CauseTimeLimit:
		return fmt.Sprintf("the time limit (%s) was reached", c.N)
	case CauseStoppedByPerson:
		return "stopped by the person"
	case CauseStoppingGracefully:
		return fmt.Sprintf("stopping gracefully: at most %s more %s", c.N, plural(c.N, "step", "steps"))
	case CauseStoppedGracefully:
		return "stopped gracefully"
	case CauseLabelsUnread, CauseAppUnread, CauseWindowsUnread:
		what := map[string]string{CauseLabelsUnread: "the screen's labels", CauseAppUnread: "the app in front",
			CauseWindowsUnread: "the desktop's windows"}[c.Code]
		if c.Detail == "" {
			return what + " could not be read"
		}
		return what + " could not be read: " + c.Detail
	case CauseDenied:
		return "the person denied the action; it was not done"
	case CauseStoppedByClient:
		return "stopped by " + c.Detail + ", which cancelled its call"
	case CauseDeviceAway:
		return fmt.Sprintf("the device stayed away for %s: %s", c.N, c.Detail)
	case CauseModelUnreachable:
		return fmt.Sprintf("the model server at %s could not be reached", c.Detail)
	}
	return c.Detail
}

// Result is how a run ended.
type Result struct {
	State   State       `json:"state"`
	Success bool        `json:"success"`
	Summary string      `json:"summary,omitempty"`
	Pending []string    `json:"pending,omitempty"` // issues the summary left open
	Reason  string      `json:"reason,omitempty"`  // for Failed and Stopped
	Why     *Cause      `json:"why,omitempty"`     // Reason in parts, when the engine gave it
	Steps   int         `json:"steps"`
	Calls   int         `json:"calls"`
	Usage   model.Usage `json:"usage"`
}

// Snapshot is everything the UI needs to draw a run from scratch.
type Snapshot struct {
	ID      string      `json:"id"`
	Device  string      `json:"device"`
	Goal    string      `json:"goal"`
	State   State       `json:"state"`
	Reason  string      `json:"reason,omitempty"`
	By      string      `json:"by,omitempty"`  // as StateEvent.By
	Why     *Cause      `json:"why,omitempty"` // as StateEvent.Why
	Plan    PlanEvent   `json:"plan"`
	Thought string      `json:"thought,omitempty"` // the current call's reply so far
	Retry   *RetryEvent `json:"retry,omitempty"`   // the current call's last failed attempt
	// Waiting is the current call's wait for its first answer, if it waits.
	Waiting *WaitingEvent `json:"waiting,omitempty"`
	Usage   UsageEvent    `json:"usage"`
	Request *Request      `json:"request,omitempty"`
	Steps   []StepEvent   `json:"steps,omitempty"` // the most recent steps
	Result  *Result       `json:"result,omitempty"`
	Acts    []PersonAct   `json:"acts,omitempty"` // the person's most recent acts
	// Seq is that of the last event the snapshot includes: a UI that gets
	// a snapshot from a call (Run.Snapshot) rather than as an event knows
	// which events it already holds.
	Seq int64 `json:"seq"`
}

const snapshotSteps = 50 // how many recent steps a snapshot carries

// hub fans events out to the configured emitter and to subscribers, and
// keeps the snapshot that a new subscriber gets first. The snapshot and
// the subscriber list change under one lock, so a subscriber sees the
// snapshot and then exactly the events after it.
type hub struct {
	// turn is held while the loop performs one turn's effects; the
	// snapshot's readers wait for the turn to end (Run.perform).
	turn sync.RWMutex
	mu   sync.Mutex
	run  string
	seq  int64
	snap Snapshot
	subs map[int]Emitter
	next int
}

func newHub(run string, snap Snapshot) *hub {
	return &hub{run: run, snap: snap, subs: map[int]Emitter{}}
}

func (h *hub) emit(e Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.apply(e)
	h.seq++
	e.Run, e.Seq, e.Time = h.run, h.seq, time.Now()
	for _, s := range h.subs {
		s.Emit(e)
	}
}

// apply folds an event into the snapshot.
func (h *hub) apply(e Event) {
	s := &h.snap
	if e.Kind != KindRetry && e.Kind != KindUsage && e.Kind != KindWaiting {
		s.Retry = nil // the retried call answered, or the run moved on
	}
	if e.Kind != KindWaiting && e.Kind != KindRetry && e.Kind != KindUsage {
		s.Waiting = nil
	}
	switch e.Kind {
	case KindWaiting:
		w := *e.Waiting
		s.Waiting = &w
	case KindRetry:
		r := *e.Retry
		s.Retry = &r
	case KindState:
		s.State, s.Reason, s.By, s.Why = e.State.State, e.State.Reason, e.State.By, e.State.Why
		// As the UI folds it (frontend/src/lib/events.ts): a request lives
		// in WaitingForUser; a take-over the model asked for comes as its
		// own request event after the move to Manual. The Go snapshot kept
		// a confirmation after WaitingForUser -> TakeOver, the UI did not.
		if e.State.State != WaitingForUser {
			s.Request = nil
		}
		if e.State.State == Planning {
			s.Thought = ""
		}
	case KindStep:
		s.Steps = append(s.Steps, *e.Step)
		if len(s.Steps) > snapshotSteps {
			s.Steps = append([]StepEvent(nil), s.Steps[len(s.Steps)-snapshotSteps:]...)
		}
	case KindPlan:
		s.Plan = PlanEvent{Thought: e.Plan.Thought, Todo: append([]TodoItem(nil), e.Plan.Todo...)}
	case KindThought:
		if len(s.Thought) < 16<<10 {
			s.Thought += e.Thought.Delta
		}
	case KindUsage:
		s.Usage = *e.Usage
	case KindRequest:
		r := *e.Request
		s.Request = &r
	case KindDone:
		r := *e.Done
		s.Result = &r
	case KindPerson:
		s.Acts = append(s.Acts, *e.Person)
		if len(s.Acts) > snapshotSteps {
			s.Acts = append([]PersonAct(nil), s.Acts[len(s.Acts)-snapshotSteps:]...)
		}
		if e.Person.Command == "edit_goal" && e.Person.Text != "" {
			s.Goal = e.Person.Text
		}
	case KindSnapshot, KindManual:
		// a snapshot is made from this one; a person's input is a step once done
	}
}

func (h *hub) setGoal(g string) {
	h.mu.Lock()
	h.snap.Goal = g
	h.mu.Unlock()
}

func (h *hub) setSteps(steps []StepEvent) {
	h.mu.Lock()
	h.snap.Steps = append([]StepEvent(nil), steps[max(0, len(steps)-snapshotSteps):]...)
	h.mu.Unlock()
}

// hold keeps the snapshot's readers out until the returned function is
// called.
func (h *hub) hold() (release func()) {
	h.turn.Lock()
	return h.turn.Unlock
}

func (h *hub) snapshot() Snapshot {
	h.turn.RLock()
	defer h.turn.RUnlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.copySnap()
}

func (h *hub) state() State {
	h.turn.RLock()
	defer h.turn.RUnlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.snap.State
}

func (h *hub) copySnap() Snapshot {
	s := h.snap
	s.Seq = h.seq
	s.Plan.Todo = append([]TodoItem{}, s.Plan.Todo...) // [] in JSON, never null
	s.Steps = append([]StepEvent(nil), s.Steps...)
	return s
}

func (h *hub) subscribe(e Emitter) func() {
	h.mu.Lock()
	defer h.mu.Unlock()
	// The snapshot takes no number of its own: it carries the last event's,
	// so every subscriber sees the same unbroken numbering after it.
	snap := h.copySnap()
	e.Emit(Event{Run: h.run, Seq: h.seq, Time: time.Now(), Kind: KindSnapshot, Snapshot: &snap})
	id := h.next
	h.next++
	h.subs[id] = e
	return func() {
		h.mu.Lock()
		delete(h.subs, id)
		h.mu.Unlock()
	}
}

// plural is one or other by n ("1 step", "2 steps").
func plural(n, one, other string) string {
	if n == "1" {
		return one
	}
	return other
}
