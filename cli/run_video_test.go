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

	"tandem/internal/modeltest"
	"tandem/internal/videotest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// videos lists the MP4 files in every run record under data.
func videos(t *testing.T, data string) []string {
	t.Helper()
	found, err := filepath.Glob(filepath.Join(data, "*", "*.mp4"))
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// countTo taps +1 until the counter shows n, then finishes.
func countTo(t *testing.T, phone *vphone.Phone, n int) *modeltest.Server {
	return modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply {
		st := phone.State()
		switch {
		case st.Foreground != vphone.PkgCounter:
			return toolReply("Open the counter first.", "launch", `{"app":"Counter"}`)
		case st.Counter < n:
			return toolReply("Tap +1.", "tap", centre(t, phone, "+1"))
		}
		return toolReply("", "finish", `{"summary":"Done.","success":true}`)
	})
}

// A `tandem run` leaves one video in its record folder: H.264 that a
// player reads, a picture for each change, as long as the run, within
// 5 MB a minute; with --no-video it leaves none.
func TestRunLeavesAVideo(t *testing.T) {
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	t.Setenv("TANDEM_ADB_PORT", strconv.Itoa(env.Port))
	for _, noVideo := range []bool{false, true} {
		data := t.TempDir()
		target := 4 // the second run counts on from there
		if noVideo {
			target = 6
		}
		args := []string{"run", "--device", env.Serial, "--goal", "Count up",
			"--base-url", countTo(t, phone, target).URL, "--model", "scripted", "--data-dir", data}
		if noVideo {
			args = append(args, "--no-video")
		}
		var out, errOut syncBuffer
		began := time.Now()
		code := Run(context.Background(), Env{Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
		wall := time.Since(began)
		if code != ExitOK {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
		}
		found := videos(t, data)
		if noVideo {
			if len(found) != 0 {
				t.Fatalf("--no-video left %v", found)
			}
			continue
		}
		if len(found) != 1 {
			t.Fatalf("the run left %d videos (%v), want one\n%s", len(found), found, errOut.String())
		}
		p := videotest.Probe(t, found[0])
		t.Logf("a run of %v left %+v", wall, p)
		if p.Codec != "h264" || p.Frames < 5 {
			t.Fatalf("the video holds %+v, want at least 5 frames of h264", p)
		}
		if p.Duration < wall*6/10 || p.Duration > wall+500*time.Millisecond {
			t.Fatalf("the video lasts %v, the run %v", p.Duration, wall)
		}
		if perMinute := float64(p.Size) / max(p.Duration.Minutes(), 1.0/60); perMinute > 5e6 {
			t.Fatalf("%d bytes in %v: %.1f MB a minute", p.Size, p.Duration, perMinute/1e6)
		}
	}
}

// A `tandem run` killed with SIGKILL leaves a video that plays up to its
// last second.
func TestRunKilledLeavesAPlayableVideo(t *testing.T) {
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	data := t.TempDir()
	taps := 0
	srv := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply {
		if phone.State().Foreground != vphone.PkgCounter {
			return toolReply("Open the counter first.", "launch", `{"app":"Counter"}`)
		}
		if taps < 4 {
			taps++
			return toolReply("Tap +1.", "tap", centre(t, phone, "+1"))
		}
		return modeltest.Reply{Hold: true}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial,
		"--goal", "Count", "--base-url", srv.URL, "--data-dir", data)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	for phone.State().Counter < 4 || len(srv.Requests()) < 6 { // the sixth call holds: the run waits on its model
		if ctx.Err() != nil {
			t.Fatalf("the run never counted to 4:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A fragment is on disk within a second of its pictures.
	deadline := time.Now().Add(3 * time.Second)
	for {
		if found := videos(t, data); len(found) == 1 && videotest.Probe(t, found[0]).Frames >= 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no playable video of the live run within 3 s: %v\n%s", videos(t, data), out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: nothing runs on the way out
		t.Fatal(err)
	}
	_ = cmd.Wait()
	found := videos(t, data)
	if len(found) != 1 {
		t.Fatalf("the killed run left %v", found)
	}
	if p := videotest.Probe(t, found[0]); p.Codec != "h264" || p.Frames < 5 || p.Duration <= 0 {
		t.Fatalf("the killed run's video holds %+v", p)
	}
}
