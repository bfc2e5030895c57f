package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"tandem/backend"
	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// A run going on in one Tandem is never taken for a crashed one by
// another: while a `tandem run` drives the phone, History (any backend on
// the same data dir) lists its run as going on elsewhere, with no Resume,
// and `tandem run --resume` of it is refused, saying why, without a step
// on the phone. Once the process is killed (SIGKILL: the OS lets its lock
// go) the run is interrupted and resumes.
func TestALiveRunIsNotResumedElsewhere(t *testing.T) {
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	if err := phone.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	t.Setenv("TANDEM_DATA_DIR", data)
	held := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply { return modeltest.Reply{Hold: true} })
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial,
		"--goal", "Make the counter show 1", "--base-url", held.URL)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var childOut syncBuffer
	cmd.Stdout, cmd.Stderr = &childOut, &childOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	for len(held.Requests()) == 0 { // the child's run is planning: its record is written
		if ctx.Err() != nil {
			t.Fatalf("the child never asked its model:\n%s", childOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	history := func() backend.RunSummary {
		t.Helper()
		list, err := backend.New(backend.ConfigFromEnv()).PastRuns()
		if err != nil || len(list) != 1 {
			t.Fatalf("history: %+v %v", list, err)
		}
		return list[0]
	}
	live := history()
	if live.State != backend.StateElsewhere {
		t.Fatalf("a live run is listed as %q, want %q (no Resume)", live.State, backend.StateElsewhere)
	}

	finish := modeltest.New(t, toolReply("Tap +1.", "tap", centre(t, phone, "+1")),
		toolReply("", "finish", `{"summary":"The counter shows 1.","success":true}`))
	var out, errOut syncBuffer
	code := Run(ctx, Env{Args: []string{"run", "--resume", live.ID, "--adb-port", strconv.Itoa(env.Port), "--base-url", finish.URL},
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code == ExitOK || !strings.Contains(errOut.String(), "going on in another Tandem") {
		t.Fatalf("resuming a live run: exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	if len(finish.Requests()) != 0 || phone.State().Counter != 0 {
		t.Fatal("the refused resume acted")
	}

	if err := cmd.Process.Kill(); err != nil { // SIGKILL: the OS lets the lock go
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if got := history(); got.State != backend.StateInterrupted {
		t.Fatalf("after the kill the run is %q, want %q", got.State, backend.StateInterrupted)
	}
	out, errOut = syncBuffer{}, syncBuffer{}
	code = Run(ctx, Env{Args: []string{"run", "--resume", live.ID, "--adb-port", strconv.Itoa(env.Port), "--base-url", finish.URL},
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != ExitOK || phone.State().Counter != 1 {
		t.Fatalf("resume after the kill: exit %d, counter %d\n%s\n%s", code, phone.State().Counter, out.String(), errOut.String())
	}
	if _, err := os.Stat(filepath.Join(data, "runs", live.ID, "record.lock")); err != nil {
		t.Fatalf("the record has no lock file: %v", err)
	}
}
