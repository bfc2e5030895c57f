package backend

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"tandem/vphone"
)

// tapRun runs taps taps of plus on phone, then finish, and returns the
// run's record folder and its wall time.
func tapRun(t *testing.T, b *Backend, phone, plus string, taps int32) (string, time.Duration) {
	t.Helper()
	return tapRunChoice(t, b, phone, plus, taps, false)
}

// tapRunChoice is tapRun with or without a video.
func tapRunChoice(t *testing.T, b *Backend, phone, plus string, taps int32, noVideo bool) (string, time.Duration) {
	t.Helper()
	srv := tapsThenFinish(t, taps, plus)
	p := scriptedProfile(t, b, srv.URL, "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	began := time.Now()
	run := runDone(ctx, t, b, phone, "tap", RunChoice{Profile: p.ID, NoVideo: noVideo})
	wall := time.Since(began)
	b.waitVideos()
	return run.Dir(), wall
}

// A run's video follows the phone's stream: no picture is encoded for it
// (issue 48: work only for a viewer).
func TestARunVideoMakesNoPicture(t *testing.T) {
	b, serial, plus := counterBackend(t)
	dir, wall := tapRun(t, b, serial, plus, 3)
	if n := b.hub.Encodes(); n != 0 {
		t.Fatalf("the mirror encoded %d pictures for a run's video", n)
	}
	vids := runVideos(dir)
	if len(vids) != 1 {
		t.Fatalf("the run left %d videos", len(vids))
	}
	t.Logf("a %v run at 1080x2400 left %d bytes of video", wall, vids[0].Bytes)
}

// A secure screen, which the phone's own encoder sends black, stays
// black in the video.
func TestAVideoShowsNoSecureScreen(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg is not installed")
	}
	b, phone, serial, _ := counterPhone(t)
	phone.SetSecure(true)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir := t.TempDir()
	attach, _ := b.beginVideoIn(ctx, serial, Setup{Video: true})
	done := make(chan struct{})
	attach(dir, done)
	for _, app := range []string{vphone.PkgNotes, vphone.PkgCounter} { // the screen changes under the black
		if err := phone.Launch(app); err != nil {
			t.Fatal(err)
		}
	}
	for len(runVideos(dir)) == 0 { // its first picture is written (a loaded machine opens the stream late)
		if ctx.Err() != nil {
			t.Fatal("no picture of the secure screen came")
		}
		time.Sleep(20 * time.Millisecond)
	}
	close(done)
	b.waitVideos()
	vids := runVideos(dir)
	if len(vids) != 1 {
		t.Fatalf("the recording left %d videos", len(vids))
	}
	path := filepath.Join(dir, vids[0].Name)
	// Its pictures, decoded, as 8-bit grey: all black.
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", path, "-vf", "scale=64:-2", "-pix_fmt", "gray", "-f", "rawvideo", "-").Output()
	if err != nil || len(out) == 0 {
		t.Fatalf("ffmpeg decoded %d bytes of %s: %v", len(out), path, err)
	}
	for i, v := range out {
		if v > 24 {
			t.Fatalf("pixel %d of the secure screen's video is %d, not black", i, v)
		}
	}
}

// The newest videos within the limit are kept; older ones go, their
// records stay.
func TestPruneVideosKeepsTheNewest(t *testing.T) {
	data := t.TempDir()
	write := func(run string, start int64, size int) string {
		dir := filepath.Join(data, run)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "record.jsonl"), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, videoPrefix+strconv.FormatInt(start, 10)+videoExt)
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	oldest := write("a", 1000, 400)
	older := write("b", 2000, 400)
	newer := write("b", 3000, 400)
	newest := write("c", 4000, 400)
	if err := pruneVideos(data, 1000); err != nil {
		t.Fatal(err)
	}
	for p, kept := range map[string]bool{oldest: false, older: false, newer: true, newest: true} {
		if _, err := os.Stat(p); (err == nil) != kept {
			t.Errorf("%s: kept %v, want %v", p, err == nil, kept)
		}
	}
	if _, err := os.Stat(filepath.Join(data, "a", "record.jsonl")); err != nil {
		t.Fatal("a record went with its video")
	}
}

// A phone whose mirror can only poll screencap keeps no video, and the
// recording does not keep its desk polling: it leaves when it sees no
// stream.
func TestNoStreamNoVideo(t *testing.T) {
	b, serial, plus := counterBackend(t)
	b.desks.noScreenrecord, b.desks.jarPaths = true, nil
	dir, _ := tapRun(t, b, serial, plus, 2)
	if vids := runVideos(dir); len(vids) != 0 {
		t.Fatalf("a phone without a stream left %v", vids)
	}
	if d := b.desks.get(serial); d != nil {
		t.Fatalf("the recording's desk still polls the phone for %v", d.viewers)
	}
}
