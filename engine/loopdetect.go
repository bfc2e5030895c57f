package engine

import (
	"bytes"
	"fmt"
	"image"
	"reflect"
	"regexp"
	"strings"

	"tandem/engine/action"
	"tandem/internal/encoded"
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
	off       bool        // Settings.NoLoopDetection: it never speaks
}

// observe records one device action that was expected to change the screen,
// done on screen before; changed says whether it changed anything (see
// screenChanged: judged exactly, as the useful effect of an action can be
// one digit). threshold is how far two frames may differ and still show
// the same screen (for "repeated on the same screen").
func (d *loopDetector) observe(a action.Action, before Fingerprint, changed bool, threshold float64) (loopVerdict, Cause) {
	repeated := d.last != nil && sameAction(*d.last, a) && !d.lastPrint.IsZero() &&
		before.Diff(d.lastPrint) <= threshold && !changed
	d.last, d.lastPrint = &a, before
	if changed || d.off {
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

// screenChanged judges whether an action changed the screen. Stability may
// tolerate noise; this may not: on a counter showing "Count: N" in small
// text a working "+1" moved no fingerprint cell past its noise allowance,
// and the run was stopped as a loop (issue 19). Where both UI trees are
// known their visible text decides (a blinking cursor is no change);
// otherwise the pixels are compared exactly. Nothing known counts as a
// change, so a loop is never called blind.
func screenChanged(before, after image.Image, treeBefore, treeAfter []byte) bool {
	if treeBefore != nil && treeAfter != nil {
		return treeText(treeBefore) != treeText(treeAfter)
	}
	if before == nil || after == nil {
		return true
	}
	return !sameImage(before, after)
}

// treeText is what a UI tree dump shows: every node's attributes (text,
// description, bounds, checked, selected...), in order.
func treeText(tree []byte) string {
	var b strings.Builder
	for _, m := range nodeAttrs.FindAllSubmatch(tree, -1) {
		b.Write(m[1])
		b.WriteByte(0)
	}
	return b.String()
}

var nodeAttrs = regexp.MustCompile(`(?s)<node\b([^>]*)>`)

// sameImage compares two frames pixel for pixel.
func sameImage(a, b image.Image) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	a, b = encoded.Pixels(a), encoded.Pixels(b)
	switch x := a.(type) {
	case *image.RGBA:
		if y, ok := b.(*image.RGBA); ok && x.Stride == y.Stride {
			return bytes.Equal(x.Pix, y.Pix)
		}
	case *image.NRGBA:
		if y, ok := b.(*image.NRGBA); ok && x.Stride == y.Stride {
			return bytes.Equal(x.Pix, y.Pix)
		}
	case *image.Gray:
		if y, ok := b.(*image.Gray); ok && x.Stride == y.Stride {
			return bytes.Equal(x.Pix, y.Pix)
		}
	}
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, a1 := a.At(x, y).RGBA()
			r2, g2, b2, a2 := b.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				return false
			}
		}
	}
	return true
}
