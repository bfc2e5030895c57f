package backend

import (
	"bytes"
	"context"
	"fmt"
	"image/jpeg"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tandem/engine"
	"tandem/internal/modeltest"
	"tandem/mirror"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// A run with no window and no viewer (tandem run) hands every capture to
// its device's mirror, which keeps the newest one and encodes none: no
// picture is made for nobody, and none inside the engine's capture or its
// stability wait (issue 48).
func TestAHeadlessRunEncodesNoPicture(t *testing.T) {
	b, phone, plus := counterBackend(t)
	srv := tapsThenFinish(t, 3, plus)
	p := scriptedProfile(t, b, srv.URL, "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// No video: its stream would feed the mirror instead of the captures
	// (video_test.go checks that a run's video makes no picture either).
	runDone(ctx, t, b, phone, "tap three times", RunChoice{Profile: p.ID, NoVideo: true})
	if f, _ := b.hub.Latest(phone); f == nil {
		t.Fatal("the run's captures never reached the mirror")
	}
	if n := b.hub.Encodes(); n != 0 {
		t.Fatalf("the mirror encoded %d pictures for a run nobody watched", n)
	}
}

// Once a run has been over a while, its device's last picture is kept as
// the mirror's JPEG, not as the phone's 10 MB capture (issue 48: after a
// run, an idle device held a full-size frame for as long as the app ran).
func TestARunsLastPictureDoesNotStayRaw(t *testing.T) {
	b, phone, plus := counterBackend(t)
	b.hub.SettleAfter = 20 * time.Millisecond
	srv := tapsThenFinish(t, 1, plus)
	p := scriptedProfile(t, b, srv.URL, "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	runDone(ctx, t, b, phone, "tap once", RunChoice{Profile: p.ID, NoVideo: true})
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		f, _ := b.hub.Latest(phone)
		if f != nil && len(f.Data) > 0 {
			if _, err := jpeg.Decode(bytes.NewReader(f.Data)); err != nil || f.Width != 1080 || f.Height != 2400 {
				t.Fatalf("the kept picture (%dx%d) does not decode: %v", f.Width, f.Height, err)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the run's last capture is still kept raw 20 s after it ended")
		}
	}
}

// A viewer who joins while the run waits for its model gets the newest
// capture the run handed the mirror, encoded then for that viewer alone.
func TestAViewerWhoJoinsMidRunGetsTheNewestPicture(t *testing.T) {
	b, phone, plus := counterBackend(t)
	held, release := make(chan struct{}, 1), make(chan struct{})
	let := sync.OnceFunc(func() { close(release) })
	defer let()
	var calls atomic.Int32
	srv := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply {
		switch calls.Add(1) {
		case 1:
		case 2:
			held <- struct{}{}
			<-release // until the test has its picture (or gave up)
		default:
			return finishReply()
		}
		return tapReply(plus)
	})
	p := scriptedProfile(t, b, srv.URL, "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	snap, err := b.StartRun(ctx, phone, "tap twice", RunChoice{Profile: p.ID, NoVideo: true}) // a video's stream would feed the mirror
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-held: // the run tapped once and settled; its second call waits
	case <-ctx.Done():
		t.Fatal("the run's second model call never came")
	}
	newest, _ := b.hub.Latest(phone)
	if newest == nil || b.hub.Encodes() != 0 {
		t.Fatalf("before any viewer: a newest still %v, %d encodes, want one and none", newest != nil, b.hub.Encodes())
	}
	ms, err := mirror.Start(b.hub)
	if err != nil {
		t.Fatal(err)
	}
	defer ms.Close()
	f, _ := dialMirror(t, ms.StreamURL(phone)).next(t, 10*time.Second)
	// The second call may be the early one, made while the stability wait
	// still captures: the joiner is owed the newest still when it joins,
	// which is the one above or one the run published after it.
	if f.Kind != mirror.KindJPEG || f.Width != 1080 || f.Height != 2400 || f.At.Before(newest.At.Truncate(time.Millisecond)) {
		t.Fatalf("the joiner got %v %dx%d of %v, want the newest capture, 1080x2400 of %v or later", f.Kind, f.Width, f.Height, f.At, newest.At)
	}
	if _, err := jpeg.Decode(bytes.NewReader(f.Data)); err != nil {
		t.Fatalf("the joiner's picture: %v", err)
	}
	// One encode for the joiner's picture; another only for a still the
	// run published after it (its stability wait may capture again while
	// its call is held), which the viewer is then owed.
	if n := b.hub.Encodes(); n != 1 {
		later, _ := b.hub.Latest(phone)
		if n < 1 || later == nil || !later.At.After(newest.At) {
			t.Fatalf("%d encodes for one viewer joining and no newer still, want 1", n)
		}
	}
	let()
	run, err := b.Run(snap.ID, ByWindow())
	if err != nil {
		t.Fatal(err)
	}
	if res, err := run.Wait(ctx); err != nil || res.State != engine.Done {
		t.Fatalf("the run ended %+v, %v", res, err)
	}
}

// counterBackend is a backend over a private adb server with one virtual
// phone showing the counter, and its +1 button as the tools dialect's
// 0–1000 arguments.
func counterBackend(t *testing.T) (b *Backend, serial, plus string) {
	t.Helper()
	b, _, serial, plus = counterPhone(t)
	return b, serial, plus
}

// counterPhone is counterBackend with the phone itself.
func counterPhone(t *testing.T) (b *Backend, p *vphone.Phone, serial, plus string) {
	t.Helper()
	adb, port := vphonetest.StartServer(t)
	t.Setenv("ADB_LOCAL_TRANSPORT_MAX_PORT", "0")
	p, err := vphone.New(vphone.WithSize(1080, 2400))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	env := vphonetest.Env{ADB: adb, Port: port, Serial: p.Addr(), Address: p.Addr()}
	if err := vphonetest.Connect(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	if err := p.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	box, _ := p.Bounds("plus")
	c := box.Min.Add(box.Max).Div(2)
	b = New(Config{ConfigDir: t.TempDir(), DataDir: t.TempDir(), KeyFile: true, ADB: "127.0.0.1:" + strconv.Itoa(port)})
	t.Cleanup(b.Shutdown)
	return b, p, env.Serial, fmt.Sprintf(`{"x":%d,"y":%d}`, c.X*1000/1080, c.Y*1000/2400)
}
