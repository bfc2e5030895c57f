package engine_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"tandem/devices/adb"
	"tandem/engine"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// TestCrashAtAnyLineResumesToTheSameOutcome: invariant 6 of issue 19. A
// run on the virtual phone, through the real adb server and the real model
// client, counts to three. The same run is cut off after each line of its
// record in turn (the record copied as it was on disk then; the phone goes
// on with whatever was under way, as after a real crash), and the copy is
// resumed: every resumed run ends as the uninterrupted one did, Done with
// the counter at 3, never past it.
func TestCrashAtAnyLineResumesToTheSameOutcome(t *testing.T) {
	t.Parallel()
	ref := countRun(t, -1)
	if ref < 6 {
		t.Fatalf("the uninterrupted run wrote %d lines", ref)
	}
	step := 1
	if testing.Short() {
		step = 4
	}
	for cut := 1; cut < ref; cut += step {
		t.Run("after line "+strconv.Itoa(cut), func(t *testing.T) { countRun(t, cut) })
	}
}

// countRun counts to three on a new phone; cut >= 1 crashes the run once
// its record holds cut lines and resumes the copy. It returns how many
// lines the finished record has.
func countRun(t *testing.T, cut int) int {
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	ctx := context.Background()
	open := func() *adb.Device {
		dev, err := adb.Open(ctx, adb.Options{Server: adb.Server{Addr: "127.0.0.1:" + strconv.Itoa(env.Port)}, Serial: env.Serial, StateDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		return dev
	}
	dev := open()
	info, err := dev.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	srv := countToThree(t, phone, info.Screen.W, info.Screen.H)
	r, err := engine.New(engine.Config{Goal: "Make the counter show 3", Device: dev, Planner: toolsPlanner(t, srv.URL), DataDir: t.TempDir(), Settings: fastSettle})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if cut >= 1 {
		crashed := filepath.Join(t.TempDir(), filepath.Base(r.Dir()))
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
			if ents, _, err := engine.ReadRecord(r.Dir()); err == nil && len(ents) >= cut {
				engine.CopyLive(t, r.Dir(), crashed)
				keepLines(t, filepath.Join(crashed, "record.jsonl"), cut) // as the disk held it a moment before
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the record never held %d lines", cut)
			}
		}
		_ = r.Stop(ctx) // the process dies; what it had under way may still land
		<-r.Done()
		if r, err = engine.Resume(crashed, engine.Config{Device: open(), Planner: toolsPlanner(t, srv.URL)}); err != nil {
			t.Fatal(err)
		}
		if err := r.Start(ctx); err != nil {
			t.Fatal(err)
		}
	}
	countedToThree(t, r, phone, "resumed after line "+strconv.Itoa(cut))
	ents, _, err := engine.ReadRecord(r.Dir())
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// keepLines cuts the file at path after its first n lines.
func keepLines(t *testing.T, path string, n int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	end := 0
	for i := 0; i < n; i++ {
		j := bytes.IndexByte(b[end:], '\n')
		if j < 0 {
			t.Fatalf("%s has fewer than %d lines", path, n)
		}
		end += j + 1
	}
	if err := os.Truncate(path, int64(end)); err != nil {
		t.Fatal(err)
	}
}
