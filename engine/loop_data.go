package engine

import (
	"image"
	"time"

	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/engine/model"
)

// The groups of the core's data (loopState): what belongs together is
// kept together, and a substate's data is its own group.

// progress is what the run has spent, and the limits it runs under.
type progress struct {
	calls        int // decisions taken, each its record's call number
	unasked      int // of them, those no model was asked for (replayed, cached, handed): not model calls
	steps        int
	personSteps  int // the person's inputs on the record (steps too)
	usage        model.Usage
	started      time.Time
	elapsedPrior time.Duration // elapsed before a resume
	budget       Budget
	softLimit    int // -1: none
}

// deviceKnown is what the core knows of the device.
type deviceKnown struct {
	info   device.Info
	known  bool // info has been read
	faults int  // the device lost this many times without a good observation between
}

// planTodo is the plan around the current action: the model's thought
// for it, the actions of this reply already done, the element the current
// one aims at (nil: none known), and whether the queue is the person's.
type planTodo struct {
	thought string
	done    []action.Action
	el      *Element
	// edited: the queue is the person's edit, none of it run yet: it runs
	// next, a resume looking at the screen first, a settled screen running
	// it (the model's guards, the loop nudge, are for the model's plan)
	edited bool
}

// callNews is what the newest model call gave that a step has not shown
// yet: its recorded screen, cost, salvage, cache and thought; and whether
// its reply was asked again after it could not be read.
type callNews struct {
	frame    string
	usage    *model.Usage
	salvaged string
	cached   bool
	thought  string
	retried  bool
}

// newestScreen is the newest screen; fresh means nothing happened since
// it was taken.
type newestScreen struct {
	screenNow
	fresh bool
}

// actedOn is the screen the current action was done on, to judge exactly
// whether it changed anything (frame and tree nil: not known).
type actedOn struct {
	print Fingerprint
	frame image.Image
	tree  []byte
	at    time.Time // when the action began
}

// execData is Executing's substate (what the person asked while the
// action runs) and the replies it defers until the action returns.
type execData struct {
	how       executingHow
	pauses    []chan error
	takeOvers []chan error
}

// pauseData is Paused's substate, and why the device was lost (what its
// watch and timeout tell).
type pauseData struct {
	how   pausedHow
	cause error
}

// manualData is Manual's substate: the input on its way and its reply,
// the inputs waiting their turn, a hand back waiting for them, what the
// person did, and what the model asked them to take over for.
type manualData struct {
	how      manualHow
	reply    chan error
	queue    []msgManualInput
	handBack *msgHandBack
	log      []manualInput
	asked    string
}

// endingData is the end's: the trigger that ended the run while an
// action was on its way, the Stops that return once it has ended, and why
// the run was stopped when the stop was not the person's (StopFor).
type endingData struct {
	res     Result // what the run ends with, once its end began
	on      Trigger
	waiters []chan error
	stopFor *Cause
}
