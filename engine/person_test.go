package engine

import (
	"context"
	"testing"
)

// The person's acts are events the UI shows as they happen and lines in the
// record, with what they carried: a denial's reason, a hand-back's note and
// region, the command behind a pause or a take-over.
func TestPersonActsAreEventsAndRecorded(t *testing.T) {
	f := newFixture(t, Settings{Policy: DefaultPolicy(), UITree: true},
		reply(tapPay), reply(tapPay), reply(tapPay), reply(finish("paid")))
	f.start()
	f.ev.waitState(t, WaitingForUser)
	ctx := context.Background()
	if err := f.run.Deny(ctx, "not today"); err != nil {
		t.Fatal(err)
	}
	f.ev.waitStateN(t, WaitingForUser, 2)
	if err := f.run.TakeOver(ctx); err != nil {
		t.Fatal(err)
	}
	f.ev.waitState(t, Manual)
	if err := f.run.HandBack(ctx, "card changed", &Region{X1: 1, Y1: 2, X2: 30, Y2: 40}); err != nil {
		t.Fatal(err)
	}
	f.ev.waitStateN(t, WaitingForUser, 3)
	if err := f.run.Confirm(ctx); err != nil {
		t.Fatal(err)
	}
	if res := f.wait(); res.State != Done {
		t.Fatalf("result %+v", res)
	}

	var got []string
	for _, e := range f.ev.kinds(KindPerson) {
		p := e.Person
		got = append(got, p.Command)
		switch p.Command {
		case "deny":
			if p.Text != "not today" || p.Action == nil {
				t.Errorf("deny event %+v", p)
			}
		case "hand_back":
			if p.Text != "card changed" || p.Region == nil || p.Region.X2 != 30 {
				t.Errorf("hand-back event %+v", p)
			}
		}
	}
	if want := []string{"deny", "take_over", "hand_back", "confirm"}; !equalStrings(got, want) {
		t.Fatalf("person events %q, want %q", got, want)
	}

	entries, _, err := ReadRecord(f.run.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var handBack *Entry
	tookOver := false
	for i, e := range entries {
		if e.Kind == recPerson && e.Command == "hand_back" {
			handBack = &entries[i]
		}
		if e.Kind == recState && e.State != nil && *e.State == Manual && e.By == "take_over" {
			tookOver = true
		}
	}
	if handBack == nil || handBack.Region == nil || handBack.Region.Y2 != 40 {
		t.Errorf("the record's hand-back lacks its region: %+v", handBack)
	}
	if !tookOver {
		t.Error("the record does not say the person took over")
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
