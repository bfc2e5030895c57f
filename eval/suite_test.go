package eval

import (
	"context"
	"strconv"
	"testing"
	"time"

	"tandem/devices/adb"
	"tandem/vphone/vphonetest"
)

// No task starts done: after its set-up, on the phone as the set-up leaves
// it, every check reads "not done", so a model that does nothing (or
// claims success at once) scores nothing. A task that must be declined
// fails when the run claims it succeeded. Two seeds, every task.
func TestNoTaskStartsDone(t *testing.T) {
	_, env := vphonetest.Start(t)
	ph := adbPhone{srv: adb.Server{Addr: "127.0.0.1:" + strconv.Itoa(env.Port)}, serial: env.Serial}
	for _, seed := range []uint64{1, 2} {
		tasks, err := Suite(seed, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range tasks {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			for _, cmd := range task.Spec.Setup {
				if _, err := ph.Shell(ctx, cmd); err != nil {
					t.Fatalf("%s: set-up %q: %v", task.ID, cmd, err)
				}
			}
			ok, err := task.Spec.Check(ctx, ph, Outcome{ClaimedDone: true})
			cancel()
			if err != nil || ok {
				t.Errorf("seed %d %s (%s): done before anything was done (err %v)", seed, task.ID, task.Goal, err)
			}
		}
	}
}
