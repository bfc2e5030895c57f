// Package sim is a randomized simulation of Tandem runs that checks the
// person's guarantees in every interleaving it meets. A seed fixes a
// scripted model (valid and invalid replies, sensitive steps anywhere in a
// plan, questions, take-over requests, garbage, errors, slow answers), a
// phone with faults (failed UI-tree dumps, secure screens, drops, slow
// actions) and a person who presses anything at any moment (stop, pause,
// edits, take over, inputs, hand back with a region, confirm, deny,
// answer). The engine runs for real, goroutines and all, on a virtual
// clock, so a run takes a fraction of a millisecond of waiting.
//
// The invariants (issue 19) are checked where they can be seen: at the
// phone as each action starts and lands, at the model as each request
// arrives, and after each of the person's commands:
//
//  1. no device action after Stop returns, nor while Paused, Manual or
//     WaitingForUser (and none lands after the run announced its end);
//  2. no sensitive action runs unconfirmed, wherever it is in a plan;
//  3. every command is accepted (and does what it says) or refused with an
//     error; none hangs;
//  4. what the person did when they handed back (their step, note and
//     region, and the words saying so) reaches the next model call;
//  5. a step the person edited while paused is what runs next;
//  6. a run whose app crashes at any moment (its record copied as it is on
//     disk then) resumes from that record and keeps every promise above
//     (one seed in eight keeps a record and may crash);
//
// and besides: step numbers are unique in the history the model is told,
// a secure screen is said to the model in words, and "stop after N steps"
// lets at most N more actions start (the one under way counts).
//
// The seed decides every choice; which goroutine wins a race is up to the
// Go scheduler, so a failing seed reproduces most of the time, not always.
// Minimize looks for the shortest reproduction of a failing seed.
package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"tandem/engine"
)

// Options tune one simulated run.
type Options struct {
	// Moves bounds the person's moves; the run is stopped after them.
	Moves int
	// Faults on the phone (zero: the defaults below).
	Faults phoneFaults
}

// DefaultOptions is what Simulate uses when given zero Options.
var DefaultOptions = Options{Moves: 40, Faults: phoneFaults{treeFail: 0.1, secure: 0.05, drop: 0.01, slow: 0.1}}

// Outcome is what one simulated run found.
type Outcome struct {
	Seed       uint64
	Final      engine.State
	Violations []string
	Trace      []string // what happened, in order: moves, device actions, states
	Checks     int64    // invariant checks made
}

// Failed reports whether any invariant broke.
func (o Outcome) Failed() bool { return len(o.Violations) > 0 }

// String is a reproduction: the seed, the broken invariants, the trace.
func (o Outcome) String() string {
	return fmt.Sprintf("seed %d: %d violation(s), final state %s\n%s\n--- trace ---\n%s",
		o.Seed, len(o.Violations), o.Final, joinLines(o.Violations), joinLines(o.Trace))
}

// Simulate runs one seed.
func Simulate(seed uint64, opt Options) Outcome {
	if opt.Moves == 0 {
		opt.Moves = DefaultOptions.Moves
	}
	if opt.Faults == (phoneFaults{}) {
		opt.Faults = DefaultOptions.Faults
	}
	chk := &checker{}
	ph := newPhone(seed, opt.Faults, chk)
	pol := engine.DefaultPolicy()
	pol.Apps = []string{bankApp}
	cfg := engine.Config{Device: ph, Planner: newModel(seed, chk), Emitter: chk, Clock: newClock()}
	crashes := seed%8 == 0
	if crashes {
		dir, err := recordDir()
		if err != nil {
			return Outcome{Seed: seed, Violations: []string{err.Error()}}
		}
		defer os.RemoveAll(dir)
		cfg.DataDir = dir
	}
	first := cfg
	first.ID, first.Goal, first.DeviceID = fmt.Sprintf("sim-%d", seed), "count to three", "sim"
	first.Settings = engine.Settings{Policy: pol, UITree: true, Budget: engine.Budget{Steps: 60}}
	run, err := engine.New(first)
	if err != nil {
		return Outcome{Seed: seed, Violations: []string{err.Error()}}
	}
	chk.run.Store(run)
	p := &person{chk: chk, rng: rand.New(rand.NewPCG(seed, 0x9e75)), run: run}
	if crashes {
		p.resume = func(dir string) (*engine.Run, error) { return engine.Resume(dir, cfg) }
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	if err := run.Start(ctx); err != nil {
		chk.fail("start: %v", err)
	}
	for i := 0; i < opt.Moves && p.act(); i++ {
	}
	run = p.run // a crash resumed it as another
	if !run.Snapshot().State.Terminal() {
		p.chk.log("person: stop (end of the script)")
		p.judge("stop", p.stop(ctx))
	}
	if _, err := run.Wait(ctx); err != nil {
		chk.fail("the run did not end within %s of its stop", hangGuard)
	}
	ph.late.Wait()
	res := run.Result()
	snap := run.Snapshot()
	chk.check(snap.State == res.State, "the snapshot says %s, the result %s", snap.State, res.State)
	v, tr := chk.report()
	return Outcome{Seed: seed, Final: res.State, Violations: v, Trace: tr, Checks: chk.checks.Load()}
}

// Minimize looks for the fewest person moves with which seed still fails
// (tries repeats times per length, as races may not recur every time) and
// returns that reproduction; ok is false when the seed no longer fails.
func Minimize(seed uint64, opt Options, repeats int) (Outcome, bool) {
	if opt.Moves == 0 {
		opt.Moves = DefaultOptions.Moves
	}
	var best Outcome
	found := false
	for moves := 0; moves <= opt.Moves; moves++ {
		o := opt
		o.Moves = moves
		for range max(repeats, 1) {
			if out := Simulate(seed, o); out.Failed() {
				return out, true
			}
		}
	}
	return best, found
}

// Stats sums many runs.
type Stats struct {
	Runs, Failed int
	Checks       int64
	Elapsed      time.Duration
	First        *Outcome // the first failing run
}

// Many runs seeds from..from+n-1, as many at once as there are CPUs, and
// sums them; First is the failing run with the lowest seed.
func Many(from uint64, n int, opt Options) Stats {
	t0 := time.Now()
	var (
		mu   sync.Mutex
		s    Stats
		next atomic.Uint64
		wg   sync.WaitGroup
	)
	next.Store(from)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				seed := next.Add(1) - 1
				if seed >= from+uint64(n) {
					return
				}
				o := Simulate(seed, opt)
				mu.Lock()
				s.Runs++
				s.Checks += o.Checks
				if o.Failed() {
					s.Failed++
					if s.First == nil || o.Seed < s.First.Seed {
						s.First = &o
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	s.Elapsed = time.Since(t0)
	return s
}

// recordDir makes the folder a simulated run keeps its record in: in
// memory where the system has it (/dev/shm), so the record's sync per line
// costs nothing and crashing runs do not slow the simulation down; in the
// temporary folder elsewhere.
func recordDir() (string, error) {
	if dir, err := os.MkdirTemp("/dev/shm", "tandem-sim-*"); err == nil {
		return dir, nil
	}
	return os.MkdirTemp("", "tandem-sim-*")
}
