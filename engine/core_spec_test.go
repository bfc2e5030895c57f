package engine

import (
	"fmt"
	"image"

	"tandem/engine/model"
)

// The core's rig and the calls made on a glimpse (speculate.go): the
// stability wait tells of its first capture at random, settles on it or on
// another, and the rig checks that a call started early lives only while
// the run waits for its screen and becomes the step's only on the screen
// the wait settled on, as the very call the core asks for.

// coreSpec is what the rig knows of calls made early.
type coreSpec struct {
	// glimpsed is the first capture the stability wait told of (nil:
	// none yet); spec the call the core started on it; settled the
	// screen the wait settled on.
	glimpsed *stableResult
	spec     *planWork
	settled  image.Image
	adopted  int // calls started on a glimpse that became the step's
	// dropped counts the calls the core cancelled whose end has not come
	// back yet (OnDropped).
	dropped int
}

// droppedCall is, at random, the end of a cancelled call, with what it
// cost; it must change nothing but the run's totals and its record.
func (c *coreRig) droppedCall() (message, bool) {
	if c.dropped == 0 || c.rng.IntN(2) == 0 {
		return message{}, false
	}
	c.dropped--
	p := &planResult{}
	if c.rng.IntN(2) == 0 {
		p.plan.Usage = model.Usage{PromptTokens: 900, Cost: 0.002}
	}
	return message{on: OnDropped, gen: c.gen + 1000, planned: p}, true
}

// noteResult notes a result of work as the runner receives it.
func (c *coreRig) noteResult(m message) {
	if !m.on.IsCommand() && m.on != OnManualDone && m.on != OnGlimpse && m.gen == c.gen {
		c.live = nil // the work in flight has come back
	}
	if m.on == OnStable {
		c.settled = m.settled.s.Frame
	}
}

// applySpec follows an effect about a call made early.
func (c *coreRig) applySpec(m message, f effect) error {
	switch f := f.(type) {
	case fxSpeculate:
		if c.l.state != WaitingForStability || m.on != OnGlimpse || c.ended {
			return fmt.Errorf("a call started early on %s in %s", m.on, c.l.state)
		}
		w := f.w
		c.spec = &w
	case fxDropSpec:
		c.spec = nil
		c.dropped++
	case fxAdopt:
		if c.spec == nil || !sameWork(*c.spec, f.w) || m.on != OnStable || !sameFrame(f.w.frame, c.settled) {
			return fmt.Errorf("adopted %v on %s, started early %v, settled on %p", f.w.frame, m.on, c.spec, c.settled)
		}
		c.live, c.gen, c.glimpsed, c.spec = f.w, f.gen, nil, nil
		c.adopted++
	}
	return nil
}

// checkSpec: a call made early lives only while the run waits for the
// screen it was made on.
func (c *coreRig) checkSpec() error {
	if c.spec != nil && (c.l.state != WaitingForStability || c.l.spec == nil) {
		return fmt.Errorf("a call started early lives on in %s", c.l.state)
	}
	return nil
}

// glimpse is, at random, the wait's first capture (before it is
// confirmed) or the wait settled on that very capture.
func (c *coreRig) glimpse(w stableWork, gen uint64) (message, bool) {
	if c.glimpsed == nil && !w.look && c.rng.IntN(2) == 0 {
		f := c.frame()
		g := &stableResult{s: Settled{Frame: f, Print: FingerprintOf(f)}}
		g.tree, g.app = c.look()
		c.glimpsed = g
		return message{on: OnGlimpse, gen: gen, settled: g}, true
	}
	if g := c.glimpsed; g != nil && c.rng.IntN(3) > 0 {
		c.app = g.app
		s := g.s
		s.Stable = true
		return message{on: OnStable, gen: gen, settled: &stableResult{s: s, tree: g.tree, app: g.app}}, true
	}
	return message{}, false
}

// checkDropped: the end of a cancelled call changes nothing but the record
// and the totals.
func checkDropped(m message, before, after State, fx []effect) error {
	if m.on != OnDropped {
		return nil
	}
	cost := m.planned.plan.Usage
	told := cost == (model.Usage{})
	for _, f := range fx {
		switch f := f.(type) {
		case fxRecord:
			if f.e.Kind != recDropped || (f.e.Usage == nil) != told || f.e.Usage != nil && *f.e.Usage != cost {
				return fmt.Errorf("a dropped call that cost %+v recorded %s %+v", cost, f.e.Kind, f.e.Usage)
			}
		case fxEmit:
			if f.e.Kind != KindUsage {
				return fmt.Errorf("a dropped call told %s", f.e.Kind)
			}
			told = true
		default:
			return fmt.Errorf("a dropped call did %T", f)
		}
	}
	if after != before {
		return fmt.Errorf("a dropped call moved the run from %s to %s", before, after)
	}
	if !told {
		return fmt.Errorf("a dropped call that cost %+v did not tell the totals", cost)
	}
	return nil
}
