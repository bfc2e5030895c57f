package vphone_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// needFFmpeg skips without Debian's ffmpeg (failing under CI=true).
func needFFmpeg(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed (apt-get install ffmpeg)", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
}

// probe returns ffprobe's "width,height,frames" of an H.264 file.
func probe(t *testing.T, path string) (w, h, frames int) {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-f", "h264", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=width,height,nb_read_frames,profile", "-of", "default=noprint_wrappers=1", path).CombinedOutput()
	if err != nil {
		t.Fatalf("ffprobe: %v: %s", err, out)
	}
	kv := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		kv[k] = v
	}
	w, _ = strconv.Atoi(kv["width"])
	h, _ = strconv.Atoi(kv["height"])
	frames, _ = strconv.Atoi(kv["nb_read_frames"])
	if p := kv["profile"]; p != "Constrained Baseline" && p != "Baseline" {
		t.Errorf("profile %q in %q", p, out)
	}
	return w, h, frames
}

func TestScreenrecordStreamsH264OfTheLiveScreen(t *testing.T) {
	t.Parallel()
	needFFmpeg(t)
	// The animation runs on the phone's clock, which the test moves one
	// step at a time: each step changes the screen, and each change must
	// reach the stream as a frame, however slow the machine.
	clock := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	p, env := vphonetest.Start(t, vphone.WithSize(720, 1600), vphone.WithClock(clock.now))
	if err := p.Launch(vphone.PkgAnim); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := env.Command(ctx, "exec-out", "screenrecord", "--output-format=h264", "--size", "360x800", "--bit-rate", "4M", "--time-limit", "180", "-")
	var out syncBuffer
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	grows := func(what string, from int) {
		t.Helper()
		for n := len(out.Bytes()); n <= from; n = len(out.Bytes()) {
			if ctx.Err() != nil {
				t.Fatalf("%s: the stream stayed at %d bytes: %s", what, n, stderr.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	grows("the first frame", 0)
	r, ok := p.Bounds("start")
	if !ok {
		t.Fatal("no start button")
	}
	c := r.Min.Add(r.Max).Div(2)
	p.Tap(c.X, c.Y)
	const steps = 6
	for i := 0; i < steps; i++ {
		n := len(out.Bytes())
		clock.add(20 * time.Millisecond) // past the next vsync's frame of the animation
		grows(fmt.Sprintf("animation step %d", i+1), n)
	}
	cancel()
	_ = cmd.Wait()
	file := filepath.Join(t.TempDir(), "rec.h264")
	os.WriteFile(file, out.Bytes(), 0o644)
	if b := out.Bytes(); !bytes.HasPrefix(b, []byte{0, 0, 0, 1, 0x67}) {
		t.Fatalf("stream does not start with an SPS: % x", b[:min(8, len(b))])
	}
	w, h, frames := probe(t, file)
	if w != 360 || h != 800 {
		t.Fatalf("size %dx%d, want 360x800", w, h)
	}
	// The first frame and one per step; the stream was cut mid-write, so
	// its last frame may be partial.
	if frames < steps {
		t.Fatalf("%d frames for %d screen changes", frames, steps+1)
	}
}

// The time limit ends the stream by itself, counted from the encoder's
// first output (as AOSP's): even a slow start yields a whole recording.
func TestScreenrecordTimeLimitEndsTheStream(t *testing.T) {
	t.Parallel()
	needFFmpeg(t)
	_, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := env.Command(ctx, "exec-out", "screenrecord", "--output-format=h264", "--time-limit", "1", "-")
	var out syncBuffer
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil || ctx.Err() != nil {
		t.Fatalf("screenrecord: %v (context %v): %s", err, ctx.Err(), stderr.String())
	}
	file := filepath.Join(t.TempDir(), "rec.h264")
	os.WriteFile(file, out.Bytes(), 0o644)
	if _, _, frames := probe(t, file); frames < 1 {
		t.Fatalf("%d frames before the time limit", frames)
	}
}

func TestScreenrecordRefusesWhatAOSPRefuses(t *testing.T) {
	t.Parallel()
	_, env := vphonetest.Start(t)
	for _, c := range []struct{ args, want string }{
		{"screenrecord --output-format=h264 --time-limit 0 -", "Time limit 0s outside acceptable range [1,180]"},
		{"screenrecord --output-format=h264 --time-limit 181 -", "Time limit 181s outside acceptable range [1,180]"},
		{"screenrecord --output-format=h264 --size 12by3 -", "Invalid size '12by3'"},
		{"screenrecord --output-format=h264 --bit-rate lots -", "Invalid bit rate 'lots'"},
		{"screenrecord --output-format=h264", "Must specify output file"},
		{"screenrecord --output-format=mkv -", "Unknown format 'mkv'"},
	} {
		_, errOut, code := env.Run(t, "shell", c.args)
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, stderr %q, want %q", c.args, code, errOut, c.want)
		}
	}
}

// syncBuffer is a bytes.Buffer safe to read while a command writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// Bytes returns a copy of what was written so far.
func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]byte(nil), s.b.Bytes()...)
}
