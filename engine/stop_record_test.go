package engine

import (
	"context"
	"testing"
	"time"

	"tandem/devices/adb"
	"tandem/engine/action"
	"tandem/internal/modeltest"
	"tandem/vphone"
)

// doWatch is the real ADB driver, telling the test when an action's
// command leaves for the phone.
type doWatch struct {
	*adb.Device
	started chan action.Action
}

func (d doWatch) Do(ctx context.Context, a action.Action) error {
	select {
	case d.started <- a:
	default:
	}
	return d.Device.Do(ctx, a)
}

// tapsOf are the inputs the phone itself logged that a tap makes.
func tapsOf(evs []vphone.Event) int {
	n := 0
	for _, e := range evs {
		if e.Kind == "tap" || e.Kind == "motion_down" {
			n++
		}
	}
	return n
}

// TestStopWhileTheTapIsOnItsWay: the person confirms "Pay ¥99" and
// presses Stop while the tap's command is on the phone. An input is not
// called back, so it lands (and Stop waits for it: nothing lands after
// Stop returns); what landed must be on the record and in the run's steps,
// as the phone's own log of inputs says (issue 27: a confirmed Pay landed,
// the shop said paid, and the run showed 0 steps and no entry; 19 of 20
// such taps were lost). Many times over, on the real adb server.
func TestStopWhileTheTapIsOnItsWay(t *testing.T) {
	t.Parallel()
	first := newRig(t)
	const tries = 12
	lost := 0
	for i := range tries {
		g := first
		if i > 0 {
			g = first.addPhone() // a shop not paid yet
		}
		g.launch(vphone.PkgShop)
		pay := g.at("pay_button")
		srv := modeltest.New(t, tools("Pay for the earbuds.", call("tap", pay)))
		ev := newEvents()
		dev := doWatch{Device: g.open(), started: make(chan action.Action, 1)}
		r, err := New(Config{Goal: "Buy the earbuds", Device: dev, Planner: planner(t, srv, plannerOpts{}), DataDir: t.TempDir(),
			Emitter: ev, Settings: Settings{UITree: true, Policy: DefaultPolicy(), Stability: fastStability}})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := r.Start(ctx); err != nil {
			t.Fatal(err)
		}
		ev.waitState(t, WaitingForUser)
		before := len(g.phone.Events())
		g.phone.SetLatency(150 * time.Millisecond) // the tap's command waits on the phone
		if err := r.Confirm(ctx); err != nil {
			t.Fatal(err)
		}
		<-dev.started
		if err := r.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		atStop := tapsOf(g.phone.Events()[before:])
		g.phone.SetLatency(0)
		res := waitRun(t, r)
		landed := tapsOf(g.phone.Events()[before:])
		if landed != atStop {
			t.Fatalf("try %d: %d tap(s) landed after Stop returned", i, landed-atStop)
		}
		if landed != 1 {
			t.Fatalf("try %d: the phone logged %d taps, want the one on its way", i, landed)
		}
		entries, _, err := ReadRecord(r.Dir())
		if err != nil {
			t.Fatal(err)
		}
		recorded := 0
		for _, e := range entries {
			if e.Kind == EntryAction && e.Result == "ok" {
				recorded++
			}
		}
		steps := len(ev.kinds(KindStep))
		if recorded != landed || steps != landed || res.Steps != landed || res.State != Stopped {
			lost++
			t.Errorf("try %d: the phone logged %d tap(s) (the shop says paid: %v); the record holds %d action(s), the run emitted %d step(s), its result says %d step(s) (%s)",
				i, landed, g.phone.State().Paid, recorded, steps, res.Steps, res.State)
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d landed taps missing from the run", lost, tries)
	}
}

func waitRun(t testing.TB, r *Run) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := r.Wait(ctx)
	if err != nil {
		t.Fatalf("the run did not end: %v", err)
	}
	return res
}
