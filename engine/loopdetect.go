package engine

import (
	"fmt"
	"reflect"

	"tandem/engine/action"
)

// loopVerdict is what the loop detector advises after a step.
type loopVerdict int

const (
	loopNone     loopVerdict = iota
	loopNudge                // tell the model once
	loopEscalate             // ask the person
)

// loopDetector spots an agent going round in circles: the same action
// repeated on a screen it did not change, or no screen change for K actions
// in a row. The first time it nudges the model; if the loop goes on before
// the screen changes, it escalates. A screen change resets it.
type loopDetector struct {
	k         int // actions without a screen change that count as a loop
	unchanged int
	nudged    bool
	last      *action.Action
	lastPrint Fingerprint // the screen the last action was done on
}

// observe records one device action that was expected to change the screen,
// done on screen before and leaving screen after. threshold is how far two
// frames may differ and still show the same screen (for "repeated on the
// same screen"). Whether the action changed anything is judged strictly:
// any fingerprint cell that moved counts, because the useful effect of an
// action can be small (three typed letters, a ticked box move a handful of
// cells, under the stability threshold) and calling that a loop would throw
// away a good plan. The price is that a blinking cursor can hide a loop.
func (d *loopDetector) observe(a action.Action, before, after Fingerprint, threshold float64) (loopVerdict, Cause) {
	changed := before.IsZero() || after.IsZero() || after.Diff(before) > 0
	repeated := d.last != nil && sameAction(*d.last, a) && !d.lastPrint.IsZero() &&
		before.Diff(d.lastPrint) <= threshold && !changed
	d.last, d.lastPrint = &a, before
	if changed {
		d.unchanged, d.nudged = 0, false
		return loopNone, Cause{}
	}
	d.unchanged++
	var why Cause
	switch {
	case repeated:
		why = Cause{Code: CauseLoopRepeat, Detail: a.String()}
	case d.k > 0 && d.unchanged >= d.k:
		why = Cause{Code: CauseLoopUnchanged, N: fmt.Sprint(d.unchanged)}
	default:
		return loopNone, Cause{}
	}
	if !d.nudged {
		d.nudged = true
		return loopNudge, why
	}
	return loopEscalate, why
}

// reset forgets the history (after the person drove, or after a resume).
func (d *loopDetector) reset() {
	d.unchanged, d.nudged, d.last, d.lastPrint = 0, false, nil, Fingerprint{}
}

func sameAction(a, b action.Action) bool { return reflect.DeepEqual(a, b) }
