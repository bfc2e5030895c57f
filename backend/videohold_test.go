package backend

import (
	"context"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tandem/engine"
	"tandem/internal/modeltest"
	"tandem/mirror"
	"tandem/vphone"
)

// A run starts at once, video or not: the model is asked while the
// phone's video stream is still opening, and the run's first action waits
// for the video's first picture, so the video has it (issue 48: a 6-step
// task with its video took 1.1× the time of the build before the backend,
// which kept no video, as the run's start waited for the stream).
func TestARunDoesNotWaitForItsVideoToOpen(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg is not installed")
	}
	b, phone, serial, plus := counterPhone(t)
	b.videos.firstPicture = 10 * time.Minute // here only the stream's opening ends the wait
	release := make(chan struct{})
	phone.HoldVideo(release)
	asked := make(chan struct{})
	var once sync.Once
	var calls atomic.Int32
	srv := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply {
		once.Do(func() { close(asked) })
		if calls.Add(1) > 1 {
			return finishReply()
		}
		return tapReply(plus)
	})
	p := scriptedProfile(t, b, srv.URL, "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	type started struct {
		snap engine.Snapshot
		err  error
	}
	start := make(chan started, 1)
	go func() {
		snap, err := b.StartRun(ctx, serial, "tap", RunChoice{Profile: p.ID})
		start <- started{snap, err}
	}()
	select {
	case <-asked:
	case <-ctx.Done():
		t.Fatal("the model was not asked while the phone's video stream was opening")
	}
	// Its answer is a tap, which must wait for the video. A build that
	// does not hold it taps at once: a second shows it on any machine
	// that answers at all (a slower one only hides the fault).
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline) && len(tapsOf(phone)) == 0; {
		time.Sleep(10 * time.Millisecond)
	}
	opened := time.Now()
	close(release)
	s := <-start
	if s.err != nil {
		t.Fatal(s.err)
	}
	run, err := b.Run(s.snap.ID, ByWindow())
	if err != nil {
		t.Fatal(err)
	}
	if res, err := run.Wait(ctx); err != nil || res.State != engine.Done {
		t.Fatalf("the run ended %+v, %v", res, err)
	}
	taps := tapsOf(phone)
	if len(taps) != 1 {
		t.Fatalf("the phone got %d taps, want 1", len(taps))
	}
	if taps[0].At.Before(opened) {
		t.Fatalf("the tap landed %v before the video's stream opened", opened.Sub(taps[0].At))
	}
	b.waitVideos()
	if vids := runVideos(run.Dir()); len(vids) != 1 {
		t.Fatalf("the run left %d videos", len(vids))
	}
}

// tapsOf is the taps phone has received.
func tapsOf(phone *vphone.Phone) []vphone.Event {
	var out []vphone.Event
	for _, e := range phone.Events() {
		if e.Kind == "tap" {
			out = append(out, e)
		}
	}
	return out
}

// A run over before its video's first picture came (a desktop's encoder
// on a busy machine) still leaves a video, of the screen it ended on: the
// recording waits for that picture at the run's end (make test on a clean
// clone: a quick desktop run kept no video).
func TestARunQuickerThanItsVideoStillKeepsOne(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg is not installed")
	}
	b, phone, serial, plus := counterPhone(t)
	b.videos.firstPicture = 50 * time.Millisecond // the run's action waits no longer
	b.videos.lastPicture = 10 * time.Minute       // its end waits as long as the test needs
	release := make(chan struct{})
	phone.HoldVideo(release)
	srv := tapsThenFinish(t, 1, plus)
	p := scriptedProfile(t, b, srv.URL, "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := runDone(ctx, t, b, serial, "tap", RunChoice{Profile: p.ID})
	close(release) // the stream opens after the run's end
	b.waitVideos()
	if vids := runVideos(run.Dir()); len(vids) != 1 {
		t.Fatalf("the run left %d videos", len(vids))
	}
}

// A stream's codec config is not its first picture: the run's first
// action and a quick run's end wait for a picture (a make test beside
// another: a quick desktop run whose encoder had sent its config, but no
// picture yet, kept no video).
func TestACodecConfigIsNotTheFirstPicture(t *testing.T) {
	r := &recording{first: make(chan struct{})}
	r.take(mirror.Frame{Kind: mirror.KindH264, Config: true, Data: []byte{0, 0, 0, 1, 0x67}})
	select {
	case <-r.first:
		t.Fatal("the codec config was taken for the first picture")
	default:
	}
	r.take(mirror.Frame{Kind: mirror.KindH264, Key: true, Data: []byte{0, 0, 0, 1, 0x65}})
	select {
	case <-r.first:
	default:
		t.Fatal("the key frame was not taken for the first picture")
	}
}
