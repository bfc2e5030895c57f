package backend

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"tandem/engine"
	"tandem/engine/action"
	"tandem/notify"
)

// Invariant 5 of the simulation of several runs: while a window is open
// and behind, every request of a run (and every run that fails) raises
// exactly one desktop notification, and it names that run's phone; while
// the window is in front, or with no window at all, none. The person
// moves the window in front and behind among their acts; the notes are
// kept by a fake notifier (the real one is tested on a real bus:
// attention_test.go).

// noteLog is the fake desktop: it keeps every note.
type noteLog struct {
	mu    sync.Mutex
	notes []notify.Note
	more  chan struct{} // closed and replaced on every note
}

func (l *noteLog) Show(_ context.Context, n notify.Note) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.notes = append(l.notes, n)
	close(l.more)
	l.more = make(chan struct{})
	return nil
}

// wait returns once there are n notes or more, or at the deadline.
func (l *noteLog) wait(n int, deadline <-chan time.Time) {
	for {
		l.mu.Lock()
		have, more := len(l.notes), l.more
		l.mu.Unlock()
		if have >= n {
			return
		}
		select {
		case <-more:
		case <-deadline:
			return
		}
	}
}

func (l *noteLog) Close() error { return nil }

func (l *noteLog) all() []notify.Note {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]notify.Note(nil), l.notes...)
}

// window is the person's window as the simulation moves it.
type simWindow struct {
	open, front bool
	expect      map[string]int // run id -> the notes it should have raised
	// untold: runs whose request waits for the person, not told (the
	// window was in front): going behind tells it.
	untold map[string]bool
	notes  *noteLog
}

// openWindow gives the backend a window (three seeds in four; the others
// are headless) and the fake desktop, and hears every run's events.
func (s *manySim) openWindow() {
	s.win = simWindow{open: s.rng.IntN(4) > 0, expect: map[string]int{}, untold: map[string]bool{}, notes: &noteLog{more: make(chan struct{})}}
	s.b.attention.newShower = func(func(string)) notify.Shower { return s.win.notes }
	s.b.Listen(NotifierFunc(s.heard))
	if s.opt.plant == "note-wrong-phone" { // a note names the next phone
		name := s.b.attention.device
		s.b.attention.device = func(ctx context.Context, id string) string {
			i, _ := strconv.Atoi(strings.TrimPrefix(id, "sim-"))
			return name(ctx, s.phones[(i+1)%len(s.phones)].id())
		}
	}
	if s.win.open {
		s.b.WindowOpen(true, nil) // a window opens in front
		s.win.front = true
	}
	s.logf("window: open %v", s.win.open)
}

// heard is every event of every run, in the order the runs made them.
func (s *manySim) heard(name string, data any) {
	e, ok := data.(engine.Event)
	if name != "run" || !ok {
		return
	}
	if e.Kind == engine.KindState {
		delete(s.win.untold, e.Run) // the request, if any, no longer waits
		return
	}
	needs := e.Kind == engine.KindRequest || e.Kind == engine.KindDone && e.Done != nil && e.Done.State == engine.Failed
	switch {
	case needs && s.win.open && !s.win.front:
		s.win.expect[e.Run]++
	case e.Kind == engine.KindRequest && s.win.open:
		s.win.untold[e.Run] = true
	}
}

// moveWindow is the person bringing the window in front or sending it
// behind (nothing with no window).
func (s *manySim) moveWindow(front bool) personAct {
	return func(context.Context) (*action.Action, Outcome, error) {
		s.win.front = front
		if s.win.open {
			if !front { // what waits and was not told is told now
				for run := range s.win.untold {
					s.win.expect[run]++
				}
				clear(s.win.untold)
			}
			s.b.WindowFront(front)
		}
		return nil, "", nil
	}
}

// checkNotes waits until every expected note was shown (they are shown
// off the runs' way) and checks each names its run's phone, and none more.
func (s *manySim) checkNotes() {
	want := 0
	for _, n := range s.win.expect {
		want += n
	}
	s.win.notes.wait(want, time.After(20*time.Second))
	got := map[string]int{}
	s.notes = len(s.win.notes.all())
	for _, n := range s.win.notes.all() {
		got[n.Tag]++
		d := -1
		for i, r := range s.ended {
			if r.ID() == n.Tag {
				d = i
			}
		}
		if d < 0 {
			s.check(false, "invariant 5: a note about no run of this session: %+v", n)
			continue
		}
		phone := s.ended[d].Snapshot().Device
		name := "Sim phone " + strings.TrimPrefix(phone, "sim-")
		s.check(strings.Contains(n.Summary, name), "invariant 5: a note about %s's run says %q", phone, n.Summary)
	}
	for _, r := range s.ended {
		s.check(got[r.ID()] == s.win.expect[r.ID()], "invariant 5: %s's run raised %d note(s), %d expected (window open %v)",
			r.Snapshot().Device, got[r.ID()], s.win.expect[r.ID()], s.win.open)
	}
}
