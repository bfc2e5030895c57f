package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"tandem/engine"
	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/mirror"
)

// The simulation of several runs and one person (issue 28): 2 to 4
// phones in one Backend, a run on each (started again when one ends), and
// one person who clicks, drags, types, confirms, denies, answers, pauses,
// resumes, takes over, hands back and stops, aiming each act at one tile,
// through the backend's own entry points — Hand for every input (as
// MirrorAPI's methods call it), Run(id) and the run's command for every
// button (as RunsAPI.command does), Launch to start — so the routing the
// doors rely on (by device id, by run id) is what is under test. After
// every act it checks, against each phone's own log (manyruns_world_test.go):
//
//  1. no input of the person reaches a phone other than the one they aimed
//     at, and an input the backend says was done reached that one exactly
//     once (one a take-over swallowed reached none);
//  2. no confirmation lets a sensitive action run on another run: each
//     phone's sensitive actions are at most the confirmations the person
//     gave its run;
//  3. pausing, taking over or stopping one run never changes another's
//     state: a run enters Paused, Manual or Stopped only after the person
//     asked that run (or, for Manual, its own model asked them to drive);
//  4. every frame a phone's mirror holds is that phone's;
//  5. while a window is open and behind, each request (and each failure)
//     of a run raises one desktop notification naming that run's phone;
//     in front, or with no window, none (manyruns_notes_test.go);
//
// and once every run has ended, every run's record names its own phone
// and holds only its phone's actions.
//
// The runs are on one engine.Scheduler with a virtual clock (Runs.world),
// not on goroutines: the backend's routing is plain calls over the runs'
// commands, which step that one scheduler until answered, so the whole
// backend runs on the test's goroutine, a seed is one interleaving, and a
// failing seed replays exactly (MANYRUNS_SEED=N go test ./backend -run
// TestManyRunsShow prints its trace). The desks are opened as tiles would
// open them, without their frame loops (the frames come from the runs).

// manyOptions tune one simulated session.
type manyOptions struct {
	acts  int    // the person's acts (default 60)
	plant string // a fault planted to prove the checks can fail: "wrong-desk", "wrong-run", "note-wrong-phone"
}

// manyOutcome is what one seed found.
type manyOutcome struct {
	seed       uint64
	phones     int
	violations []string
	trace      []string
	checks     int
	acts       map[string]int // accepted acts by name
	notes      int            // desktop notifications shown
}

func (o manyOutcome) failed() bool { return len(o.violations) > 0 }

func (o manyOutcome) String() string {
	return fmt.Sprintf("seed %d (%d phones): %d violation(s)\n%s\n--- trace (%d lines; MANYRUNS_SEED=%d go test ./backend -run TestManyRunsShow) ---\n%s",
		o.seed, o.phones, len(o.violations), strings.Join(o.violations, "\n"), len(o.trace), o.seed, strings.Join(o.trace, "\n"))
}

// manySim is one seed's world and what the checks know of it.
type manySim struct {
	seed   uint64
	opt    manyOptions
	rng    *simTape
	b      *Backend
	sched  *engine.Scheduler
	phones []*simPhone
	dir    string

	runIDs []string      // the run each tile shows (the id Launch returned)
	runs   []*engine.Run // that run, as filed under its phone at its launch
	ended  []*engine.Run // every run, for the record check
	seen   []int         // each phone's log, checked up to here

	confirms, pays      []int // per phone, for the phone's current run
	pendPause, pendTake []int
	stopAsked           []bool
	last                []engine.State
	planted             bool
	win                 simWindow // the person's window and the notes it raised (manyruns_notes_test.go)
	notes               int       // the notes shown

	trace, violations []string
	checks            int
	acts              map[string]int
}

func (s *manySim) logf(format string, args ...any) {
	s.trace = append(s.trace, fmt.Sprintf(format, args...))
}

func (s *manySim) check(ok bool, format string, args ...any) {
	s.checks++
	if !ok {
		v := fmt.Sprintf(format, args...)
		s.violations = append(s.violations, v)
		s.logf("VIOLATION: %s", v)
	}
}

// simulateMany runs one seed.
func simulateMany(seed uint64, opt manyOptions) manyOutcome {
	if opt.acts == 0 {
		opt.acts = 60
	}
	s, err := newManySim(seed, opt)
	if err != nil {
		return manyOutcome{seed: seed, violations: []string{err.Error()}}
	}
	defer os.RemoveAll(s.dir)
	for range opt.acts {
		if len(s.violations) > 0 {
			break
		}
		s.act()
	}
	s.end()
	return manyOutcome{seed: seed, phones: len(s.phones), violations: s.violations, trace: s.trace, checks: s.checks, acts: s.acts, notes: s.notes}
}

func newManySim(seed uint64, opt manyOptions) (*manySim, error) {
	dir, err := os.MkdirTemp("/dev/shm", "tandem-manyruns-*")
	if err != nil {
		if dir, err = os.MkdirTemp("", "tandem-manyruns-*"); err != nil {
			return nil, err
		}
	}
	rng := newSimTape(seed)
	n := 2 + rng.IntN(3)
	s := &manySim{seed: seed, opt: opt, rng: rng, dir: dir, acts: map[string]int{},
		runIDs: make([]string, n), runs: make([]*engine.Run, n), seen: make([]int, n),
		confirms: make([]int, n), pays: make([]int, n), pendPause: make([]int, n), pendTake: make([]int, n),
		stopAsked: make([]bool, n), last: make([]engine.State, n)}
	for i := range n {
		s.phones = append(s.phones, &simPhone{i: i, w: 40 + 4*i})
	}
	s.b = New(Config{ConfigDir: filepath.Join(dir, "config"), DataDir: filepath.Join(dir, "data"),
		RunsDir: filepath.Join(dir, "runs"), KeyFile: true, ADB: "127.0.0.1:1"})
	s.b.devices.AddSource(simSource{phones: s.phones})
	s.sched = engine.NewScheduler(rng.IntN, func(line string) { s.logf("  %s", line) })
	s.b.runs.world = &world{sched: s.sched, clock: &simClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}
	// Every phone on a tile: its desk is open (without its frame loop).
	for i, p := range s.phones {
		done := make(chan struct{})
		close(done)
		tile := "tile-" + strconv.Itoa(i)
		s.b.desks.byID[p.id()] = &desk{id: p.id(), dev: p, cancel: func() {}, poke: make(chan struct{}, 1), done: done,
			viewers: map[string]bool{tile: true}}
		s.b.desks.watches[tile] = p.id()
	}
	if opt.plant == "wrong-desk" { // Hand on phone 0 with no run reaches phone 1's desk
		s.b.desks.byID[s.phones[0].id()], s.b.desks.byID[s.phones[1].id()] = s.b.desks.byID[s.phones[1].id()], s.b.desks.byID[s.phones[0].id()]
	}
	s.logf("seed %d: %d phones", seed, n)
	s.openWindow()
	return s, nil
}

// act lets the world go on a while, then makes one of the person's acts
// on one tile and checks every phone.
func (s *manySim) act() {
	for k := s.rng.IntN(30); k > 0 && s.sched.Step(); k-- {
	}
	s.checkPhones(-1, "the world went on", nil, "")
	t := s.rng.IntN(len(s.phones))
	name, do := s.choose(t)
	if do == nil {
		return
	}
	s.logf("person: %s on %s (seen %s)", name, s.phones[t].id(), s.stateOf(t))
	aimed, out, err := do(context.Background())
	s.judge(t, name, out, err)
	s.checkPhones(t, name, aimed, out)
}

func (s *manySim) stateOf(t int) string {
	if s.runs[t] == nil {
		return "no run"
	}
	return s.runs[t].State().String()
}

// personAct is one act: the input it aimed (nil for a command), where the
// backend says the input went, and the error.
type personAct func(ctx context.Context) (*action.Action, Outcome, error)

// choose picks an act on tile t that fits what the person sees there, and
// now and then one that does not (which must be refused).
func (s *manySim) choose(t int) (string, personAct) {
	live := s.runs[t] != nil && !s.runs[t].State().Terminal()
	if !live && s.rng.IntN(3) > 0 {
		return "start", s.start(t)
	}
	k := s.rng.IntN(100)
	if live && s.runs[t].State() == engine.WaitingForUser && k < 50 {
		switch k % 3 {
		case 0:
			return "confirm", s.command(t, (*RunHandle).Confirm)
		case 1:
			return "deny", s.command(t, func(r *RunHandle, ctx context.Context) error { return r.Deny(ctx, "no") })
		}
		return "answer", s.command(t, func(r *RunHandle, ctx context.Context) error { return r.Answer(ctx, "the first") })
	}
	switch {
	case k < 22:
		return "tap", s.input(t, s.press(t, false))
	case k < 30:
		return "drag", s.input(t, s.press(t, true))
	case k < 38:
		text := fmt.Sprintf("person %d %d", t, s.rng.IntN(1000))
		return "type", s.input(t, Input{Gesture: &action.Action{Type: action.TypeText, Text: text}})
	case k < 48:
		return "pause", s.command(t, (*RunHandle).Pause)
	case k < 58:
		return "resume", s.command(t, (*RunHandle).Resume)
	case k < 66:
		return "take_over", s.command(t, (*RunHandle).TakeOver)
	case k < 78:
		return "hand_back", s.command(t, func(r *RunHandle, ctx context.Context) error { return r.HandBack(ctx, "done", nil) })
	case k < 84:
		return "confirm", s.command(t, (*RunHandle).Confirm)
	case k < 88:
		return "stop_after", s.command(t, func(r *RunHandle, ctx context.Context) error { return r.StopGracefully(ctx, s.rng.IntN(3)) })
	case k < 94:
		return "stop", s.command(t, (*RunHandle).Stop)
	case k < 97:
		return "window_front", s.moveWindow(true)
	}
	if k < 100 {
		return "window_behind", s.moveWindow(false)
	}
	return "", nil
}

// press is a press on tile t's mirror as the page reports it: a tap, or a
// drag down the screen, at the person's mark for phone t.
func (s *manySim) press(t int, drag bool) Input {
	p := s.phones[t]
	x, y := personX+t, 10+s.rng.IntN(payY-20)
	pr := mirror.Press{X0: x, Y0: y, X: x, Y: y, Ms: 60, W: p.w, H: simH}
	if drag {
		pr.Y, pr.Far = y+10, 10
	}
	return Input{Press: &pr}
}

// input hands in to Backend.Hand for tile t's phone.
func (s *manySim) input(t int, in Input) personAct {
	return func(ctx context.Context) (*action.Action, Outcome, error) {
		want := in.Gesture
		if in.Press != nil {
			g, err := in.Press.Gesture()
			if err != nil {
				return nil, "", err
			}
			want = &g
		}
		out, err := s.b.Hand(ctx, s.phones[t].id(), in)
		return want, out, err
	}
}

// command gives the person's command to the run tile t shows, by its id,
// as RunsAPI.command does.
func (s *manySim) command(t int, f func(*RunHandle, context.Context) error) personAct {
	return func(ctx context.Context) (*action.Action, Outcome, error) {
		if s.runIDs[t] == "" {
			return nil, "", ErrNoRun
		}
		r, err := s.b.Run(s.runIDs[t], ByWindow())
		if err != nil {
			return nil, "", err
		}
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		return nil, "", f(r, ctx)
	}
}

// start starts a run on tile t's phone with its scripted model.
func (s *manySim) start(t int) personAct {
	return func(ctx context.Context) (*action.Action, Outcome, error) {
		p := s.phones[t]
		set := engine.Settings{Budget: engine.Budget{Steps: 40}, MaxRecordBytes: 1}
		snap, err := s.b.Launch(ctx, p.id(), "count to three", Setup{Planner: &simModel{i: t, w: p.w, rng: s.rng}, Settings: set})
		if err != nil {
			return nil, "", err
		}
		run, ok := s.b.runs.OnDevice(p.id())
		s.check(ok && run.ID() == snap.ID && snap.Device == p.id(), "start on %s: the backend filed run %s under it (snapshot of %s)", p.id(), snap.ID, snap.Device)
		s.runIDs[t], s.runs[t] = snap.ID, run
		s.ended = append(s.ended, run)
		s.confirms[t], s.pays[t], s.pendPause[t], s.pendTake[t], s.stopAsked[t] = 0, 0, 0, 0, false
		s.last[t] = engine.Idle
		if s.opt.plant == "wrong-run" && !s.planted && s.runIDs[0] != "" && s.runIDs[1] != "" {
			// Commands for phone 0's run reach phone 1's, and back.
			s.planted = true
			r := s.b.runs
			r.byID[s.runIDs[0]], r.byID[s.runIDs[1]] = r.byID[s.runIDs[1]], r.byID[s.runIDs[0]]
		}
		return nil, "", nil
	}
}

// judge checks the answer: accepted (and then the run is where the
// command says, and the person's asks are noted), or refused with an
// error a door can word; never hung.
func (s *manySim) judge(t int, name string, out Outcome, err error) {
	var ill *engine.IllegalError
	switch {
	case err == nil:
		s.acts[name]++
	case errors.As(err, &ill), errors.Is(err, engine.ErrFinished), errors.Is(err, engine.ErrBusy),
		errors.Is(err, ErrDeviceBusy), errors.Is(err, ErrNoRun), errors.Is(err, action.ErrInvalid), errors.Is(err, device.ErrUnsupported):
		s.logf("person: %s refused: %v", name, err)
		return
	default:
		s.check(false, "%s on %s hung or failed with no refusal: %v", name, s.phones[t].id(), err)
		return
	}
	if out != "" {
		s.logf("person: %s went %s", name, out)
	}
	switch {
	case name == "confirm":
		s.confirms[t]++
	case name == "pause":
		s.pendPause[t]++
	case name == "take_over" || out == TookOver:
		s.pendTake[t]++
	case name == "stop" || name == "stop_after":
		s.stopAsked[t] = true
	}
	if name == "stop" {
		st := s.runs[t].State()
		s.check(st.Terminal(), "invariant 3: stop on %s returned with its run in %s", s.phones[t].id(), st)
	}
}
