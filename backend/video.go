package backend

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"tandem/engine"
	"tandem/engine/model"
	"tandem/mirror"
	"tandem/video"
)

// A run's video (issue 52): the device's screen as the mirror has it, from
// the run's start to its end, kept in the run's record folder. The
// recording is one more viewer of the device's desk ("video:<run id>"), so
// the desk's stream runs while the run does, watched or not; it follows
// the hub's H.264 packets (mirror.Hub.Follow) and muxes them as they come
// (package video): nothing is decoded or encoded for it, and stills
// (JPEG) are never made for it. What the mirror hides, it hides: the
// desktop's pictures are captured with Tandem's windows painted over, a
// phone's secure screen comes black from the phone's own encoder.
//
// A device whose mirror has no H.264 stream (a phone polled by screencap,
// a desktop without an encoder) gets no video: encoding its stills would
// cost what the stream saves.

// VideoBudget bounds a video's growth: 5 MB a minute.
const VideoBudget = 5_000_000

// videoPrefix and videoExt name a run's video files: video-<start in Unix
// ms>.mp4, so the start of each (a resumed run gets one more) is in its
// name, and steps are marked by their times.
const videoPrefix, videoExt = "video-", ".mp4"

// recordings are the videos being made; Shutdown waits for them to close
// their files.
type recordings struct {
	wg sync.WaitGroup
	// firstPicture and lastPicture, when set, are the waits for a video's
	// first picture, at the run's first action and at its end, instead of
	// firstPictureWait (a test's).
	firstPicture, lastPicture time.Duration
	// closing holds, for each record folder whose video is being made, a
	// channel closed once its file is whole (finalized): History waits
	// for it rather than play a file about to be replaced.
	mu      sync.Mutex
	closing map[string]chan struct{}
}

func (v *recordings) firstWait() time.Duration { return orDefault(v.firstPicture, firstPictureWait) }
func (v *recordings) lastWait() time.Duration  { return orDefault(v.lastPicture, firstPictureWait) }

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// whole waits (at most 5 s) until the video being made in dir, if any, is
// whole.
func (v *recordings) whole(dir string) {
	v.mu.Lock()
	ch := v.closing[dir]
	v.mu.Unlock()
	if ch == nil {
		return
	}
	t := time.NewTimer(5 * time.Second)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	}
}

// firstPictureWait bounds how long a run's first decision waits for its
// video's first picture (a phone's stream takes a moment to open; a
// watched mirror's is there already).
const firstPictureWait = 3 * time.Second

// recording is one run's video: packets are kept in memory until the run
// (and so its record folder) exists, then written as they come.
type recording struct {
	b     *Backend
	id    string // the device
	start time.Time
	first chan struct{} // closed at the first picture (not at a codec config)
	once  sync.Once

	mu    sync.Mutex
	w     *video.Writer
	early []mirror.Frame
	werr  error
	whole func() // tells History the file is whole (set when attached)
	over  bool   // keep has ended: nothing more is attached
}

// beginVideo starts keeping device id's screen for a run about to start.
// The run does not wait for it: hold wraps the run's planner so that its
// first decision waits (at most firstPictureWait from now) for the
// video's first picture, so the first screen read and the first model
// call overlap the stream's opening and the video still has the run's
// first action. attach hands the video the run that started, or nil when
// none did.
func (b *Backend) beginVideo(ctx context.Context, id string, s Setup) (hold func(model.Planner) model.Planner, attach func(*engine.Run)) {
	if !s.Video || b.runs.world != nil {
		return func(p model.Planner) model.Planner { return p }, func(*engine.Run) {}
	}
	attachIn, rolling := b.beginVideoIn(ctx, id, s)
	return func(p model.Planner) model.Planner { return holdUntil(p, rolling) }, func(run *engine.Run) {
		if run == nil {
			attachIn("", nil)
			return
		}
		attachIn(run.Dir(), run.Done())
	}
}

// beginVideoIn is beginVideo for any record folder: attach gives the
// folder and a channel closed when the recording is to end ("": none);
// rolling is closed at the video's first picture, when it has none to
// come (no stream) or once the wait for it is over.
func (b *Backend) beginVideoIn(ctx context.Context, id string, s Setup) (attach func(dir string, done <-chan struct{}), rolling <-chan struct{}) {
	r := &recording{b: b, id: id, start: time.Now(), first: make(chan struct{})}
	ended := make(chan struct{}) // the recording gave up (no stream) or ended
	// The recording outlives this call: the run's end (or none) ends it.
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	b.videos.wg.Add(1)
	go func() {
		defer b.videos.wg.Done()
		defer cancel()
		path, err := r.keep(rctx)
		close(ended)
		r.mu.Lock()
		if r.whole != nil {
			r.whole()
		}
		r.mu.Unlock()
		switch {
		case err == nil && path != "":
			if err := pruneVideos(b.runs.dataDir, int64(s.KeepGB*1e9)); err != nil {
				log.Printf("videos: keeping the newest %g GB: %v", s.KeepGB, err)
			}
		case path != "" && !errors.Is(err, video.ErrEmpty):
			log.Printf("video %s: %v", path, err)
		}
	}()
	roll := make(chan struct{})
	go func() {
		defer close(roll)
		wait := time.NewTimer(b.videos.firstWait())
		defer wait.Stop()
		select {
		case <-r.first:
		case <-ended: // no stream: the run need not wait
		case <-wait.C:
		}
	}()
	return func(dir string, done <-chan struct{}) {
		if dir == "" || !r.attach(dir) {
			cancel()
			return
		}
		go func() {
			<-done
			// A run quicker than the stream's opening still leaves a
			// video, of the screen it ended on: the recording waits
			// (bounded) for its first picture before it ends.
			select {
			case <-r.first:
			case <-ended:
			case <-time.After(b.videos.lastWait()):
			}
			cancel()
		}()
	}, roll
}

// closing notes that dir's video is being made and returns what says it
// is whole.
func (v *recordings) closingIn(dir string) func() {
	ch := make(chan struct{})
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closing == nil {
		v.closing = map[string]chan struct{}{}
	}
	v.closing[dir] = ch
	return func() {
		v.mu.Lock()
		defer v.mu.Unlock()
		if v.closing[dir] == ch {
			delete(v.closing, dir)
		}
		close(ch)
	}
}

// keep watches the device and follows its stream until ctx ends, then
// closes the file; it returns the file's path ("" when no run came).
func (r *recording) keep(ctx context.Context) (string, error) {
	viewer := fmt.Sprintf("video:%s:%d", r.id, r.start.UnixNano())
	if err := r.b.desks.Watch(ctx, viewer, r.id); err != nil {
		return "", err
	}
	defer r.b.desks.Unwatch(viewer)
	fctx, stop := context.WithCancel(ctx)
	defer stop()
	go r.flushes(fctx, stop)
	r.b.hub.Follow(fctx, r.id, r.take)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.over = true
	if r.w == nil {
		return "", nil
	}
	if err := errors.Join(r.werr, r.w.Close(time.Now())); err != nil {
		return r.path(), err
	}
	// Whole: progressive, so every player seeks in it (video.Finalize).
	return r.path(), video.Finalize(r.path())
}

// finalizeVideos makes progressive the videos of a record no run writes
// (a run killed while it recorded left its video fragmented).
func finalizeVideos(dir string) {
	if engine.RecordInUse(dir) != nil {
		return
	}
	for _, v := range runVideos(dir) {
		p := filepath.Join(dir, v.Name)
		if st, err := os.Stat(p); err != nil || time.Since(st.ModTime()) < 5*time.Second {
			continue // a recording that may still be closing finalizes itself
		}
		if video.Fragmented(p) {
			if err := video.Finalize(p); err != nil {
				log.Printf("video %s: %v", p, err)
			}
		}
	}
}

// flushes puts pictures on disk within a second of their arrival, and
// ends the recording (stop) when the device's mirror has no stream.
func (r *recording) flushes(ctx context.Context, stop func()) {
	tick := time.NewTicker(video.FlushEvery / 4)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			if !hasStream(r.b.hub.PathOf(r.id)) {
				stop()
				return
			}
			r.mu.Lock()
			if r.w != nil && r.werr == nil && r.w.Due(now) {
				r.werr = r.w.Flush(now)
			}
			r.mu.Unlock()
		}
	}
}

// maxEarly bounds the packets kept before the run exists.
const maxEarly = 2000

// take is one packet of the stream.
func (r *recording) take(f mirror.Frame) {
	if !f.Config { // a codec config can come well before the first picture
		r.once.Do(func() { close(r.first) })
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w == nil {
		if len(r.early) < maxEarly {
			r.early = append(r.early, f)
		}
		return
	}
	r.write(f)
}

func (r *recording) write(f mirror.Frame) {
	switch {
	case r.werr != nil:
	case f.Config:
		r.w.Config(f.Data)
	default:
		r.werr = r.w.Frame(f.Data, f.Key, f.At)
	}
}

// path is the file's path (once attached).
func (r *recording) path() string { return r.w.Name() }

// attach makes the file in the run's record folder and writes what came;
// false when the recording has already ended (no stream) or the file
// cannot be made.
func (r *recording) attach(dir string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.over {
		return false
	}
	w, err := video.Create(filepath.Join(dir, videoPrefix+strconv.FormatInt(r.start.UnixMilli(), 10)+videoExt), r.start)
	if err != nil {
		log.Printf("video: %v", err)
		r.early = nil
		return false
	}
	r.whole = r.b.videos.closingIn(dir)
	w.Budget = VideoBudget
	r.w = w
	for _, f := range r.early {
		r.write(f)
	}
	r.early = nil
	return true
}

// waitVideos waits for every recording to close its file (their runs
// have ended).
func (b *Backend) waitVideos() { b.videos.wg.Wait() }

// hasStream says whether a mirror path carries H.264 (or may yet: no path
// named while the stream opens).
func hasStream(p mirror.Path) bool {
	switch p.Code {
	case "screencap", "no_decoder", "desktop_pictures", "desktop_encoder_failed":
		return false
	}
	return true
}

// RunVideo is one video file of a run: its name in the record folder,
// when its time zero was, its size.
type RunVideo struct {
	Name  string    `json:"name"`
	Start time.Time `json:"start"`
	Bytes int64     `json:"bytes"`
}

// runVideos lists the videos in a record folder, oldest first.
func runVideos(dir string) []RunVideo {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := []RunVideo{}
	for _, e := range entries {
		ms, ok := videoStart(e.Name())
		if !ok || e.IsDir() {
			continue
		}
		info, err := e.Info()
		if err != nil || info.Size() == 0 {
			continue
		}
		out = append(out, RunVideo{Name: e.Name(), Start: time.UnixMilli(ms), Bytes: info.Size()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out
}

// videoStart reads the start time from a video's file name.
func videoStart(name string) (int64, bool) {
	if !strings.HasPrefix(name, videoPrefix) || !strings.HasSuffix(name, videoExt) {
		return 0, false
	}
	ms, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(name, videoPrefix), videoExt), 10, 64)
	return ms, err == nil
}

// pruneVideos deletes the oldest videos under dataDir until those left
// take at most keep bytes (0 or less: no limit). The records stay.
func pruneVideos(dataDir string, keep int64) error {
	if keep <= 0 {
		return nil
	}
	runs, err := os.ReadDir(dataDir)
	if err != nil {
		return err
	}
	type file struct {
		path string
		v    RunVideo
	}
	var all []file
	for _, r := range runs {
		if !r.IsDir() {
			continue
		}
		for _, v := range runVideos(filepath.Join(dataDir, r.Name())) {
			all = append(all, file{filepath.Join(dataDir, r.Name(), v.Name), v})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v.Start.After(all[j].v.Start) }) // newest first
	var total int64
	var errs []error
	for _, f := range all {
		total += f.v.Bytes
		if total > keep {
			if err := os.Remove(f.path); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// ExportClip cuts run id's video from step from to step to (numbers as
// History shows them; to 0: the run's end) into a file of its own beside
// the record, and returns its path. The clip begins at the key frame at or
// before the first step, so it may start a little earlier.
func ExportClip(dataDir, id string, from, to int) (string, error) {
	run, err := ReadRun(dataDir, id)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(dataDir, filepath.Base(id))
	vids := runVideos(dir)
	if len(vids) == 0 {
		return "", errors.New("this run has no video")
	}
	var a, z time.Time
	for _, st := range run.Steps {
		if st.N == from {
			a = st.At
		}
		if st.N == to {
			z = st.At.Add(time.Duration(st.Ms) * time.Millisecond)
		}
	}
	if a.IsZero() {
		return "", fmt.Errorf("no step %d in this run", from)
	}
	if to != 0 && z.IsZero() {
		return "", fmt.Errorf("no step %d in this run", to)
	}
	v := vids[0]
	for _, c := range vids {
		if !c.Start.After(a) {
			v = c
		}
	}
	// A step's screen is the one before it: the clip starts a second
	// early so the step's action is seen landing.
	startAt := max(a.Sub(v.Start)-time.Second, 0)
	endAt := time.Duration(1<<62 - 1)
	if !z.IsZero() {
		endAt = z.Sub(v.Start) + 2*time.Second // the screen the last step left
	}
	out := filepath.Join(dir, fmt.Sprintf("clip-steps-%d-%d.mp4", from, to))
	_ = os.Remove(out)
	if err := video.Clip(filepath.Join(dir, v.Name), out, startAt, endAt); err != nil {
		return "", err
	}
	return out, nil
}

// resumeDevice is the device run id resumes on: the one given, else the
// record's ("" when it cannot be read; the resume then says why).
func (b *Backend) resumeDevice(id string, given Given) string {
	if given.Device != "" {
		return given.Device
	}
	entries, _, err := engine.ReadRecord(filepath.Join(b.runs.dataDir, filepath.Base(id)))
	if err != nil || len(entries) == 0 {
		return ""
	}
	return entries[0].Device
}
