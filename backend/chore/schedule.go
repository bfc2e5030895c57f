package chore

import (
	"errors"
	"fmt"
	"time"
)

// Kind is how a schedule repeats.
type Kind string

// The schedules a chore can have.
const (
	Daily    Kind = "daily"    // every day at At
	Weekdays Kind = "weekdays" // Monday to Friday at At
	Hourly   Kind = "hourly"   // every Every hours, the first at At
)

// Schedule says when a chore runs by itself while Tandem is running.
// Times are the computer's local time.
type Schedule struct {
	Kind Kind `json:"kind"`
	// At is the time of day, "HH:MM" (for Hourly, one of the day's
	// slots: the others are Every hours before and after it that day).
	At string `json:"at"`
	// Every is the hours between two slots of an Hourly schedule (1–24).
	Every int `json:"every,omitempty"`
	// Off keeps the schedule without running it.
	Off bool `json:"off,omitempty"`
}

// ErrBadTime is a time of day that is not HH:MM.
var ErrBadTime = errors.New("a time of day is HH:MM, 00:00 to 23:59")

// Check refuses a schedule that names no time.
func (s Schedule) Check() error {
	if _, _, err := s.clock(); err != nil {
		return err
	}
	switch s.Kind {
	case Daily, Weekdays:
		return nil
	case Hourly:
		if s.Every < 1 || s.Every > 24 {
			return errors.New("a chore repeats every 1 to 24 hours")
		}
		return nil
	}
	return fmt.Errorf("a schedule is daily, weekdays or hourly, not %q", s.Kind)
}

func (s Schedule) clock() (h, m int, err error) {
	t, err := time.Parse("15:04", s.At)
	if err != nil || len(s.At) != 5 {
		return 0, 0, ErrBadTime
	}
	return t.Hour(), t.Minute(), nil
}

// Slots returns the times the schedule falls on in (from, to], oldest
// first, in loc; at most max of them (the newest are kept). A schedule
// that is off or invalid has none.
func (s Schedule) Slots(from, to time.Time, loc *time.Location, max int) []time.Time {
	if s.Off || s.Check() != nil || !to.After(from) || max <= 0 {
		return nil
	}
	var out []time.Time
	for t := s.Next(from, loc); !t.IsZero() && !t.After(to); t = s.Next(t, loc) {
		out = append(out, t)
		if len(out) > max {
			out = out[1:]
		}
	}
	return out
}

// Next is the first slot strictly after t (zero for a schedule that is
// off or invalid).
func (s Schedule) Next(t time.Time, loc *time.Location) time.Time {
	h, m, err := s.clock()
	if s.Off || err != nil || s.Check() != nil {
		return time.Time{}
	}
	t = t.In(loc)
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
	switch s.Kind {
	case Daily, Weekdays:
		// Eight days always hold the next weekday slot.
		for i := 0; i <= 8; i++ {
			slot := time.Date(day.Year(), day.Month(), day.Day()+i, h, m, 0, 0, loc)
			if slot.After(t) && (s.Kind == Daily || isWeekday(slot)) {
				return slot
			}
		}
	case Hourly:
		// Each day's slots are the hours Every apart that fall on At
		// (every 6 hours at 08:00: 02:00, 08:00, 14:00, 20:00).
		for i := 0; i <= 2; i++ {
			for hh := h % s.Every; hh < 24; hh += s.Every {
				slot := time.Date(day.Year(), day.Month(), day.Day()+i, hh, m, 0, 0, loc)
				if slot.After(t) {
					return slot
				}
			}
		}
	}
	return time.Time{}
}

func isWeekday(t time.Time) bool {
	return t.Weekday() != time.Saturday && t.Weekday() != time.Sunday
}
