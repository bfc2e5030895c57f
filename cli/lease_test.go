package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// One driver per phone across processes: while a `tandem run` in another
// process drives the phone, a second `tandem run` on it taps nothing (the
// phone's own input log) and is told who holds it, with the holder's
// process id; `tandem devices` says who holds it; with --wait the second
// run waits for the first to end, then drives.
func TestASecondRunOnAHeldPhoneIsRefused(t *testing.T) {
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	if err := phone.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TANDEM_DATA_DIR", t.TempDir())
	t.Setenv("TANDEM_RUNTIME_DIR", t.TempDir())
	held := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply { return modeltest.Reply{Hold: true} })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial,
		"--goal", "Wait", "--base-url", held.URL)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var childOut syncBuffer
	cmd.Stdout, cmd.Stderr = &childOut, &childOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	for len(held.Requests()) == 0 { // the child's run is planning: it holds the phone
		if ctx.Err() != nil {
			t.Fatalf("the child never asked its model:\n%s", childOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	before := len(phone.Events())
	holder := fmt.Sprintf("tandem run (process %d)", cmd.Process.Pid)

	tap := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply {
		if phone.State().Counter == 0 {
			return toolReply("Tap +1.", "tap", centre(t, phone, "+1"))
		}
		return toolReply("", "finish", `{"summary":"The counter shows 1.","success":true}`)
	})
	args := []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial, "--goal", "Make the counter show 1",
		"--base-url", tap.URL}
	var out, errOut syncBuffer
	code := Run(ctx, Env{Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code == ExitOK || !strings.Contains(errOut.String(), "in use by "+holder) {
		t.Fatalf("a second run on a held phone: exit %d, want a refusal naming %q\n%s\n%s", code, holder, out.String(), errOut.String())
	}
	if n := len(phone.Events()); n != before || len(tap.Requests()) != 0 {
		t.Fatalf("the refused run acted: %d inputs on the phone, %d model calls", n-before, len(tap.Requests()))
	}

	var list, listErr syncBuffer
	Run(ctx, Env{Args: []string{"devices", "--adb-port", strconv.Itoa(env.Port)}, Stdout: &list, Stderr: &listErr})
	if !strings.Contains(list.String(), "in use by "+holder+`, doing "Wait"`) {
		t.Fatalf("tandem devices does not say who holds the phone:\n%s\n%s", list.String(), listErr.String())
	}

	// --device all leaves the held phone out, saying who holds it.
	var aout, aerr syncBuffer
	all := []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", "all", "--goal", "Make the counter show 1", "--base-url", tap.URL}
	if code := Run(ctx, Env{Args: all, Stdin: strings.NewReader(""), Stdout: &aout, Stderr: &aerr}); code != ExitFail ||
		!strings.Contains(aerr.String(), "leaving out "+env.Serial+": in use by "+holder) {
		t.Fatalf("--device all with the only phone held: exit %d\n%s\n%s", code, aout.String(), aerr.String())
	}

	// --wait: the second run waits, and drives once the first is gone.
	done := make(chan int, 1)
	var wout, werr syncBuffer
	go func() {
		done <- Run(ctx, Env{Args: append(args, "--wait"), Stdin: strings.NewReader(""), Stdout: &wout, Stderr: &werr})
	}()
	select {
	case c := <-done:
		t.Fatalf("--wait did not wait: exit %d\n%s\n%s", c, wout.String(), werr.String())
	case <-time.After(time.Second): // a second of waiting, and not one input
	}
	if n := len(phone.Events()); n != before {
		t.Fatalf("the waiting run acted: %d inputs", n-before)
	}
	_ = cmd.Process.Kill() // the OS lets the child's lease go
	_ = cmd.Wait()
	<-done
	if phone.State().Counter != 1 {
		t.Fatalf("after the holder ended, the waiting run did not drive: counter %d\n%s\n%s", phone.State().Counter, wout.String(), werr.String())
	}
}
