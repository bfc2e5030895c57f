package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"tandem/engine/action"
	"tandem/engine/model"
	"tandem/internal/encoded"
	"tandem/internal/fastjpeg"
)

// The record of a run is a directory: record.jsonl, one Entry per line,
// appended and fsynced as the run goes, and frames/NNNNN.jpg. A crash loses
// at most the line being written; reading tolerates a torn last line, and
// Resume continues a crashed run from it.
const (
	recordFile  = "record.jsonl"
	framesDir   = "frames"
	maxRawBytes = 32 << 10  // a model reply is cut to this in the record
	frameLong   = 1024      // a recorded frame's long side, in pixels
	frameQ      = 70        // JPEG quality of recorded frames
	defaultMax  = 512 << 20 // record size above which frames are no longer kept
)

// EntryKind names what a line of a run's record is about. The names are the
// record format (History, `tandem run --resume` and reports read them): one
// copy, here.
type EntryKind string

// The record's entry kinds.
const (
	EntryStart   EntryKind = "start"
	EntryState   EntryKind = "state"
	EntryObserve EntryKind = "observe"
	EntryPlan    EntryKind = "plan"
	EntryRetry   EntryKind = "retry" // a model call attempt failed and is tried again
	EntryAction  EntryKind = "action"
	EntryStable  EntryKind = "stable"
	EntryManual  EntryKind = "manual"
	EntryNote    EntryKind = "note"
	EntryRequest EntryKind = "request"
	EntryPerson  EntryKind = "person" // a command from the person: confirm, deny, answer, edits
	EntryHistory EntryKind = "history"
	EntryEnd     EntryKind = "end"
	// EntryDropped is a model call started on a screen that then moved
	// (speculate.go), cancelled unseen: its cost when it had answered.
	EntryDropped EntryKind = "dropped_call"
)

// Short names for the engine's own use.
const (
	recStart   = EntryStart
	recState   = EntryState
	recObserve = EntryObserve
	recPlan    = EntryPlan
	recRetry   = EntryRetry
	recAction  = EntryAction
	recStable  = EntryStable
	recManual  = EntryManual
	recNote    = EntryNote
	recRequest = EntryRequest
	recPerson  = EntryPerson
	recHistory = EntryHistory
	recEnd     = EntryEnd
	recDropped = EntryDropped
)

// Entry is one line of a run's record. Only the fields its Kind uses are set.
type Entry struct {
	T    time.Time `json:"t"`
	Kind EntryKind `json:"kind"`

	// start
	ID       string    `json:"id,omitempty"`
	Goal     string    `json:"goal,omitempty"`
	Settings *Settings `json:"settings,omitempty"`
	Device   string    `json:"device,omitempty"`

	// Via names who started the run (start) or gave the person's command
	// (person), when it was not the person at the door the run came in by:
	// "mcp:<client>" started it, "the person, asked through <client>"
	// answered (Config.StartedBy, Via).
	Via string `json:"via,omitempty"`
	// Door and DeviceName (start): the door the run came in by and the
	// device's name at the start (Config.Door, Config.DeviceName).
	Door       string `json:"door,omitempty"`
	DeviceName string `json:"device_name,omitempty"`

	// state
	State  *State `json:"state,omitempty"`
	Reason string `json:"reason,omitempty"`
	By     string `json:"by,omitempty"` // the person's command behind the change (as StateEvent.By)

	// observe, manual
	Call   int         `json:"call,omitempty"`
	Frame  string      `json:"frame,omitempty"`
	Screen action.Size `json:"screen,omitzero"`
	App    string      `json:"app,omitempty"`
	Secure bool        `json:"secure,omitempty"`
	Before string      `json:"before,omitempty"`

	// plan
	PromptBytes int             `json:"prompt_bytes,omitempty"`
	Raw         string          `json:"raw,omitempty"`
	Thought     string          `json:"thought,omitempty"`
	Actions     []action.Action `json:"actions,omitempty"`
	Usage       *model.Usage    `json:"usage,omitempty"`
	Error       string          `json:"error,omitempty"`
	Salvaged    string          `json:"salvaged,omitempty"` // what the dialect repaired in the reply
	Cached      bool            `json:"cached,omitempty"`   // reused from the action cache, no model call
	Handed      bool            `json:"handed,omitempty"`   // another agent's one action, handed in: no model call
	Replayed    bool            `json:"replayed,omitempty"` // a recorded run's step played again, no model call

	// action, stable, manual
	N      int            `json:"n,omitempty"`
	Action *action.Action `json:"action,omitempty"`
	Result string         `json:"result,omitempty"`
	Ms     int64          `json:"ms,omitempty"`
	Stable *bool          `json:"stable,omitempty"`
	Diff   float64        `json:"diff,omitempty"`
	Target string         `json:"target,omitempty"` // action: StepEvent.Target
	// Element is the element the action hit (action), as the judge read
	// it: its words, box, resource id and class, for a replay.
	Element *Element `json:"element,omitempty"`

	// note, request, person
	Text    string   `json:"text,omitempty"`
	Request *Request `json:"request,omitempty"`
	Command string   `json:"command,omitempty"`
	Region  *Region  `json:"region,omitempty"` // person: the region marked on hand back

	// history
	Step *model.Step `json:"step,omitempty"`

	// end
	End *Result `json:"end,omitempty"`
}

// recorder writes a run's record from one goroutine, so neither the loop
// nor the workers wait for the disk: lines and frames queue up and are
// written in order. Frames are queued with back-pressure (a worker blocks
// when several are waiting), so memory stays bounded however long the run.
type recorder struct {
	dir    string
	f      *os.File
	lock   *recordLock // this process writes the record (recordlock.go)
	lines  chan recItem
	frames chan struct{} // tokens: at most cap frames wait in the queue
	done   chan struct{}
	max    int64

	// onPerson, when set, hears every person entry as it is queued (the
	// run turns them into KindPerson events).
	onPerson func(Entry)
	// now stamps an entry that comes without a time (nil: the wall
	// clock); the run sets its own clock.
	now func() time.Time
	// sync: each line and frame is written by add or frame itself, before
	// it returns, not by the writer (a scheduled run's record must not
	// depend on the writer's turn; nothing is ever queued then).
	sync bool

	mu      sync.Mutex
	nframe  int
	bytes   int64
	err     error
	dropped int
}

type recItem struct {
	e     *Entry
	img   image.Image
	name  string
	flush chan struct{}
}

// openRecorder opens a new record in dir, locked for this process.
func openRecorder(dir string, maxBytes int64) (*recorder, error) {
	if err := os.MkdirAll(filepath.Join(dir, framesDir), 0o755); err != nil {
		return nil, fmt.Errorf("engine: record: %w", err)
	}
	lock, err := lockRecord(dir) // held until close (recordlock.go)
	if err != nil {
		return nil, err
	}
	return openLocked(dir, maxBytes, lock)
}

// openLocked opens (or, for a resumed run, appends to) the record in dir,
// whose lock this process holds.
func openLocked(dir string, maxBytes int64, lock *recordLock) (*recorder, error) {
	if err := os.MkdirAll(filepath.Join(dir, framesDir), 0o755); err != nil {
		lock.release()
		return nil, fmt.Errorf("engine: record: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, recordFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		lock.release()
		return nil, fmt.Errorf("engine: record: %w", err)
	}
	if maxBytes <= 0 {
		maxBytes = defaultMax
	}
	r := &recorder{dir: dir, f: f, lock: lock, lines: make(chan recItem, 4096), frames: make(chan struct{}, 3),
		done: make(chan struct{}), max: maxBytes}
	if st, err := f.Stat(); err == nil {
		r.bytes = st.Size()
	}
	if ents, err := os.ReadDir(filepath.Join(dir, framesDir)); err == nil {
		r.nframe = len(ents)
		for _, e := range ents {
			if info, err := e.Info(); err == nil {
				r.bytes += info.Size()
			}
		}
	}
	go r.write()
	return r, nil
}

// add queues one line. It never blocks the caller for long: the queue is
// deep, and lines are small.
func (r *recorder) add(e Entry) {
	if r == nil {
		return
	}
	if e.T.IsZero() {
		e.T = time.Now()
		if r.now != nil {
			e.T = r.now()
		}
	}
	if e.Kind == recPerson && r.onPerson != nil {
		r.onPerson(e)
	}
	r.queue(recItem{e: &e})
}

// queue hands it to the writer, or in sync mode writes it now.
func (r *recorder) queue(it recItem) {
	if r.sync {
		var buf frameBufs
		r.put(it, &buf)
		return
	}
	r.lines <- it
}

// frame queues img to be written as a JPEG and returns the file name it
// will have (relative to the record directory), or "" when the record is
// full or ctx ends first.
func (r *recorder) frame(ctx context.Context, img image.Image) string {
	if r == nil || img == nil {
		return ""
	}
	r.mu.Lock()
	full := r.bytes >= r.max
	if full {
		r.dropped++
	}
	r.nframe++
	name := filepath.Join(framesDir, fmt.Sprintf("%05d.jpg", r.nframe))
	r.mu.Unlock()
	if full {
		return ""
	}
	select {
	case r.frames <- struct{}{}:
	case <-ctx.Done():
		return ""
	}
	r.queue(recItem{img: img, name: name})
	return name
}

// close flushes and closes the record.
func (r *recorder) close() error {
	if r == nil {
		return nil
	}
	close(r.lines)
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.f.Close(); err != nil && r.err == nil {
		r.err = err
	}
	r.lock.release()
	return r.err
}

func (r *recorder) write() {
	defer close(r.done)
	var buf frameBufs
	for it := range r.lines {
		r.put(it, &buf)
	}
}

// frameBufs are the record writer's buffers, reused frame after frame:
// the JPEG's bytes and the shrunk picture (only the writer sees it, and
// each frame of its size writes every one of its pixels), which would
// otherwise be 2 MB allocated and zeroed a step.
type frameBufs struct {
	jpeg bytes.Buffer
	pix  *image.RGBA
}

// put writes one item: a frame, or a line, synced.
func (r *recorder) put(it recItem, buf *frameBufs) {
	switch {
	case it.flush != nil:
		close(it.flush)
	case it.img != nil:
		n, err := writeFrame(filepath.Join(r.dir, it.name), it.img, buf)
		<-r.frames
		r.account(int64(n), err)
	default:
		b, err := marshalLine(it.e)
		if err != nil {
			r.account(0, err)
			return
		}
		_, err = r.f.Write(b)
		if err == nil {
			err = r.f.Sync()
		}
		r.account(int64(len(b)), err)
	}
}

// marshalLine is one line of the record, bounded (boundEntry) and ended by
// a newline. The record is not HTML: <, > and & are written as they are,
// not as six-byte escapes (a reply full of <point> tags would grow sixfold).
func marshalLine(e *Entry) ([]byte, error) {
	var line bytes.Buffer
	enc := json.NewEncoder(&line)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(boundEntry(e)); err != nil {
		return nil, err
	}
	return line.Bytes(), nil
}

func (r *recorder) account(n int64, err error) {
	r.mu.Lock()
	r.bytes += n
	if err != nil && r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
}

func writeFrame(path string, img image.Image, bufs *frameBufs) (int, error) {
	buf := &bufs.jpeg
	buf.Reset()
	data, err := fastjpeg.Encode(toRGBA(shrinkInto(img, frameLong, &bufs.pix)), frameQ)
	if err != nil {
		return 0, err
	}
	buf.Write(data)
	// Written beside its name and renamed into it: the frames server (the
	// timeline asks as soon as the step's event comes) never opens a frame
	// that is not whole.
	part := path + ".part"
	if err := os.WriteFile(part, buf.Bytes(), 0o644); err != nil {
		return 0, err
	}
	if err := os.Rename(part, path); err != nil {
		_ = os.Remove(part)
		return 0, err
	}
	return buf.Len(), nil
}

// toRGBA is img as an *image.RGBA (a copy unless it is one).
func toRGBA(img image.Image) *image.RGBA {
	if m, ok := img.(*image.RGBA); ok {
		return m
	}
	b := img.Bounds()
	m := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(m, m.Rect, img, b.Min, draw.Src)
	return m
}

// shrink scales img so its long side is at most long pixels (nearest
// neighbour: frames in the record are for people to look at, and this is
// several times cheaper than filtering).
func shrink(img image.Image, long int) image.Image {
	var out *image.RGBA
	return shrinkInto(img, long, &out)
}

// shrinkInto is shrink drawing into *into when it has the shrunk size,
// else into a new picture it leaves in *into.
func shrinkInto(img image.Image, long int, into **image.RGBA) image.Image {
	img = encoded.Pixels(img)
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= long && h <= long {
		return img
	}
	nw, nh := long, h*long/w
	if h > w {
		nw, nh = w*long/h, long
	}
	nw, nh = max(nw, 1), max(nh, 1)
	out := *into
	if out == nil || out.Rect != image.Rect(0, 0, nw, nh) {
		out = image.NewRGBA(image.Rect(0, 0, nw, nh))
		*into = out
	}
	if src, ok := img.(*image.RGBA); ok {
		nearestRGBA(out, src)
		return out
	}
	src, fast := img.(*image.RGBA)
	nsrc, nfast := img.(*image.NRGBA)
	for y := 0; y < nh; y++ {
		sy := b.Min.Y + y*h/nh
		for x := 0; x < nw; x++ {
			sx := b.Min.X + x*w/nw
			o := out.PixOffset(x, y)
			switch {
			case fast:
				i := src.PixOffset(sx, sy)
				copy(out.Pix[o:o+4], src.Pix[i:i+4])
			case nfast:
				i := nsrc.PixOffset(sx, sy)
				copy(out.Pix[o:o+3], nsrc.Pix[i:i+3])
				out.Pix[o+3] = 0xff
			default:
				r, g, bb, a := img.At(sx, sy).RGBA()
				out.Pix[o], out.Pix[o+1], out.Pix[o+2], out.Pix[o+3] = uint8(r>>8), uint8(g>>8), uint8(bb>>8), uint8(a>>8)
			}
		}
	}
	return out
}

// nearestRGBA fills out with src's nearest pixels, as shrink picks them: a
// row's source offsets found once, each pixel copied as one word.
func nearestRGBA(out, src *image.RGBA) {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	nw, nh := out.Rect.Dx(), out.Rect.Dy()
	offs := make([]int, nw)
	for x := range offs {
		offs[x] = (b.Min.X + x*w/nw - src.Rect.Min.X) * 4
	}
	for y := range nh {
		sy := b.Min.Y + y*h/nh
		line := src.Pix[(sy-src.Rect.Min.Y)*src.Stride:]
		o := out.Pix[y*out.Stride : y*out.Stride+nw*4]
		for x, off := range offs {
			binary.LittleEndian.PutUint32(o[x*4:], binary.LittleEndian.Uint32(line[off:]))
		}
	}
}

// ErrNoRecord means the directory holds no run record.
var ErrNoRecord = errors.New("engine: no run record")

// ErrDamagedRecord means the directory holds a run record whose start line
// (the run's id, goal, device and settings) cannot be read: what else could
// be read is returned with it, and Resume can continue from it once the
// goal and the device are given again (record_repair.go).
var ErrDamagedRecord = errors.New("engine: damaged run record")

// ErrEnded means the recorded run already ended; there is nothing to resume.
var ErrEnded = errors.New("engine: the recorded run has ended")

// RecordRead is what reading a record found: every line that could be
// read, and where the damage was.
type RecordRead struct {
	Entries []Entry
	// Good is the byte offset after the last complete line: a resumed run
	// cuts a torn tail there before appending.
	Good int64
	// Damaged are the numbers (from 1) of complete lines that could not be
	// read; they were skipped.
	Damaged []int
	// Torn: the last line was cut short (a crash while writing it).
	Torn bool
}

// Started reports whether the record begins with its start line (the goal,
// the settings), which resuming needs.
func (r RecordRead) Started() bool { return len(r.Entries) > 0 && r.Entries[0].Kind == recStart }

// maxRecordLine bounds one line of a record (a frame-less entry is a few
// KiB; a model reply is cut to maxRawBytes): a longer one is damage, and
// is skipped without holding it in memory.
const maxRecordLine = 4 << 20

// ReadRecordAll reads a run's record line by line. A damaged line (bad
// bytes, a line that is not an entry, one past maxRecordLine) is skipped
// and counted, and reading goes on: one bad byte must not hide the rest of
// the run. It fails only when the file cannot be read at all.
func ReadRecordAll(dir string) (RecordRead, error) {
	f, err := os.Open(filepath.Join(dir, recordFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return RecordRead{}, fmt.Errorf("%w in %s", ErrNoRecord, dir)
		}
		return RecordRead{}, err
	}
	defer f.Close()
	var out RecordRead
	var off int64
	br := bufio.NewReaderSize(f, 64<<10)
	for n := 1; ; n++ {
		line, long, err := readLine(br)
		off += long
		if errors.Is(err, io.EOF) {
			out.Torn = long > 0
			break
		}
		if err != nil {
			return RecordRead{}, err
		}
		out.Good = off
		var e Entry
		if line == nil || json.Unmarshal(line, &e) != nil || e.Kind == "" {
			out.Damaged = append(out.Damaged, n)
			continue
		}
		out.Entries = append(out.Entries, e)
	}
	return out, nil
}

// readLine returns the next newline-ended line and its length in bytes. A
// line longer than maxRecordLine is consumed but returned as nil. At the
// end it returns io.EOF with the length of an unended last line.
func readLine(br *bufio.Reader) ([]byte, int64, error) {
	var buf []byte
	var n int64
	over := false
	for {
		part, err := br.ReadSlice('\n')
		n += int64(len(part))
		if !over && n > maxRecordLine {
			over, buf = true, nil
		}
		if !over {
			buf = append(buf, part...)
		}
		switch {
		case err == nil && over:
			return nil, n, nil
		case err == nil:
			return buf, n, nil
		case !errors.Is(err, bufio.ErrBufferFull):
			return nil, n, err
		}
	}
}

// ReadRecord reads a run's record: the entries that could be read (a
// damaged line is skipped, see ReadRecordAll) and the byte offset after
// the last complete line, so a resumed run can cut a torn tail before
// appending. A record without a complete line is ErrNoRecord; one whose
// start line cannot be read is ErrDamagedRecord, returned with the entries
// that could be.
func ReadRecord(dir string) ([]Entry, int64, error) {
	rr, err := ReadRecordAll(dir)
	if err != nil {
		return nil, 0, err
	}
	switch {
	case rr.Started():
		return rr.Entries, rr.Good, nil
	case len(rr.Entries) == 0 && len(rr.Damaged) == 0:
		// Nothing, or a first line cut short as it was written: the run
		// died before its record began.
		return nil, 0, fmt.Errorf("%w in %s", ErrNoRecord, dir)
	}
	what := "is not the run's start"
	if (len(rr.Damaged) > 0 && rr.Damaged[0] == 1) || len(rr.Entries) == 0 {
		what = "cannot be read"
	}
	return rr.Entries, rr.Good, fmt.Errorf("%w in %s: its first line (the run's goal, device and settings) %s; %d other lines could be read",
		ErrDamagedRecord, dir, what, len(rr.Entries))
}
