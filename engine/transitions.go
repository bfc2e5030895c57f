package engine

import (
	"fmt"
	"sort"
	"strings"
)

// Trigger is what moves a run: a command from the person or the result of a
// piece of work that ran off the loop.
type Trigger int

// Commands from the person.
const (
	OnStart          Trigger = 1
	OnPause          Trigger = 2
	OnResume         Trigger = 3
	OnTakeOver       Trigger = 4
	OnHandBack       Trigger = 5
	OnStop           Trigger = 6
	OnStopGracefully Trigger = 7
	OnConfirm        Trigger = 8
	OnDeny           Trigger = 9
	OnAnswer         Trigger = 10
	OnEditGoal       Trigger = 11
	OnEditPending    Trigger = 12
	OnManualInput    Trigger = 13 // one input the person makes while driving
)

// Results of work.
const (
	OnPlanned    Trigger = 20 // the model call returned (a plan or an error)
	OnActionDone Trigger = 21 // the device action returned
	OnStable     Trigger = 22 // the screen settled (or the wait hit its cap)
	OnDeviceLost Trigger = 23 // the device went away during work
	OnDeviceBack Trigger = 24 // the lost device answers again
	OnManualDone Trigger = 25 // a person's input (and its settle wait) finished
	OnDeviceAway Trigger = 26 // the lost device is still away (a countdown tick, or the limit)
	OnGlimpse    Trigger = 27 // the first capture after an action, before it is known to be settled
	OnDropped    Trigger = 28 // a call started on a glimpse was cancelled (what it cost, when known)
)

var triggerNames = map[Trigger]string{
	OnStart: "start", OnPause: "pause", OnResume: "resume", OnTakeOver: "take_over",
	OnHandBack: "hand_back", OnStop: "stop", OnStopGracefully: "stop_gracefully",
	OnConfirm: "confirm", OnDeny: "deny", OnAnswer: "answer", OnEditGoal: "edit_goal",
	OnEditPending: "edit_pending", OnManualInput: "manual_input",
	OnPlanned: "planned", OnActionDone: "action_done", OnStable: "stable",
	OnDeviceLost: "device_lost", OnDeviceBack: "device_back", OnManualDone: "manual_done",
	OnDeviceAway: "device_away", OnGlimpse: "glimpse", OnDropped: "dropped_call",
}

func (t Trigger) String() string {
	if n, ok := triggerNames[t]; ok {
		return n
	}
	return fmt.Sprintf("Trigger(%d)", int(t))
}

// IsCommand reports whether the trigger comes from the person.
func (t Trigger) IsCommand() bool { return t < OnPlanned }

// edge lists where a trigger may take a run from one state. A result such
// as a model reply can lead to several states (run the first action, ask the
// person, finish); the handler picks one and the loop checks it is listed.
type edge struct {
	from State
	on   Trigger
	to   []State
}

// onward lists every state the rule for what runs next (after, in
// loop_next.go) can reach once a step's work is done: the next queued
// action, a new model call, the person, or an end.
var onward = []State{Executing, Planning, WaitingForUser, Manual, Paused, Done, Failed, Stopped}

// table is THE transition table. Every state change the loop makes must be
// listed here; every command not listed for the current state is refused
// with an *IllegalError.
var table = []edge{
	{Idle, OnStart, []State{Planning, WaitingForUser}},
	{Idle, OnStop, []State{Stopped}},
	{Idle, OnEditGoal, []State{Idle}},

	{Planning, OnPlanned, onward},
	{Planning, OnPause, []State{Paused}},
	{Planning, OnTakeOver, []State{Manual}},
	{Planning, OnStop, []State{Stopped}},
	{Planning, OnStopGracefully, []State{Planning}},
	{Planning, OnEditGoal, []State{Planning, WaitingForUser, Stopped}},
	{Planning, OnDeviceLost, []State{Paused, WaitingForUser}},

	// Pause and take over wait for the atomic action: the state stays
	// Executing and becomes Paused or Manual when the action returns.
	{Executing, OnActionDone, append([]State{WaitingForStability}, onward...)},
	{Executing, OnPause, []State{Executing}},
	{Executing, OnTakeOver, []State{Executing}},
	{Executing, OnStop, []State{Stopped}},
	{Executing, OnStopGracefully, []State{Executing}},
	{Executing, OnEditGoal, []State{Executing}},
	{Executing, OnEditPending, []State{Executing}},

	{WaitingForStability, OnStable, onward},
	{WaitingForStability, OnPause, []State{Paused}},
	{WaitingForStability, OnTakeOver, []State{Manual}},
	{WaitingForStability, OnStop, []State{Stopped}},
	{WaitingForStability, OnStopGracefully, []State{WaitingForStability}},
	{WaitingForStability, OnEditGoal, []State{WaitingForStability}},
	{WaitingForStability, OnEditPending, []State{WaitingForStability}},
	{WaitingForStability, OnDeviceLost, []State{Paused, WaitingForUser}},

	{WaitingForUser, OnConfirm, []State{Executing, WaitingForUser, Stopped}},
	{WaitingForUser, OnDeny, []State{Planning, WaitingForUser, Stopped}},
	{WaitingForUser, OnAnswer, []State{Planning, WaitingForUser, Stopped}},
	{WaitingForUser, OnResume, []State{Planning, WaitingForUser, Stopped}},
	{WaitingForUser, OnTakeOver, []State{Manual}},
	{WaitingForUser, OnStop, []State{Stopped}},
	{WaitingForUser, OnStopGracefully, []State{Stopped}},
	{WaitingForUser, OnEditGoal, []State{WaitingForUser}},
	{WaitingForUser, OnEditPending, []State{WaitingForUser}},

	{Paused, OnResume, []State{Planning, WaitingForUser, Stopped}},
	{Paused, OnTakeOver, []State{Manual}},
	{Paused, OnStop, []State{Stopped}},
	{Paused, OnStopGracefully, []State{Stopped}},
	{Paused, OnEditGoal, []State{Paused}},
	{Paused, OnEditPending, []State{Paused}},
	{Paused, OnDeviceBack, []State{Planning, WaitingForUser, Paused, Stopped}},
	{Paused, OnDeviceAway, []State{Paused, Failed}},

	// A person's input and its result leave the run in Manual.
	{Manual, OnManualInput, []State{Manual}},
	{Manual, OnManualDone, []State{Manual}},
	{Manual, OnHandBack, []State{Planning, WaitingForUser, Stopped}},
	{Manual, OnStop, []State{Stopped}},
	{Manual, OnStopGracefully, []State{Stopped}},
	{Manual, OnEditGoal, []State{Manual}},
}

// lookup returns the states trigger on may lead to from state from.
func lookup(from State, on Trigger) ([]State, bool) {
	for _, e := range table {
		if e.from == from && e.on == on {
			return e.to, true
		}
	}
	return nil, false
}

// allowed reports whether the table lists from --on--> to.
func allowed(from State, on Trigger, to State) bool {
	tos, ok := lookup(from, on)
	if !ok {
		return false
	}
	for _, s := range tos {
		if s == to {
			return true
		}
	}
	return false
}

// IllegalError is a command that the run's current state does not accept.
type IllegalError struct {
	State   State
	Trigger Trigger
	Why     string // set when the state accepts the command in other circumstances
}

func (e *IllegalError) Error() string {
	if e.Why != "" {
		return fmt.Sprintf("engine: cannot %s while %s: %s", e.Trigger, e.State, e.Why)
	}
	return fmt.Sprintf("engine: cannot %s while %s", e.Trigger, e.State)
}

// Accepts reports whether the state takes trigger t (the transition table).
func (s State) Accepts(t Trigger) bool {
	_, ok := lookup(s, t)
	return ok
}

// DOT renders the transition table as a Graphviz graph, one edge per
// (from, to) pair labelled with its triggers. It is pinned by a golden file
// so a change to the machine shows up in review as a change to the picture.
func DOT() string {
	type pair struct{ from, to State }
	labels := map[pair][]string{}
	for _, e := range table {
		for _, to := range e.to {
			p := pair{e.from, to}
			labels[p] = append(labels[p], e.on.String())
		}
	}
	pairs := make([]pair, 0, len(labels))
	for p := range labels {
		pairs = append(pairs, p)
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].from != pairs[j].from {
			return pairs[i].from < pairs[j].from
		}
		return pairs[i].to < pairs[j].to
	})
	var b strings.Builder
	b.WriteString("digraph run {\n\trankdir=LR;\n")
	for _, s := range States {
		shape := "ellipse"
		if s.Terminal() {
			shape = "doublecircle"
		}
		fmt.Fprintf(&b, "\t%s [shape=%s];\n", s, shape)
	}
	for _, p := range pairs {
		fmt.Fprintf(&b, "\t%s -> %s [label=%q];\n", p.from, p.to, strings.Join(labels[p], ", "))
	}
	b.WriteString("}\n")
	return b.String()
}
