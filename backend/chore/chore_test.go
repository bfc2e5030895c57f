package chore

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the summer-time test's zone on any machine
)

func TestFillPutsValuesInTheGoalAndTheReplay(t *testing.T) {
	c := Chore{Name: "greet", Goal: "Text {name}: {text}", Params: []Param{
		{Name: "name", Value: "Alice", Recorded: "Alice"},
		{Name: "text", Value: "hello", Recorded: "hello"},
	}}
	cases := []struct {
		values map[string]string
		goal   string
		subst  map[string]string
		err    error
	}{
		{nil, "Text Alice: hello", map[string]string{}, nil},
		{map[string]string{"text": "你好"}, "Text Alice: 你好", map[string]string{"hello": "你好"}, nil},
		{map[string]string{"name": "Bob", "text": "hi"}, "Text Bob: hi", map[string]string{"Alice": "Bob", "hello": "hi"}, nil},
		{map[string]string{"colour": "red"}, "", nil, ErrUnknownName},
	}
	for _, tc := range cases {
		f, err := c.Fill(tc.values)
		if !errors.Is(err, tc.err) {
			t.Fatalf("Fill(%v): err %v, want %v", tc.values, err, tc.err)
		}
		if err != nil {
			if !strings.Contains(err.Error(), "name, text") {
				t.Errorf("the error %q does not list the chore's parameters", err)
			}
			continue
		}
		if f.Goal != tc.goal || !reflect.DeepEqual(f.Subst, tc.subst) {
			t.Errorf("Fill(%v) = %q %v, want %q %v", tc.values, f.Goal, f.Subst, tc.goal, tc.subst)
		}
	}
}

func TestCheckRefusesWhatCannotBeSaved(t *testing.T) {
	ok := Chore{Name: "n", Goal: "g"}
	bad := map[string]Chore{
		"no name":          {Goal: "g"},
		"no goal":          {Name: "n", Goal: "  "},
		"bad param":        {Name: "n", Goal: "g", Params: []Param{{Name: "a b"}}},
		"twice":            {Name: "n", Goal: "g", Params: []Param{{Name: "a"}, {Name: "a"}}},
		"schedule no time": {Name: "n", Goal: "g", Devices: []string{"p"}, Schedule: &Schedule{Kind: Daily, At: "25:00"}},
		"schedule no dev":  {Name: "n", Goal: "g", Schedule: &Schedule{Kind: Daily, At: "08:00"}},
		"every 0 hours":    {Name: "n", Goal: "g", Devices: []string{"p"}, Schedule: &Schedule{Kind: Hourly, At: "08:00"}},
		"long name":        {Name: strings.Repeat("名", MaxName+1), Goal: "g"},
	}
	if err := ok.Check(); err != nil {
		t.Fatalf("a plain chore: %v", err)
	}
	for why, c := range bad {
		if c.Check() == nil {
			t.Errorf("%s: saved", why)
		}
	}
	if !ValidParamName("联系人_2") {
		t.Error("a Chinese parameter name is refused")
	}
}

func TestFromRunMakesTypedTextsParameters(t *testing.T) {
	steps := []Step{{Kind: "tap", Target: "Alice"}, {Kind: "type", Text: "see you at 5"}, {Kind: "tap", Target: "Send"},
		{Kind: "type", Text: "see you at 5"}, {Kind: "type", Text: "bye"}}
	c := FromRun("tell Alice", "run1", "Tell Alice: see you at 5", steps)
	if c.Goal != "Tell Alice: {text}" || c.FromRun != "run1" {
		t.Fatalf("chore %+v", c)
	}
	want := []Param{{Name: "text", Value: "see you at 5", Recorded: "see you at 5"}, {Name: "text2", Value: "bye", Recorded: "bye"}}
	if !reflect.DeepEqual(c.Params, want) {
		t.Errorf("params %+v, want %+v", c.Params, want)
	}
	if got := Suggest(c.Goal, steps); !reflect.DeepEqual(got, []string{"Alice"}) {
		t.Errorf("suggested %v, want [Alice] (Send is not in the goal)", got)
	}
	c = c.WithParam("name", "Alice")
	if c.Goal != "Tell {name}: {text}" || len(c.Params) != 3 {
		t.Errorf("after adding Alice: %+v", c)
	}
}

func at(loc *time.Location, s string) time.Time {
	t, err := time.ParseInLocation("2006-01-02 15:04", s, loc)
	if err != nil {
		panic(err)
	}
	return t
}

func TestScheduleNext(t *testing.T) {
	loc := time.FixedZone("CST", 8*3600)
	cases := []struct {
		s        Schedule
		from, to string
	}{
		{Schedule{Kind: Daily, At: "08:30"}, "2026-12-07 08:29", "2026-12-07 08:30"},
		{Schedule{Kind: Daily, At: "08:30"}, "2026-12-07 08:30", "2026-12-08 08:30"},
		// Friday evening to Monday morning.
		{Schedule{Kind: Weekdays, At: "07:00"}, "2026-12-11 19:00", "2026-12-14 07:00"},
		{Schedule{Kind: Weekdays, At: "07:00"}, "2026-12-12 06:00", "2026-12-14 07:00"},
		{Schedule{Kind: Hourly, At: "08:00", Every: 6}, "2026-12-07 00:30", "2026-12-07 02:00"},
		{Schedule{Kind: Hourly, At: "08:00", Every: 6}, "2026-12-07 20:00", "2026-12-08 02:00"},
		{Schedule{Kind: Hourly, At: "08:15", Every: 5}, "2026-12-07 23:30", "2026-12-08 03:15"},
		{Schedule{Kind: Hourly, At: "00:00", Every: 1}, "2026-12-07 10:59", "2026-12-07 11:00"},
	}
	for _, tc := range cases {
		if got := tc.s.Next(at(loc, tc.from), loc); !got.Equal(at(loc, tc.to)) {
			t.Errorf("%+v after %s: %s, want %s", tc.s, tc.from, got.Format("2006-01-02 15:04 Mon"), tc.to)
		}
	}
	if !(Schedule{Kind: Daily, At: "08:00", Off: true}).Next(at(loc, "2026-12-07 00:00"), loc).IsZero() {
		t.Error("a schedule that is off has a next slot")
	}
}

func TestScheduleKeepsTheWallClockAcrossSummerTime(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	s := Schedule{Kind: Daily, At: "08:00"}
	// Summer time starts on 2027-03-28: the day has 23 hours.
	got := s.Next(at(berlin, "2027-03-27 08:00"), berlin)
	if got.Hour() != 8 || got.Day() != 28 {
		t.Errorf("the slot after summer time starts: %s", got)
	}
}

func TestSlotsKeepTheNewest(t *testing.T) {
	loc := time.UTC
	s := Schedule{Kind: Daily, At: "09:00"}
	got := s.Slots(at(loc, "2026-12-01 10:00"), at(loc, "2026-12-07 09:00"), loc, 2)
	if len(got) != 2 || !got[0].Equal(at(loc, "2026-12-06 09:00")) || !got[1].Equal(at(loc, "2026-12-07 09:00")) {
		t.Errorf("slots %v", got)
	}
	if got := s.Slots(at(loc, "2026-12-07 09:00"), at(loc, "2026-12-07 09:00"), loc, 5); len(got) != 0 {
		t.Errorf("an empty span has slots %v", got)
	}
}
