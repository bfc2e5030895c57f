package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"tandem/engine"
	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// Issue 31, item 3: Ctrl+C pressed as the model's reply is written beats
// the reply's tap. 100 times, `tandem run` plans once; the model server
// does what the Ctrl+C signal does (the stops the signal's goroutine fires,
// signals.go), then writes a reply that taps +1. The tap had not reached
// the device when Stop was asked, so it must never reach the phone; the
// record must agree with the phone's own log (a step for each tap the phone
// saw, none it did not see) and end Stopped. (The real signal adds only
// its delivery, which BenchmarkCtrlCShutsTheGate times.)
func TestRunCtrlCBeatsTheRepliedTap(t *testing.T) {
	const trials = 100
	var ctrlC atomic.Pointer[func()]
	phone, env, srv, calls := ctrlCRig(t, func() { (*ctrlC.Load())() })
	base := t.TempDir()
	late := 0
	for i := range trials {
		before := len(phone.Events())
		data := filepath.Join(base, strconv.Itoa(i))
		var out, errOut syncBuffer
		ctx, cenv := interruptible(context.Background(), Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port),
			"--device", env.Serial, "--goal", "Tap +1", "--base-url", srv.URL, "--model", "scripted", "--data-dir", data},
			Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
		fire := cenv.stops.fire
		ctrlC.Store(&fire)
		code := Run(ctx, cenv)
		cenv.stops.cancel()
		if code != ExitFail || int(calls.Load()) != i+1 {
			t.Fatalf("trial %d: exit %d after %d model calls\nstdout:\n%s\nstderr:\n%s", i, code, calls.Load(), out.String(), errOut.String())
		}
		if stoppedTrial(t, i, phone, before, data) > 0 {
			late++
		}
	}
	if late > 0 {
		t.Fatalf("the tap replied as Ctrl+C was pressed reached the phone in %d of %d runs", late, trials)
	}
}

// ctrlCRig is the Counter app on a virtual phone and a model whose every
// reply taps +1, after ctrlC (what Ctrl+C does, as the reply is written);
// calls counts the model's calls.
func ctrlCRig(t *testing.T, ctrlC func()) (phone *vphone.Phone, env vphonetest.Env, srv *modeltest.Server, calls *atomic.Int32) {
	t.Helper()
	phone, env = vphonetest.Start(t, vphone.WithSize(360, 800))
	if err := phone.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	plus := centre(t, phone, "+1")
	calls = new(atomic.Int32)
	srv = modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply {
		calls.Add(1)
		ctrlC()
		return toolReply("Tap +1.", "tap", plus)
	})
	t.Setenv("TANDEM_API_KEY", "sk-cli-test")
	return phone, env, srv, calls
}

// stoppedTrial checks trial i of a stopped `tandem run` whose record is in
// data: the record has a step for each tap the phone saw since before, none
// it did not see, and ends Stopped. It returns the taps.
func stoppedTrial(t *testing.T, i int, phone *vphone.Phone, before int, data string) (taps int) {
	t.Helper()
	for _, e := range phone.Events()[before:] {
		if e.Kind == "tap" {
			taps++
		}
	}
	steps, end := recordedSteps(t, data)
	if steps != taps || end == nil || end.State != engine.Stopped {
		t.Fatalf("trial %d: %d step(s) recorded, %d tap(s) on the phone, end %+v", i, steps, taps, end)
	}
	return taps
}

// recordedSteps counts the action steps of the one run recorded in data
// and returns how it ended.
func recordedSteps(t testing.TB, data string) (int, *engine.Result) {
	t.Helper()
	runs, err := os.ReadDir(data)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs recorded in %s: %v %v", data, runs, err)
	}
	entries, _, err := engine.ReadRecord(filepath.Join(data, runs[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	var end *engine.Result
	for _, e := range entries {
		if e.Kind == engine.EntryAction {
			steps++
		}
		if e.Kind == engine.EntryEnd {
			end = e.End
		}
	}
	return steps, end
}
