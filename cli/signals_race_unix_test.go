//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Issue 31, item 3, with the real signal: Ctrl+C (SIGINT to this process)
// sent as the model's reply is written never lets the reply's tap reach
// the phone. 100 times, `tandem run`'s own signal handling
// (runWithSignals) runs a task whose model server sends the signal and
// then writes a reply that taps +1: the signal was sent before the reply
// existed, so the tap had not reached the device when Stop was asked. The
// phone's own log must show no tap and the record must end Stopped with
// no step.
//
// The run is in this process so the signal is the real one, delivered by
// the kernel to the handler `tandem run` installs, without a process's
// start in each trial.
func TestCtrlCAsTheReplyIsWritten(t *testing.T) {
	trials := 100
	if testing.Short() {
		trials = 20
	}
	phone, env, srv, calls := ctrlCRig(t, func() {
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			t.Error(err)
		}
	})
	base := t.TempDir()
	late := 0
	for i := range trials {
		before := len(phone.Events())
		data := filepath.Join(base, strconv.Itoa(i))
		var out, errOut syncBuffer
		code := runWithSignals(Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port),
			"--device", env.Serial, "--goal", "Tap +1", "--base-url", srv.URL, "--model", "scripted", "--data-dir", data},
			Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
		if code != ExitFail || int(calls.Load()) != i+1 {
			t.Fatalf("trial %d: exit %d after %d model calls\nstdout:\n%s\nstderr:\n%s", i, code, calls.Load(), out.String(), errOut.String())
		}
		if stoppedTrial(t, i, phone, before, data) > 0 {
			late++
		}
	}
	if late > 0 {
		t.Errorf("the replied tap reached the phone after Ctrl+C in %d of %d trials", late, trials)
	}
}
