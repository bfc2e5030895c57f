package video

import (
	"context"
	"image"
	"image/color"
	"image/draw"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"tandem/internal/h264enc"
	"tandem/internal/videotest"
)

// packets encodes n pictures of a w x h screen, a bar moving down it, the
// k-th captured at start+k*gap, and returns the encoder's packets.
func packets(t *testing.T, w, h, n int, start time.Time, gap time.Duration) []h264enc.Packet {
	t.Helper()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg is not installed")
	}
	var mu sync.Mutex
	var out []h264enc.Packet
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	enc, err := h264enc.Start(ctx, h264enc.Options{SrcW: w, SrcH: h, GOP: 10, BitRate: 2_000_000}, func(p h264enc.Packet) error {
		mu.Lock()
		out = append(out, p)
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for k := range n {
		draw.Draw(img, img.Bounds(), image.NewUniform(color.RGBA{240, 240, 245, 255}), image.Point{}, draw.Src)
		y := (k * h / n) &^ 1
		draw.Draw(img, image.Rect(0, y, w, y+h/10), image.NewUniform(color.RGBA{40, 80, 200, 255}), image.Point{}, draw.Src)
		if err := enc.Encode(img.Pix, start.Add(time.Duration(k)*gap)); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return out
}

// write feeds the packets to a new file and returns the writer (not closed).
func write(t *testing.T, path string, start time.Time, ps []h264enc.Packet) *Writer {
	t.Helper()
	w, err := Create(path, start)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Config {
			w.Config(p.Data)
			continue
		}
		if err := w.Frame(p.Data, p.Key, p.At); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func near(a, b, tol time.Duration) bool { return a-b <= tol && b-a <= tol }

func TestWriterPlaysWithCaptureTimes(t *testing.T) {
	start := time.Now()
	ps := packets(t, 320, 640, 30, start, 200*time.Millisecond) // 6 s of pictures
	path := filepath.Join(t.TempDir(), "video.mp4")
	w := write(t, path, start, ps)
	// The run goes on 4 s after the last change: the still screen costs
	// nothing, and the file still lasts until the end.
	if err := w.Close(start.Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	p := videotest.Probe(t, path)
	if p.Codec != "h264" || p.Frames != 30 {
		t.Fatalf("ffprobe read %+v, want 30 frames of h264", p)
	}
	if !near(p.Duration, 10*time.Second, 300*time.Millisecond) {
		t.Fatalf("duration %v, want the run's 10 s", p.Duration)
	}
	_, _, samples, err := Read(path)
	if err != nil || len(samples) != 30 {
		t.Fatalf("read back %d samples (%v)", len(samples), err)
	}
	for i, s := range samples {
		if want := time.Duration(i) * 200 * time.Millisecond; !near(s.At, want, 2*time.Millisecond) {
			t.Fatalf("picture %d at %v, want its capture time %v", i, s.At, want)
		}
	}
}

// A process killed mid-recording leaves what it flushed: a file that
// plays up to its last fragment, even with half a fragment after it.
func TestWriterKilledLeavesAPlayableFile(t *testing.T) {
	start := time.Now()
	ps := packets(t, 320, 640, 30, start, 200*time.Millisecond)
	path := filepath.Join(t.TempDir(), "video.mp4")
	w := write(t, path, start, ps[:len(ps)-3])
	flushed := w.Bytes
	// Never closed; a torn write after the last fragment.
	if _, err := w.f.Write([]byte{0, 0, 1, 0, 'm', 'o', 'o', 'f', 1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	p := videotest.Probe(t, path)
	if p.Codec != "h264" || p.Frames < 20 || flushed == 0 {
		t.Fatalf("ffprobe read %+v of a killed recording, want most of its pictures", p)
	}
	if !near(p.Duration, 5*time.Second, 1200*time.Millisecond) {
		t.Fatalf("duration %v, want about the 5 s flushed", p.Duration)
	}
	// Made whole afterwards (History does it), it keeps what it had.
	if err := Finalize(path); err != nil {
		t.Fatal(err)
	}
	if q := videotest.Probe(t, path); q.Codec != "h264" || q.Frames != p.Frames || Fragmented(path) {
		t.Fatalf("the killed recording made whole reads as %+v (fragmented %v), was %+v", q, Fragmented(path), p)
	}
}

func TestClipStartsAtAKeyFrame(t *testing.T) {
	start := time.Now()
	ps := packets(t, 320, 640, 30, start, 200*time.Millisecond)
	dir := t.TempDir()
	src := filepath.Join(dir, "video.mp4")
	if err := write(t, src, start, ps).Close(start.Add(6 * time.Second)); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "clip.mp4")
	// Key frames every 10 pictures (2 s): a clip from 2.5 s starts at 2 s.
	if err := Clip(src, dst, 2500*time.Millisecond, 4500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	p := videotest.Probe(t, dst)
	if p.Codec != "h264" || p.Frames != 13 {
		t.Fatalf("clip has %+v, want the 13 pictures from 2 s to 4.4 s", p)
	}
	if !near(p.Duration, 2500*time.Millisecond, 100*time.Millisecond) {
		t.Fatalf("clip lasts %v, want 2.5 s", p.Duration)
	}
	if err := Clip(src, filepath.Join(dir, "none.mp4"), 20*time.Second, 30*time.Second); err == nil {
		t.Fatal("a clip after the end was made")
	}
}

func TestEmptyRecordingLeavesNoFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "video.mp4")
	w, err := Create(path, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(time.Now()); err == nil {
		t.Fatal("no error for a recording without a picture")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("an empty recording left a file (%v)", err)
	}
}

// A screen that never stops changing passes the budget: pictures are
// dropped, a whole group at a time, and the file stays within it.
func TestWriterKeepsItsBudget(t *testing.T) {
	start := time.Now()
	ps := packets(t, 320, 640, 60, start, 100*time.Millisecond) // 6 s
	path := filepath.Join(t.TempDir(), "video.mp4")
	w, err := Create(path, start)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, p := range ps {
		total += len(p.Data)
	}
	w.Budget = int64(total) // a minute's budget for 6 s of pictures: about a third fits
	for _, p := range ps {
		if p.Config {
			w.Config(p.Data)
		} else if err := w.Frame(p.Data, p.Key, p.At); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(start.Add(6 * time.Second)); err != nil {
		t.Fatal(err)
	}
	allowed := int64(float64(w.Budget)*0.1+float64(w.Budget)/4) + 4096
	if w.Dropped == 0 || w.Bytes > allowed {
		t.Fatalf("%d bytes, %d pictures dropped; want at most %d bytes", w.Bytes, w.Dropped, allowed)
	}
	if p := videotest.Probe(t, path); p.Codec != "h264" || p.Frames != 60-w.Dropped {
		t.Fatalf("ffprobe read %+v, want %d frames", p, 60-w.Dropped)
	}
}

// A finished recording made progressive keeps its pictures and their
// times, and plays as before.
func TestFinalizeKeepsPicturesAndTimes(t *testing.T) {
	start := time.Now()
	ps := packets(t, 320, 640, 30, start, 200*time.Millisecond)
	path := filepath.Join(t.TempDir(), "video.mp4")
	if err := write(t, path, start, ps).Close(start.Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	_, _, before, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Finalize(path); err != nil {
		t.Fatal(err)
	}
	_, _, after, err := Read(path)
	if err != nil || len(after) != len(before) {
		t.Fatalf("read back %d of %d samples (%v)", len(after), len(before), err)
	}
	for i := range after {
		if after[i].At != before[i].At || after[i].Key != before[i].Key {
			t.Fatalf("sample %d: %+v, was %+v", i, after[i].At, before[i].At)
		}
	}
	p := videotest.Probe(t, path)
	if p.Codec != "h264" || p.Frames != 30 || !near(p.Duration, 10*time.Second, 300*time.Millisecond) {
		t.Fatalf("the progressive file reads as %+v", p)
	}
}

// A phone that turns restarts its stream with a new size: its new
// parameter sets go in band before the next key frame, and every picture
// still decodes.
func TestWriterKeepsAStreamThatTurns(t *testing.T) {
	start := time.Now()
	upright := packets(t, 320, 640, 10, start, 100*time.Millisecond)
	turned := packets(t, 640, 320, 10, start.Add(time.Second), 100*time.Millisecond)
	path := filepath.Join(t.TempDir(), "video.mp4")
	w := write(t, path, start, append(upright, turned...))
	if err := w.Close(start.Add(2 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := Finalize(path); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", path, "-fps_mode", "passthrough", "-enc_time_base", "-1", "-f", "null", "-").CombinedOutput()
	if err != nil || len(out) != 0 {
		t.Fatalf("ffmpeg decoding the turned stream: %v\n%s", err, out)
	}
	if p := videotest.Probe(t, path); p.Frames != 20 {
		t.Fatalf("%+v, want the 20 pictures of both sizes", p)
	}
}
