package backend

import (
	"context"
	"time"

	"tandem/engine"
	"tandem/engine/action"
)

// checkPhones reads every phone's log since the last check, after the act
// name aimed at tile t (-1: no act, the world went on by itself) whose
// input was aimed (nil: a command) and went out.
func (s *manySim) checkPhones(t int, name string, aimed *action.Action, out Outcome) {
	for d, p := range s.phones {
		fresh := p.landed(s.seen[d])
		s.seen[d] += len(fresh)
		mine := 0
		for _, a := range fresh {
			who, person, ok := owner(a)
			s.logf("  %s: landed %s", p.id(), a)
			switch {
			case !ok:
				s.check(false, "%s: %s landed on %s, an input nobody sent", name, a, p.id())
			case who != d && person:
				s.check(false, "invariant 1: the person's %s aimed at sim-%d landed on %s (after %s)", a, who, p.id(), name)
			case who != d:
				s.check(false, "invariant 1: run of sim-%d acted on %s: %s (after %s)", who, p.id(), a, name)
			case person:
				mine++
				s.check(d == t && aimed != nil && sameInput(*aimed, a), "invariant 1: %s landed on %s though the person's act was %s on tile %d", a, p.id(), name, t)
			case isPay(a):
				s.pays[d]++
			}
		}
		if d == t && aimed != nil {
			want := 0
			if out == Done {
				want = 1
			}
			s.check(mine == want, "invariant 1: %s on %s went %q but %d input(s) of the person landed there", name, p.id(), out, mine)
		}
		s.check(s.pays[d] <= s.confirms[d], "invariant 2: %d sensitive action(s) ran on %s, whose run the person confirmed %d time(s) (after %s on tile %d)",
			s.pays[d], p.id(), s.confirms[d], name, t)
		s.checkState(d, t, name)
		s.checkFrame(d)
	}
}

// sameInput reports whether landed is the input aimed (a gesture the
// backend classified from a press is compared on its points).
func sameInput(aimed, landed action.Action) bool {
	return aimed.Type == landed.Type && aimed.X == landed.X && aimed.Y == landed.Y &&
		aimed.X2 == landed.X2 && aimed.Y2 == landed.Y2 && aimed.Text == landed.Text
}

// checkState is invariant 3 on phone d's run: it entered Paused, Manual
// or Stopped only where the person asked that very run.
func (s *manySim) checkState(d, t int, name string) {
	run := s.runs[d]
	if run == nil {
		return
	}
	st := run.State()
	if st == s.last[d] {
		return
	}
	id := s.phones[d].id()
	switch st {
	case engine.Paused:
		s.check(s.pendPause[d] > 0, "invariant 3: %s's run paused, though nobody paused it (after %s on tile %d)", id, name, t)
		s.pendPause[d] = max(s.pendPause[d]-1, 0)
	case engine.Manual:
		snap := run.Snapshot()
		asked := snap.Request != nil && snap.Request.Kind == engine.AskTakeOver
		s.check(s.pendTake[d] > 0 || asked, "invariant 3: %s's run went to Manual, though nobody took it over (after %s on tile %d)", id, name, t)
		if !asked {
			s.pendTake[d] = max(s.pendTake[d]-1, 0)
		}
	case engine.Stopped:
		s.check(s.stopAsked[d], "invariant 3: %s's run stopped, though nobody stopped it (after %s on tile %d)", id, name, t)
	case engine.Idle, engine.Planning, engine.Executing, engine.WaitingForStability, engine.WaitingForUser, engine.Done, engine.Failed:
	}
	s.logf("  %s: %s -> %s", id, s.last[d], st)
	s.last[d] = st
}

// checkFrame is invariant 4: the newest frame of phone d's mirror is as
// wide as phone d's screen (each phone has its own width).
func (s *manySim) checkFrame(d int) {
	p := s.phones[d]
	if f, _ := s.b.hub.Latest(p.id()); f != nil {
		s.check(f.Width == p.w, "invariant 4: %s's mirror shows a frame %d wide, from another phone (its own is %d)", p.id(), f.Width, p.w)
	}
}

// end stops what still runs (each by its own run, not through the
// backend's routing) and reads every run's record.
func (s *manySim) end() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for d, r := range s.runs {
		if r == nil {
			continue
		}
		if !r.State().Terminal() {
			s.stopAsked[d] = true
			_ = r.Stop(ctx)
		}
		if _, err := r.Wait(ctx); err != nil {
			s.check(false, "%s's run did not end after its stop: %v", s.phones[d].id(), err)
		}
	}
	s.checkPhones(-1, "the end", nil, "")
	for _, r := range s.ended {
		s.checkRecord(r)
	}
	s.checkNotes()
}

// checkRecord: the run's record names the phone it was started on, and
// every action it holds (planned, done by the agent, made by the person)
// is that phone's.
func (s *manySim) checkRecord(r *engine.Run) {
	entries, _, err := engine.ReadRecord(r.Dir())
	if err != nil {
		s.check(false, "record of %s: %v", r.ID(), err)
		return
	}
	dev := entries[0].Device
	d := -1
	for i, p := range s.phones {
		if p.id() == dev {
			d = i
		}
	}
	s.check(d >= 0 && dev == r.Snapshot().Device, "record of %s names device %q, its run %q", r.ID(), dev, r.Snapshot().Device)
	for _, e := range entries {
		acts := e.Actions
		if e.Action != nil {
			acts = append(acts, *e.Action)
		}
		for _, a := range acts {
			if who, _, ok := owner(a); ok {
				s.check(who == d, "the record of %s's run holds sim-%d's %s (%s entry)", dev, who, a, e.Kind)
			}
		}
	}
}
