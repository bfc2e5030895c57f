package backend

import (
	"context"
	"fmt"
	"image"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"tandem/engine"
	"tandem/internal/cputime"
	"tandem/internal/modeltest"
	"tandem/mirror"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// The figures of issue 28, "several phones at once": four virtual phones
// behind one real adb server, four runs at once with a scripted model that
// answers at once, and four live mirrors watched through the backend's
// desks and the mirror server as the window's tiles watch them, in one
// process, against one phone alone in the same benchmark. Run without
// -race:
//
//	go test -run x -bench BenchmarkFourPhones -benchtime 3x -count 3 ./backend/
//
// Each phone has a screen of its own size, its marker: every frame a tile
// receives must carry its own phone's size in the mirror's header, and
// every H.264 stream its own picture aspect in its sequence parameter set.

// phoneSizes are the four phones' screens: each its marker, distinct in
// the mirror's header and in the stream's picture's aspect too (288, 256,
// 320 and 304 wide once scaled to a 270x600 tile's 640 high), and on average
// as large as the first, the one that runs alone.
var phoneSizes = []image.Point{{1080, 2400}, {960, 2400}, {1200, 2400}, {1140, 2400}}

// heapFigure is the live heap in MB, all and the virtual phones' share.
type heapFigure struct{ all, phones float64 }

// benchSteps is each run's steps (taps on +1), as BenchmarkStepOverhead.
const benchSteps = 20

// phonesRig is a backend with four virtual phones and a scripted model.
type phonesRig struct {
	b      *Backend
	phones []*vphone.Phone
	serial []string
	plus   []string // the +1 button of each phone, as the tools dialect's 0–1000 arguments
	tiles  []*tile

	mu    sync.Mutex
	calls map[string]int // the model's calls per goal
	heap  func()         // when set, called once at the middle of a round
	half  int            // the calls of a round at its middle
	total int            // the calls of this round so far
}

func newPhonesRig(b *testing.B) *phonesRig {
	b.Helper()
	adb, port := vphonetest.StartServer(b)
	b.Setenv("ADB_LOCAL_TRANSPORT_MAX_PORT", "0")
	r := &phonesRig{calls: map[string]int{}}
	for _, sz := range phoneSizes {
		p, err := vphone.New(vphone.WithSize(sz.X, sz.Y), vphone.WithAnimation(2500*time.Millisecond))
		if err != nil {
			b.Fatal(err)
		}
		if err := p.Listen("127.0.0.1:0"); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { p.Close() })
		env := vphonetest.Env{ADB: adb, Port: port, Serial: p.Addr(), Address: p.Addr()}
		if err := vphonetest.Connect(context.Background(), env); err != nil {
			b.Fatal(err)
		}
		if err := p.Launch(vphone.PkgCounter); err != nil {
			b.Fatal(err)
		}
		box, _ := p.Bounds("plus")
		c := box.Min.Add(box.Max).Div(2)
		r.phones, r.serial = append(r.phones, p), append(r.serial, env.Serial)
		r.plus = append(r.plus, fmt.Sprintf(`{"x":%d,"y":%d}`, c.X*1000/sz.X, c.Y*1000/sz.Y))
	}
	r.b = New(Config{ConfigDir: b.TempDir(), DataDir: b.TempDir(), KeyFile: true, ADB: "127.0.0.1:" + strconv.Itoa(port)})
	b.Cleanup(r.b.Shutdown)
	if err := r.b.Begin(context.Background(), NotifierFunc(func(string, any) {})); err != nil {
		b.Fatal(err)
	}
	srv := modeltest.NewFunc(b, r.reply)
	if _, err := r.b.SaveProfile(Profile{Name: "scripted", BaseURL: srv.URL, Model: "scripted", Dialect: "tools", Variant: "rel1000"}, ""); err != nil {
		b.Fatal(err)
	}
	return r
}

// reply is the scripted model: tap +1 benchSteps times, then finish. The
// goal names the phone and the round ("[phone 2 round 0005]").
func (r *phonesRig) reply(req modeltest.Request) modeltest.Reply {
	text := req.Text()
	i := strings.Index(text, "[phone ")
	if i < 0 {
		return modeltest.Reply{Status: 400, Message: "no phone in the goal"}
	}
	goal := text[i : i+len("[phone 0 round 0000]")]
	phone, _ := strconv.Atoi(goal[len("[phone "):][:1])
	r.mu.Lock()
	r.calls[goal]++
	n := r.calls[goal]
	r.total++
	heap := r.heap
	if heap != nil && r.total == r.half {
		r.heap = nil
	} else {
		heap = nil
	}
	r.mu.Unlock()
	if heap != nil {
		heap()
	}
	if n > benchSteps {
		return finishReply()
	}
	return tapReply(r.plus[phone])
}

// liveHeapMB is the live heap after a collection, all of it and the
// virtual phones' share: what was allocated under tandem/vphone, read from
// the heap profile's samples scaled as pprof scales them. A real phone
// keeps its screen, fonts and encoder in its own memory, not Tandem's.
func liveHeapMB() (all, phones float64) {
	runtime.GC()
	runtime.GC() // the profile is of the last completed cycle
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	n, _ := runtime.MemProfile(nil, false)
	recs := make([]runtime.MemProfileRecord, n+64)
	n, _ = runtime.MemProfile(recs, false)
	rate := float64(runtime.MemProfileRate)
	for _, rec := range recs[:n] {
		if rec.InUseObjects() == 0 || !underVphone(rec.Stack()) {
			continue
		}
		size := float64(rec.InUseBytes()) / float64(rec.InUseObjects())
		phones += float64(rec.InUseBytes()) / (1 - math.Exp(-size/rate))
	}
	return float64(ms.HeapAlloc) / (1 << 20), phones / (1 << 20)
}

// underVphone reports whether a stack ran through the virtual phone.
func underVphone(pcs []uintptr) bool {
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, "tandem/vphone") {
			return true
		}
		if !more {
			return false
		}
	}
}

// round runs benchSteps steps on each of the first n phones at once and
// returns each run's framework time per step (wall time less the model
// calls' own time, over its steps, in ms) and, of it, the stability wait's;
// heapMB, when not nil, gets the live heap at the round's middle.
func (r *phonesRig) round(b *testing.B, n, round int, heapMB *heapFigure) (per, wait []float64) {
	b.Helper()
	r.mu.Lock()
	r.total, r.half = 0, n*benchSteps/2
	r.heap = nil
	if heapMB != nil {
		r.heap = func() { heapMB.all, heapMB.phones = liveHeapMB() }
	}
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	per, wait = make([]float64, n), make([]float64, n)
	var wg sync.WaitGroup
	for i := range n {
		goal := fmt.Sprintf("[phone %d round %04d] tap +1 until told", i, round)
		wg.Go(func() {
			t0 := time.Now()
			// No video: the rig measures the mirror paths it names (a run's
			// video would open a stream on a phone nobody watches).
			snap, err := r.b.StartRun(ctx, r.serial[i], goal, RunChoice{NoVideo: true})
			if err != nil {
				b.Error(err)
				return
			}
			run, _ := r.b.Run(snap.ID, ByWindow())
			res, err := run.Wait(ctx)
			wall := time.Since(t0)
			if err != nil || res.State != engine.Done || res.Steps != benchSteps {
				b.Errorf("phone %d: %+v %v", i, res, err)
				return
			}
			ents, _, err := engine.ReadRecord(run.Dir())
			if err != nil {
				b.Error(err)
				return
			}
			var model, stable time.Duration
			for _, e := range ents {
				if e.Kind == engine.EntryPlan {
					model += time.Duration(e.Ms) * time.Millisecond
				}
				if e.Kind == engine.EntryStable {
					stable += time.Duration(e.Ms) * time.Millisecond
				}
			}
			per[i] = float64((wall - model).Microseconds()) / 1000 / benchSteps
			wait[i] = float64(stable.Microseconds()) / 1000 / benchSteps
		})
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
	return per, wait
}

// fps animates the first n phones at once and returns each tile's frames
// per second over 1.5 s of animation.
func (r *phonesRig) fps(b *testing.B, n int) []float64 {
	b.Helper()
	for i := range n {
		if err := r.phones[i].Launch(vphone.PkgAnim); err != nil {
			b.Fatal(err)
		}
	}
	for i := range n {
		box, _ := r.phones[i].Bounds("start")
		c := box.Min.Add(box.Max).Div(2)
		r.phones[i].Tap(c.X, c.Y)
	}
	time.Sleep(200 * time.Millisecond) // the animations under way (measured, not waited for)
	before := make([]int64, n)
	for i := range n {
		before[i] = r.tiles[i].frames.Load()
	}
	t0 := time.Now()
	time.Sleep(1500 * time.Millisecond) // the window the frames are counted in
	el := time.Since(t0).Seconds()
	out := make([]float64, n)
	for i := range n {
		out[i] = float64(r.tiles[i].frames.Load()-before[i]) / el
	}
	for i := range n { // back to the counter, still, for the next round
		for r.phones[i].State().Animating {
			time.Sleep(20 * time.Millisecond) // the animation's end, as the phone reports it
		}
		if err := r.phones[i].Launch(vphone.PkgCounter); err != nil {
			b.Fatal(err)
		}
	}
	return out
}

// BenchmarkFourPhones: four phones, four runs and four tiles at once,
// against one phone, one run and one tile. ms/step-1 and ms/step-4:
// framework time per step (median over runs and iterations; the model
// answers at once and its calls' own time is left out, as in
// BenchmarkStepOverhead); step-ratio: the second over the first;
// wait-ms/step-1 and -4: of which the stability wait; fps-1 and
// fps-4: frames per second a tile receives while its phone animates (for
// four, the slowest of the four at once); mb/extra-device: the live heap at
// the middle of a round of four less that of a round of one, over three,
// without the virtual phones' own (process-mb/extra-device: with it);
// frames-checked: frames the tiles received, each from its own phone (any
// other fails the benchmark).
func BenchmarkFourPhones(b *testing.B) {
	r := newPhonesRig(b)
	var step1, step4, wait1, wait4, fps1, fps4, cpu1, cpu4 []float64
	var heap1, heap4 heapFigure
	round := 0
	for _, n := range []int{1, 4} {
		r.watch(b, n)
		for i := 0; i < b.N; i++ {
			round++
			var heap *heapFigure
			if i == b.N-1 {
				heap = map[int]*heapFigure{1: &heap1, 4: &heap4}[n]
			}
			c0 := cputime.Self()
			per, wait := r.round(b, n, round, heap)
			// The process's CPU a step of one device (the phones, the
			// model server and the viewers live in it too).
			cpu := float64((cputime.Self() - c0).Microseconds()) / 1000 / float64(n*benchSteps)
			f := r.fps(b, n)
			if n == 1 {
				step1, wait1, fps1, cpu1 = append(step1, per...), append(wait1, wait...), append(fps1, f...), append(cpu1, cpu)
			} else {
				step4, wait4, fps4, cpu4 = append(step4, per...), append(wait4, wait...), append(fps4, slices.Min(f)), append(cpu4, cpu)
			}
		}
	}
	var frames int64
	for _, t := range r.tiles {
		frames += t.frames.Load()
		t.close(b)
	}
	b.ReportMetric(median(step1), "ms/step-1")
	b.ReportMetric(median(step4), "ms/step-4")
	b.ReportMetric(median(step4)/median(step1), "step-ratio")
	b.ReportMetric(median(cpu1), "cpu-ms/step-1")
	b.ReportMetric(median(cpu4), "cpu-ms/step-4")
	b.ReportMetric(median(wait1), "wait-ms/step-1")
	b.ReportMetric(median(wait4), "wait-ms/step-4")
	b.ReportMetric(median(fps1), "fps-1")
	b.ReportMetric(median(fps4), "fps-4")
	b.ReportMetric((heap4.all-heap4.phones-heap1.all+heap1.phones)/3, "mb/extra-device")
	b.ReportMetric((heap4.all-heap1.all)/3, "process-mb/extra-device")
	b.ReportMetric(float64(frames), "frames-checked")
}

// watch opens tiles for the first n phones (those already open stay).
func (r *phonesRig) watch(b *testing.B, n int) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := len(r.tiles); i < n; i++ {
		url, err := r.b.Watch(ctx, "tile-"+strconv.Itoa(i), r.serial[i])
		if err != nil {
			b.Fatal(err)
		}
		// A tile says the size it shows, as the window's do.
		r.tiles = append(r.tiles, openTile(b, url+"&w=270&h=600", phoneSizes[i]))
	}
	for _, t := range r.tiles { // each tile's first picture: the stream is up
		for deadline := time.Now().Add(time.Minute); t.frames.Load() == 0; {
			if time.Now().After(deadline) {
				b.Fatal("a tile got no frame")
			}
			time.Sleep(10 * time.Millisecond) // polling the reader's count
		}
	}
}

// tile is one live mirror as a tile of the window watches it, checking
// that every frame is its own phone's.
type tile struct {
	want   image.Point
	frames atomic.Int64
	mu     sync.Mutex
	wrong  []string      // frames of another phone
	sps    []image.Point // the picture sizes the stream's parameter sets gave
	done   chan struct{}
	conn   *websocket.Conn
}

func openTile(b *testing.B, url string, want image.Point) *tile {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	c.SetReadLimit(64 << 20)
	t := &tile{want: want, done: make(chan struct{}), conn: c}
	go t.read()
	return t
}

func (t *tile) read() {
	defer close(t.done)
	for {
		typ, msg, err := t.conn.Read(context.Background())
		if err != nil {
			return
		}
		if typ == websocket.MessageText {
			continue
		}
		f, err := mirror.ParseMessage(msg)
		if err != nil {
			continue
		}
		t.mu.Lock()
		if f.Width != t.want.X || f.Height != t.want.Y {
			t.wrong = append(t.wrong, fmt.Sprintf("a %dx%d frame", f.Width, f.Height))
		}
		if f.Kind == mirror.KindH264 && f.Config {
			if sz, ok := spsSize(f.Data); ok && !slices.Contains(t.sps, sz) {
				t.sps = append(t.sps, sz)
			}
		}
		t.mu.Unlock()
		if !f.Config {
			t.frames.Add(1)
		}
	}
}

// close ends the tile and fails b if it showed another phone's frame.
func (t *tile) close(b *testing.B) {
	b.Helper()
	t.conn.CloseNow()
	<-t.done
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.wrong) > 0 {
		b.Fatalf("the tile of the %dx%d phone showed %d frames of another: %v", t.want.X, t.want.Y, len(t.wrong), t.wrong[:min(5, len(t.wrong))])
	}
	// A stream is made again when its viewers' size changes (a tile whose
	// size came after its stream opened): every picture size it got must
	// be its own phone's screen scaled, nearer its aspect than any other's.
	for _, sz := range t.sps {
		if nearest := nearestAspect(sz); nearest != t.want {
			b.Fatalf("the tile of the %dx%d phone got a %v stream, the %v phone's", t.want.X, t.want.Y, sz, nearest)
		}
	}
}

// nearestAspect is the phone of phoneSizes whose screen's aspect is the
// nearest to a picture of size p.
func nearestAspect(p image.Point) image.Point {
	aspect := func(q image.Point) float64 { return float64(q.X) / float64(q.Y) }
	best := phoneSizes[0]
	for _, ph := range phoneSizes[1:] {
		if math.Abs(aspect(ph)-aspect(p)) < math.Abs(aspect(best)-aspect(p)) {
			best = ph
		}
	}
	return best
}
