// Package sim is a randomized simulation of Tandem runs that checks the
// person's guarantees in every interleaving it meets. A seed fixes a
// scripted model (valid and invalid replies, sensitive steps anywhere in a
// plan, questions, take-over requests, garbage, errors), a phone with
// faults (failed UI-tree dumps, secure screens, drops) and a person who
// presses anything at any moment (stop, pause, edits, take over, inputs
// and live touches, hand back with a region, confirm, deny, answer).
//
// One seed is one interleaving, exactly (issue 27; FoundationDB's and
// TigerBeetle's simulators work so). The engine's own core, effects and
// work run for real, but on an engine.Scheduler instead of goroutines: one
// goroutine runs the whole world, an item at a time (a piece of work, a
// message to the run, a move of the person), on a virtual clock, and which
// waiting item goes next is a choice drawn from the seed, like every other
// choice (tape.go). So a slow model reply or a slow tap is one whose result
// the scheduler runs late, after a Stop, a pause or an input; and a seed
// that fails fails again every time, with the same trace. Shrink then
// looks for the shortest run that fails the same way, by editing the
// seed's choices, and prints its trace. The engine's goroutine runner is
// tested end to end by the engine's own tests.
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
//     disk then, its last line lost or torn) resumes from that record and
//     keeps every promise above (one seed in eight may crash);
//  7. what the phone did is what the run says it did: every input that
//     landed on the phone, by its own log (the agent's and the person's,
//     live touches included), is a step of the run and an entry of its
//     record, in order, and nothing else is, whatever arrived meanwhile
//     (ledger.go; issue 27);
//
// and besides: step numbers are unique in the history the model is told,
// a secure screen is said to the model in words, and "stop after N steps"
// lets at most N more actions start (the one under way counts).
package sim

import (
	"context"
	"fmt"
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
	// plant is a fault planted for the tests of the simulation itself
	// (checker.plant).
	plant bool
}

// DefaultOptions is what Simulate uses when given zero Options.
var DefaultOptions = Options{Moves: 40, Faults: phoneFaults{treeFail: 0.1, secure: 0.05, drop: 0.01}}

// Outcome is what one simulated run found.
type Outcome struct {
	Seed       uint64
	Final      engine.State
	Violations []string
	// Trace is what happened, in order: the person's moves, each item the
	// scheduler ran (a piece of work, or a message delivered to the run),
	// device actions, states.
	Trace  []string
	Checks int64 // invariant checks made
	// Choices are the tape the run made (see tape): replayed, they make
	// the same run again.
	Choices []int
}

// Failed reports whether any invariant broke.
func (o Outcome) Failed() bool { return len(o.Violations) > 0 }

// String is a reproduction: the seed, the broken invariants, the trace.
func (o Outcome) String() string {
	return fmt.Sprintf("seed %d: %d violation(s), final state %s, %d choices\n%s\n--- trace (%d lines) ---\n%s",
		o.Seed, len(o.Violations), o.Final, len(o.Choices), joinLines(o.Violations), len(o.Trace), joinLines(o.Trace))
}

// Simulate runs one seed.
func Simulate(seed uint64, opt Options) Outcome { return simulate(seed, newTape(seed), opt) }

// simulate runs one seed with the choices of t.
func simulate(seed uint64, t *tape, opt Options) Outcome {
	if opt.Moves == 0 {
		opt.Moves = DefaultOptions.Moves
	}
	if opt.Faults == (phoneFaults{}) {
		opt.Faults = DefaultOptions.Faults
	}
	chk := &checker{plant: opt.plant}
	world := engine.NewScheduler(t.IntN, func(line string) { chk.log("%s", line) })
	ph := newPhone(t, opt.Faults, chk)
	pol := engine.DefaultPolicy()
	pol.Apps = []string{bankApp}
	dir, err := recordDir()
	if err != nil {
		return Outcome{Seed: seed, Violations: []string{err.Error()}}
	}
	defer os.RemoveAll(dir)
	cfg := engine.Config{Device: ph, Planner: newModel(t, chk), Emitter: chk, Clock: newClock(), DataDir: dir,
		Scheduler: world, PersonInput: ph.personDo}
	first := cfg
	first.ID, first.Goal, first.DeviceID = fmt.Sprintf("sim-%d", seed), "count to three", "sim"
	first.Settings = engine.Settings{Policy: pol, UITree: true, Budget: engine.Budget{Steps: 60}}
	if seed%8 != 0 {
		// Only a crash reads a record back: the other seeds keep its lines
		// (invariant 7 reads them) and spare the frames' JPEG encoding;
		// past its bound a record keeps no frames, as on a full disk.
		first.Settings.MaxRecordBytes = 1
	}
	run, err := engine.New(first)
	if err != nil {
		return Outcome{Seed: seed, Violations: []string{err.Error()}}
	}
	chk.run.Store(run)
	chk.ledger.begin(run, 0)
	p := &person{chk: chk, rng: t, world: world, phone: ph, run: run}
	if seed%8 == 0 { // one seed in eight may crash
		p.resume = func(dir string) (*engine.Run, error) { return engine.Resume(dir, cfg) }
	}
	ctx := context.Background()
	if err := run.Start(ctx); err != nil {
		chk.fail("start: %v", err)
	}
	for i := 0; i < opt.Moves && p.act(); i++ {
	}
	run = p.run // a crash resumed it as another
	if !run.State().Terminal() {
		p.chk.log("person: stop (end of the script)")
		p.judge("stop", p.stop(ctx))
	}
	if _, err := run.Wait(ctx); err != nil {
		chk.fail("the run did not end after its stop: %v", err)
	}
	res := run.Result()
	snap := run.Snapshot()
	chk.check(snap.State == res.State, "the snapshot says %s, the result %s", snap.State, res.State)
	for _, v := range chk.ledger.check() {
		chk.fail("%s", v)
	}
	v, tr := chk.report()
	return Outcome{Seed: seed, Final: res.State, Violations: v, Trace: tr, Checks: chk.checks.Load(), Choices: trimZeros(t.used)}
}

// trimZeros drops the plain choices at the end of a tape: a replay makes
// them by itself.
func trimZeros(c []int) []int {
	n := len(c)
	for n > 0 && c[n-1] == 0 {
		n--
	}
	return c[:n]
}

// Stats sums many runs.
type Stats struct {
	Runs, Failed int
	Checks       int64
	Elapsed      time.Duration
	First        *Outcome // the first failing run
}

// Many runs seeds from..from+n-1, as many at once as there are CPUs (each
// seed's world is one goroutine of its own), and sums them; First is the
// failing run with the lowest seed.
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
