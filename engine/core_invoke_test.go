package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/engine/model"
)

// The core's random runs (core_test.go), watching what the chart's invoke
// and timeout columns start and stop (chart_invoke.go):
//
//   - a result of an invocation that is no longer running (its state
//     left, or its work over), whatever it says and whenever it comes,
//     changes nothing: no effect, the same state;
//   - the device-away timeout runs exactly while the run is
//     Paused.DeviceAway (or DeviceAwayHeld), and its firing there fails
//     the run as a device that stayed away.
//
// Named TestCore so `make mutants` runs them.

// invokeRig follows the invocations the core starts, with their ids.
type invokeRig struct {
	*coreRig
	started []started // every invocation the core started, in order
	timer   *started  // the timeout the runner would hold (nil: none)
	stale   int       // stale results handed in
	fired   int       // timeouts fired
}

// started is one invocation: its id and its work, watch or timer.
type started struct {
	id    uint64
	w     work
	watch *fxWatch
	timer *fxTimer
}

// note follows the effects of a turn.
func (c *invokeRig) note(fx []effect) {
	for _, f := range fx {
		switch f := f.(type) {
		case fxWork:
			c.started = append(c.started, started{id: f.gen, w: f.w})
		case fxAdopt:
			c.started = append(c.started, started{id: f.gen, w: f.w})
		case fxWatch:
			w := f
			c.started = append(c.started, started{id: f.gen, watch: &w})
		case fxTimer:
			t := f
			s := started{id: f.fire.(result).invocation(), timer: &t}
			c.started = append(c.started, s)
			c.timer = &s
		case fxStopTimer, fxEnd:
			c.timer = nil
		}
	}
}

// deliver hands m to the core as the loop does and checks the effects.
func (c *invokeRig) deliver(m message) error {
	l := c.l
	timed := c.timer != nil && m.on == OnDeviceAway && m.gen == c.timer.id
	if !timed && !m.on.IsCommand() && m.on != OnManualDone && m.on != OnDropped && m.gen != l.gen {
		return nil // the rig's world: results of work it knows is cancelled are not sent
	}
	if m.on.IsCommand() {
		m.reply = make(chan error, 2)
	}
	c.noteResult(m)
	l.on = m.on
	err := l.turn(m)
	fx := l.take()
	c.logf("%s -> %s (err %v) fx %s", m.on, l.state, err, describeFx(fx))
	c.note(fx)
	if m.on == OnManualInput && err == nil {
		c.made = append(c.made, madeInput{m.act, m.done})
	}
	if err := c.apply(m, fx); err != nil {
		return err
	}
	if m.on == OnStop && err == nil {
		c.stopped = true
	}
	if timed {
		c.fired++
		if l.state != Failed || l.ending != nil {
			return fmt.Errorf("the device-away timeout fired and the run is %s", l.state)
		}
	}
	if err := c.checkWork(); err != nil {
		return err
	}
	return c.checkTimer()
}

// checkTimer: the device-away timeout runs exactly while the run waits
// for the lost device.
func (c *invokeRig) checkTimer() error {
	l := c.l
	if c.ended || l.state.Terminal() || l.ending != nil {
		return nil
	}
	leaf := l.stateLeaf()
	away := leaf == nDeviceAway || leaf == nDeviceAwayHeld
	switch {
	case c.timer != nil && !away:
		return fmt.Errorf("the device-away timeout runs in %s", l.chart.id(leaf))
	case c.timer == nil && away:
		return fmt.Errorf("the run waits for the lost device in %s with no timeout", l.chart.id(leaf))
	}
	return nil
}

// staleResult is, at random, a result of an invocation no longer running
// (nil: none has ended yet).
func (c *invokeRig) staleResult() *message {
	live := map[uint64]bool{}
	if c.live != nil {
		live[c.gen] = true
	}
	if c.watch != nil {
		live[c.watch.gen] = true
	}
	if c.timer != nil {
		live[c.timer.id] = true
	}
	var old []started
	for _, s := range c.started {
		if !live[s.id] {
			old = append(old, s)
		}
	}
	if len(old) == 0 {
		return nil
	}
	s := old[c.rng.IntN(len(old))]
	f := c.frame()
	switch {
	case s.timer != nil:
		return &message{on: OnDeviceAway, gen: s.id, err: device.ErrGone}
	case s.watch != nil:
		if c.rng.IntN(2) == 0 {
			return &message{on: OnDeviceBack, gen: s.id}
		}
		return &message{on: OnDeviceAway, gen: s.id, err: s.watch.cause}
	case c.rng.IntN(6) == 0:
		return &message{on: OnDeviceLost, gen: s.id, err: device.ErrGone}
	}
	switch w := s.w.(type) {
	case planWork:
		p := &planResult{only: w.call == 0, frame: f, print: FingerprintOf(f), obs: model.Observation{Screen: coreScreen}, info: &device.Info{Screen: coreScreen}}
		p.plan.Actions = []action.Action{{Type: action.Finish, Summary: "a stale answer"}}
		return &message{on: OnPlanned, gen: s.id, planned: p}
	case actWork:
		return &message{on: OnActionDone, gen: s.id, acted: &actResult{}}
	case stableWork:
		on := OnStable
		if c.rng.IntN(2) == 0 {
			on = OnGlimpse
		}
		return &message{on: on, gen: s.id, settled: &stableResult{s: Settled{Frame: f, Print: FingerprintOf(f), Stable: true}}}
	}
	return nil
}

// sendStale hands the core a stale result, straight, and checks it
// changed nothing.
func (c *invokeRig) sendStale(m message) error {
	l := c.l
	before, gen := l.state, l.gen
	l.on = m.on
	err := l.turn(m)
	fx := l.take()
	c.stale++
	c.logf("stale %s(%d) -> %s (err %v) fx %s", m.on, m.gen, l.state, err, describeFx(fx))
	if err != nil || len(fx) > 0 || l.state != before || l.gen != gen {
		return fmt.Errorf("a stale %s of invocation %d changed the run: %s -> %s, err %v, effects %s", m.on, m.gen, before, l.state, err, describeFx(fx))
	}
	return nil
}

// runCoreInvoke plays a random run, handing in stale results and firing
// the timeout at random.
func runCoreInvoke(seed uint64) (*invokeRig, error) {
	const goal = "buy the cheapest one"
	c := &invokeRig{coreRig: &coreRig{l: newCore(coreEnvForTest(), goal), rng: rand.New(rand.NewPCG(seed, 53))}}
	c.records = []Entry{{Kind: recStart, Goal: goal}}
	err := drive(c.coreRig, func(m message) error {
		if err := c.deliver(m); err != nil {
			return err
		}
		if c.ended {
			return nil
		}
		if c.rng.IntN(3) == 0 {
			if s := c.staleResult(); s != nil {
				if err := c.sendStale(*s); err != nil {
					return err
				}
			}
		}
		if c.timer != nil && c.rng.IntN(4) == 0 {
			return c.deliver(message{on: OnDeviceAway, gen: c.timer.id, err: device.ErrGone})
		}
		return nil
	})
	return c, err
}

func TestCoreInvocations(t *testing.T) {
	runs := *coreRuns
	if testing.Short() {
		runs /= 10
	}
	stale, fired := 0, 0
	for seed := range uint64(runs) {
		c, err := runCoreInvoke(seed)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, strings.Join(c.trace, "\n"))
		}
		stale += c.stale
		fired += c.fired
	}
	if stale < runs || fired < runs/50 {
		t.Errorf("the random runs do not reach the checks: %d stale results, %d timeouts fired", stale, fired)
	}
	t.Logf("%d runs: %d stale results, %d timeouts fired", runs, stale, fired)
}

// A state's timeout fires as an event with its row: Paused.DeviceAway's
// fails the run as a device that stayed away; fired after the run left
// the state (the person resumed), it changes nothing.
func TestCoreDeviceAwayTimeout(t *testing.T) {
	for _, resumed := range []bool{false, true} {
		l := newCore(coreEnvForTest(), "g")
		turn := func(m message) []effect {
			t.Helper()
			l.on = m.on
			if err := l.turn(m); err != nil {
				t.Fatal(err)
			}
			return l.take()
		}
		turn(message{on: OnStart})
		var timer *fxTimer
		for _, f := range turn(message{on: OnDeviceLost, gen: l.gen, err: device.ErrGone}) {
			if f, ok := f.(fxTimer); ok {
				timer = &f
			}
		}
		if l.state != Paused || timer == nil || timer.after != l.settings.DeviceAwayMax {
			t.Fatalf("lost device: %s, timer %+v", l.state, timer)
		}
		fire := func() []effect {
			t.Helper()
			l.on = OnDeviceAway
			if err := l.fire(timer.fire); err != nil {
				t.Fatal(err)
			}
			return l.take()
		}
		if resumed {
			turn(message{on: OnResume})
			if fx := fire(); len(fx) > 0 || l.state != Planning {
				t.Fatalf("the timeout of a state left: %s, effects %s", l.state, describeFx(fx))
			}
			continue
		}
		var end *Result
		for _, f := range fire() {
			if f, ok := f.(fxEnd); ok {
				end = &f.res
			}
		}
		if end == nil || end.State != Failed || end.Why == nil || end.Why.Code != CauseDeviceAway {
			t.Fatalf("the timeout fired: %s, end %+v", l.state, end)
		}
	}
}
