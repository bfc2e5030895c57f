package backend

import (
	"context"
	"log"
	"slices"
	"sync"
	"time"

	"tandem/backend/chore"
)

// SchedClock is the time the scheduler reads and waits on: the wall clock,
// or a test's, which moves only when the test says.
type SchedClock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type wallSchedClock struct{}

func (wallSchedClock) Now() time.Time                         { return time.Now() }
func (wallSchedClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Late is how long after its time a slot still starts by itself (a
// computer waking from sleep a few minutes on); a slot later than that is
// shown as missed, for the person to run or skip.
const Late = 10 * time.Minute

// recheck is the longest the scheduler sleeps without reading the clock
// again, so a computer that slept, or a clock set by hand, is seen within
// a minute.
const recheck = time.Minute

// MissedSlot is a scheduled chore's slot that passed while Tandem was not
// running (or too late to start by itself): the person runs it now or
// skips it. Only a chore's newest missed slot is kept.
type MissedSlot struct {
	Chore string    `json:"chore"` // its id
	Name  string    `json:"name"`
	Slot  time.Time `json:"slot"`
}

// ScheduledStart is one start the scheduler made: the chore, its slot,
// and each device's run or why it did not start.
type ScheduledStart struct {
	Chore  string       `json:"chore"`
	Name   string       `json:"name"`
	Slot   time.Time    `json:"slot"`
	Starts []ChoreStart `json:"starts"`
}

// ChoresNews is what the window's Chores view hears ("chores" event): the
// list changed, a slot was missed, a scheduled chore started.
type ChoresNews struct {
	Missed  []MissedSlot     `json:"missed"`
	Started []ScheduledStart `json:"started"`
}

// scheduler runs the chores that have a schedule while the window's
// Tandem runs. It keeps how far it has looked (chore.Store.Looked), so a
// slot that passed while Tandem was closed is found at the next start and
// shown, never run behind the person's back hours later.
type scheduler struct {
	b     *Backend
	clock SchedClock
	loc   *time.Location
	poke  chan struct{}

	mu      sync.Mutex
	missed  []MissedSlot
	started []ScheduledStart // the newest few
}

// RunSchedules runs the chores' schedules in the background until
// Shutdown, on the wall clock (the window's door calls it after Begin).
func (b *Backend) RunSchedules() {
	b.mu.Lock()
	bg := b.bg
	b.mu.Unlock()
	if bg != nil {
		go b.Schedule(bg, nil, nil)
	}
}

// Schedule runs the chores' schedules until ctx ends (the window's door
// calls it; a command line never does). clock nil is the wall clock, loc
// nil the computer's zone.
func (b *Backend) Schedule(ctx context.Context, clock SchedClock, loc *time.Location) {
	if clock == nil {
		clock = wallSchedClock{}
	}
	if loc == nil {
		loc = time.Local
	}
	s := &scheduler{b: b, clock: clock, loc: loc, poke: make(chan struct{}, 1)}
	b.mu.Lock()
	b.sched = s
	b.mu.Unlock()
	s.run(ctx)
}

func (b *Backend) scheduler() *scheduler {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sched
}

// choresChanged wakes the scheduler (a schedule may have changed) and
// tells the window.
func (b *Backend) choresChanged() {
	if s := b.scheduler(); s != nil {
		select {
		case s.poke <- struct{}{}:
		default:
		}
	}
	b.notifier().Notify("chores", b.ChoresNews())
}

// ChoresNews is the scheduler's missed slots and recent starts.
func (b *Backend) ChoresNews() ChoresNews {
	n := ChoresNews{Missed: []MissedSlot{}, Started: []ScheduledStart{}}
	if s := b.scheduler(); s != nil {
		s.mu.Lock()
		n.Missed = append(n.Missed, s.missed...)
		n.Started = append(n.Started, s.started...)
		s.mu.Unlock()
	}
	return n
}

func (s *scheduler) run(ctx context.Context) {
	store := s.b.choreStore()
	looked := store.Looked()
	now := s.clock.Now()
	if !looked.IsZero() && now.After(looked) {
		s.due(ctx, looked, now, true)
	}
	looked = s.look(now)
	for {
		wait := recheck
		if next := s.next(looked); !next.IsZero() && next.Sub(now) < wait {
			wait = max(next.Sub(now), 0)
		}
		select {
		case <-ctx.Done():
			return
		case <-s.poke:
		case <-s.clock.After(wait):
		}
		now = s.clock.Now()
		if now.After(looked) {
			s.due(ctx, looked, now, false)
			looked = s.look(now)
		}
	}
}

func (s *scheduler) look(now time.Time) time.Time {
	if err := s.b.choreStore().SetLooked(now); err != nil {
		log.Printf("chores: keeping the schedule's place: %v", err)
	}
	return now
}

func (s *scheduler) scheduled() []chore.Chore {
	list, err := s.b.choreStore().List()
	if err != nil {
		log.Printf("chores: %v", err)
	}
	return slices.DeleteFunc(list, func(c chore.Chore) bool { return c.Schedule == nil || c.Schedule.Off })
}

// next is the first slot of any chore after t.
func (s *scheduler) next(t time.Time) time.Time {
	var first time.Time
	for _, c := range s.scheduled() {
		if n := c.Schedule.Next(t, s.loc); !n.IsZero() && (first.IsZero() || n.Before(first)) {
			first = n
		}
	}
	return first
}

// due handles each chore's slots in (from, to]: its newest slot starts when
// it is at most Late ago, and is shown as missed otherwise (always, when
// Tandem was closed through it).
func (s *scheduler) due(ctx context.Context, from, to time.Time, closed bool) {
	changed := false
	for _, c := range s.scheduled() {
		slots := c.Schedule.Slots(from, to, s.loc, 1)
		if len(slots) == 0 {
			continue
		}
		slot := slots[0]
		changed = true
		if closed || to.Sub(slot) > Late {
			s.miss(MissedSlot{Chore: c.ID, Name: c.Name, Slot: slot})
			continue
		}
		s.start(ctx, c, slot)
	}
	if changed {
		s.b.notifier().Notify("chores", s.b.ChoresNews())
	}
}

func (s *scheduler) miss(m MissedSlot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.missed = slices.DeleteFunc(s.missed, func(o MissedSlot) bool { return o.Chore == m.Chore })
	s.missed = append(s.missed, m)
}

// start starts a chore for its slot on its devices, each its own run.
func (s *scheduler) start(ctx context.Context, c chore.Chore, slot time.Time) {
	starts, err := s.b.StartChore(ctx, c.ID, nil, nil, RunChoice{StartedBy: "schedule:" + c.Name})
	if err != nil {
		starts = []ChoreStart{{Error: err.Error()}}
	}
	log.Print(choreStarted(c.Name, starts))
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started = append(s.started, ScheduledStart{Chore: c.ID, Name: c.Name, Slot: slot, Starts: starts})
	if len(s.started) > 20 {
		s.started = s.started[len(s.started)-20:]
	}
}

// takeMissed removes a missed slot and returns it.
func (s *scheduler) takeMissed(id string) (MissedSlot, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, m := range s.missed {
		if m.Chore == id {
			s.missed = slices.Delete(s.missed, i, i+1)
			return m, true
		}
	}
	return MissedSlot{}, false
}

// AnswerMissed runs a missed slot's chore now on its devices (run true) or
// skips it; either way it is no longer shown.
func (b *Backend) AnswerMissed(ctx context.Context, id string, run bool) ([]ChoreStart, error) {
	s := b.scheduler()
	if s == nil {
		return nil, chore.ErrNotFound
	}
	m, ok := s.takeMissed(id)
	defer b.notifier().Notify("chores", b.ChoresNews())
	if !ok || !run {
		return []ChoreStart{}, nil
	}
	return b.StartChore(ctx, m.Chore, nil, nil, RunChoice{StartedBy: "schedule:" + m.Name})
}
