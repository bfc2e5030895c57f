package engine

import (
	"bytes"
	"context"
	"image"
	"time"

	"tandem/internal/encoded"
)

// StabilityConfig tunes the wait for the screen to settle after an action.
//
// The seed (004) proposes 200 ms between frames, 2 stable frames and a 3 s
// cap. Measured on the virtual phone, the extra time beyond the true settle
// time is about one interval plus one capture, so the default interval is
// 100 ms: a settled screen is confirmed within ~100–250 ms instead of the
// 300–1000 ms fixed sleeps peers use, and a static screen costs one interval.
type StabilityConfig struct {
	Interval     time.Duration `json:"interval"`      // time between the starts of two captures
	StableFrames int           `json:"stable_frames"` // consecutive similar frames that count as settled (>= 2)
	Max          time.Duration `json:"max"`           // give up waiting after this long (the run goes on)
	// Threshold is the fraction of fingerprint cells that may differ between
	// two frames that still count as the same (a blinking cursor, a clock).
	Threshold float64 `json:"threshold"`
	// WaitToAsk: the model is asked only once the screen is known to be
	// settled, not on the first capture while the wait confirms it
	// (speculate.go): slower, and no call is ever cancelled.
	WaitToAsk bool `json:"wait_to_ask,omitempty"`
}

// DefaultStability is the stability wait used when a run's settings leave it zero.
var DefaultStability = StabilityConfig{Interval: 100 * time.Millisecond, StableFrames: 2,
	Max: 3 * time.Second, Threshold: 0.004}

func (c StabilityConfig) withDefaults() StabilityConfig {
	d := DefaultStability
	if c.Interval > 0 {
		d.Interval = c.Interval
	}
	if c.StableFrames >= 2 {
		d.StableFrames = c.StableFrames
	}
	if c.Max > 0 {
		d.Max = c.Max
	}
	if c.Threshold > 0 {
		d.Threshold = c.Threshold
	}
	d.WaitToAsk = c.WaitToAsk
	return d
}

// Fingerprint is a frame shrunk to a small grid of mean luminances: cheap to
// compute (it samples a sparse lattice of pixels), cheap to compare, small
// enough to keep one per step in memory.
type Fingerprint struct {
	W, H  int
	Cells []uint8
}

// cellDelta is how much a cell's mean luminance must move to count as changed.
const cellDelta = 8

// fingerprintCols is the grid's width; its height follows the aspect ratio.
const fingerprintCols = 32

// FingerprintOf computes img's fingerprint. A nil image gives the zero value.
func FingerprintOf(img image.Image) Fingerprint {
	if img == nil {
		return Fingerprint{}
	}
	img = encoded.Pixels(img)
	b := img.Bounds()
	if b.Dx() <= 0 || b.Dy() <= 0 {
		return Fingerprint{}
	}
	gw := fingerprintCols
	if b.Dx() < gw {
		gw = b.Dx()
	}
	gh := gw * b.Dy() / b.Dx()
	gh = max(1, min(gh, 4*fingerprintCols, b.Dy()))
	sum := make([]uint32, gw*gh)
	cnt := make([]uint32, gw*gh)
	// Sample about 24x24 points per cell at most (rounding the step up: a
	// phone's 34-pixel cells were read whole, 8 ms a frame, on a step's
	// critical path).
	stepX := max(1, (b.Dx()+gw*24-1)/(gw*24))
	stepY := max(1, (b.Dy()+gh*24-1)/(gh*24))
	// The cell of each sampled column, computed once rather than per pixel.
	cols := make([]int, 0, b.Dx()/stepX+1)
	for x := b.Min.X; x < b.Max.X; x += stepX {
		cols = append(cols, (x-b.Min.X)*gw/b.Dx())
	}
	var pix []uint8
	var stride int
	switch m := img.(type) {
	case *image.RGBA:
		pix, stride = m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], m.Stride
	case *image.NRGBA:
		pix, stride = m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], m.Stride
	}
	lum := luminanceFunc(img)
	lums := make([]uint32, len(cols)) // a row's samples
	runs := cellRuns(cols)
	for y := b.Min.Y; y < b.Max.Y; y += stepY {
		cy := (y - b.Min.Y) * gh / b.Dy()
		rs, rc := sum[cy*gw:(cy+1)*gw], cnt[cy*gw:(cy+1)*gw]
		if pix != nil {
			// The common case (raw and decoded PNG screenshots), without
			// a call per pixel; four samples an instruction where it can.
			line := pix[(y-b.Min.Y)*stride:][:b.Dx()*4]
			for i := lumsSIMD(lums, line, stepX); i < len(lums); i++ {
				p := line[i*stepX*4 : i*stepX*4+3 : i*stepX*4+3]
				lums[i] = (299*uint32(p[0]) + 587*uint32(p[1]) + 114*uint32(p[2])) / 1000
			}
			i := 0
			for _, r := range runs {
				var s uint32
				for _, v := range lums[i : i+r.n] {
					s += v
				}
				rs[r.cell] += s
				rc[r.cell] += uint32(r.n)
				i += r.n
			}
			continue
		}
		for i, cx := range cols {
			rs[cx] += uint32(lum(b.Min.X+i*stepX, y))
			rc[cx]++
		}
	}
	f := Fingerprint{W: gw, H: gh, Cells: make([]uint8, gw*gh)}
	for i := range sum {
		if cnt[i] > 0 {
			f.Cells[i] = uint8(sum[i] / cnt[i])
		}
	}
	return f
}

// cellRun is n sampled columns side by side in one cell of the grid.
type cellRun struct{ cell, n int }

// cellRuns groups the sampled columns' cells, in order, into runs: a
// row's samples of a cell are summed apart and added to it once.
func cellRuns(cols []int) []cellRun {
	var runs []cellRun
	for _, c := range cols {
		if len(runs) > 0 && runs[len(runs)-1].cell == c {
			runs[len(runs)-1].n++
			continue
		}
		runs = append(runs, cellRun{c, 1})
	}
	return runs
}

// luminanceFunc returns a fast per-pixel luminance reader for the common
// concrete image types, and a generic one otherwise.
func luminanceFunc(img image.Image) func(x, y int) uint8 {
	switch m := img.(type) {
	case *image.RGBA:
		return func(x, y int) uint8 {
			i := m.PixOffset(x, y)
			p := m.Pix[i : i+3 : i+3]
			return uint8((299*uint32(p[0]) + 587*uint32(p[1]) + 114*uint32(p[2])) / 1000)
		}
	case *image.NRGBA:
		return func(x, y int) uint8 {
			i := m.PixOffset(x, y)
			p := m.Pix[i : i+3 : i+3]
			return uint8((299*uint32(p[0]) + 587*uint32(p[1]) + 114*uint32(p[2])) / 1000)
		}
	case *image.YCbCr:
		return func(x, y int) uint8 { return m.Y[m.YOffset(x, y)] }
	case *image.Gray:
		return func(x, y int) uint8 { return m.Pix[m.PixOffset(x, y)] }
	}
	return func(x, y int) uint8 {
		r, g, b, _ := img.At(x, y).RGBA()
		return uint8((299*r + 587*g + 114*b) / 1000 >> 8)
	}
}

// Diff returns the fraction of cells that differ between two fingerprints
// (1 when their shapes differ, as after a rotation).
func (f Fingerprint) Diff(o Fingerprint) float64 {
	if f.W != o.W || f.H != o.H || len(f.Cells) != len(o.Cells) {
		return 1
	}
	if len(f.Cells) == 0 {
		return 0
	}
	n := 0
	for i, c := range f.Cells {
		d := int(c) - int(o.Cells[i])
		if d > cellDelta || d < -cellDelta {
			n++
		}
	}
	return float64(n) / float64(len(f.Cells))
}

// IsZero reports whether the fingerprint is empty (no frame).
func (f Fingerprint) IsZero() bool { return len(f.Cells) == 0 }

// Settled is the outcome of a stability wait.
type Settled struct {
	// Frame is the settled screen: the first frame of the final run of
	// similar frames (the later ones only confirmed it), or the newest frame
	// when the wait hit its cap.
	Frame  image.Image
	Print  Fingerprint
	Stable bool          // false when the wait hit its cap
	Waited time.Duration // from the start of the wait to the confirming frame
	Frames int           // captures taken
}

// WaitStable captures frames until StableFrames consecutive ones are
// similar, or Max passes. It never sleeps longer than needed to keep the
// capture starts Interval apart, and returns ctx's error at once when ctx
// is cancelled.
func WaitStable(ctx context.Context, shoot func(context.Context) (image.Image, error), cfg StabilityConfig) (Settled, error) {
	return waitStable(ctx, wallClock{}, shoot, cfg, waitHooks{})
}

const (
	// quickGap is the time between capture starts while the screen is
	// seen moving: one frame of a 60 Hz display, so two captures that
	// match saw the screen hold for longer than an animation's frame.
	quickGap = 17 * time.Millisecond
	// quickFor is how long after the screen is first seen moving the
	// captures follow it quickGap apart: longer than an app's transitions
	// (Android's run 200–400 ms), so a perpetual animation costs a
	// capture an interval after that, as before.
	quickFor = time.Second
)

// waitHooks is what a stability wait tells as it goes; either may be
// nil, and neither may block.
type waitHooks struct {
	// run gets the first frame of each run of similar frames, as it is
	// captured (while the screen moves and captures follow it closely,
	// only of a run seen twice), so work on the frame that may turn out to
	// be the settled one (the planner's resize and encode, the UI dump)
	// can start during the time the wait spends anyway.
	run func(image.Image)
	// candidate gets, once a wait, the first frame of a run that two
	// captures quickGap apart found still after the screen was seen
	// moving: the frame the wait will most likely settle on, an interval
	// before it confirms it (the model call can start on it meanwhile).
	candidate func(image.Image)
	// unchanged, when not nil, tells for less than a capture whether the
	// screen is still exactly the newest frame captured (a phone
	// checksums its capture where it is made: device.Confirmer); false
	// when it cannot tell, and the wait then captures.
	unchanged func(context.Context, image.Image) bool
}

// waitStable is WaitStable with hooks.
//
// Captures start Interval apart while nothing has moved. Once two differ,
// the screen is moving: for quickFor they follow it quickGap apart, and
// a run of similar frames is settled only when its last capture began an
// interval (StableFrames−1 of them) after its first, each frame compared
// with the run's first, so a wait that follows a moving screen closely
// settles no sooner and on no less evidence than one that does not. What
// it gains is the candidate, a frame the settle is all but sure of, about
// a quickGap after the screen stopped rather than an interval after.
func waitStable(ctx context.Context, clock Clock, shoot func(context.Context) (image.Image, error), cfg StabilityConfig, h waitHooks) (Settled, error) {
	cfg = cfg.withDefaults()
	start := clock.Now()
	img, err := shoot(ctx)
	if err != nil {
		return Settled{}, err
	}
	if h.run != nil {
		h.run(img)
	}
	w := runWatch{cfg: cfg, h: h, first: img, firstPrint: FingerprintOf(img), firstAt: start, run: 1, offered: true, lastAt: start}
	res := Settled{Frame: img, Print: w.firstPrint, Frames: 1}
	last := start
	for !w.settled(last) {
		if clock.Now().Sub(start) >= cfg.Max {
			res.Waited = clock.Now().Sub(start)
			return res, nil
		}
		if err := clock.Sleep(ctx, w.next(last).Sub(clock.Now())); err != nil {
			return Settled{}, err
		}
		last = clock.Now()
		img, err := w.capture(ctx, shoot, res.Frame, last)
		if err != nil {
			return Settled{}, err
		}
		fp := res.Print
		if !samePixels(img, res.Frame) {
			fp = FingerprintOf(img)
		}
		res.Frames++
		res.Frame, res.Print = img, fp
		w.add(img, fp, last)
	}
	res.Frame, res.Print = w.first, w.firstPrint
	res.Stable = true
	res.Waited = clock.Now().Sub(start)
	return res, nil
}

// capture is the wait's next frame, beginning at t: newest again when the
// screen is still exactly it (the unchanged hook), else a capture. While
// captures follow a moving screen closely it is asked only to confirm a
// run seen twice: asked of a screen still moving, it would cost a
// checksum and then the capture all the same.
func (w *runWatch) capture(ctx context.Context, shoot func(context.Context) (image.Image, error), newest image.Image, t time.Time) (image.Image, error) {
	if w.h.unchanged != nil && (!w.quick(t) || w.run >= 2) && w.h.unchanged(ctx, newest) {
		return newest, nil
	}
	return shoot(ctx)
}

// runWatch follows the newest run of similar frames of a stability wait.
type runWatch struct {
	cfg        StabilityConfig
	h          waitHooks
	first      image.Image // the run's first frame
	firstPrint Fingerprint
	firstAt    time.Time // when its capture began
	run        int       // frames in the run
	moving     time.Time // when the screen was first seen moving; zero before
	told       bool      // the candidate was told
	offered    bool      // the run's first frame went to the run hook
	lastAt     time.Time // when the newest capture began
}

// settled reports whether the run, whose newest capture began at last, is
// the settled screen.
func (w *runWatch) settled(last time.Time) bool {
	return w.run >= w.cfg.StableFrames && last.Sub(w.firstAt) >= time.Duration(w.cfg.StableFrames-1)*w.cfg.Interval
}

// quick reports whether captures follow the screen closely at t.
func (w *runWatch) quick(t time.Time) bool {
	return !w.moving.IsZero() && t.Sub(w.moving) < quickFor
}

// next is when the capture after one that began at last begins: an
// interval later, or a quickGap while the screen moves; a run seen twice
// is next captured when its confirmation is due.
func (w *runWatch) next(last time.Time) time.Time {
	if w.run == 1 {
		if w.quick(last) {
			return last.Add(quickGap)
		}
		return last.Add(w.cfg.Interval)
	}
	due := w.firstAt.Add(time.Duration(w.run-1) * w.cfg.Interval)
	if q := last.Add(quickGap); due.Before(q) {
		return q
	}
	return due
}

// add takes a capture that began at at.
func (w *runWatch) add(img image.Image, fp Fingerprint, at time.Time) {
	gap := at.Sub(w.lastAt)
	w.lastAt = at
	if fp.Diff(w.firstPrint) <= w.cfg.Threshold {
		w.run++
		if w.run != 2 {
			return
		}
		if !w.offered && w.h.run != nil {
			w.h.run(w.first)
		}
		w.offered = true
		// A run settled by this very capture (a capture slower than the
		// interval, as a real phone's) needs no candidate.
		if w.quick(w.firstAt) && !w.told && w.h.candidate != nil && !w.settled(at) {
			w.told = true
			w.h.candidate(w.first)
		}
		return
	}
	if w.moving.IsZero() {
		w.moving = at
	}
	w.first, w.firstPrint, w.firstAt, w.run = img, fp, at, 1
	// While captures follow a moving screen closely, a frame is offered
	// once a second capture found it still: the reads and the encode
	// started with each frame of an animation would only be cancelled.
	// Captures that take an interval or more (a real phone's) offer each
	// new run at once, as the reads then take as long as they.
	w.offered = !w.quick(at) || gap >= w.cfg.Interval
	if w.offered && w.h.run != nil {
		w.h.run(img)
	}
}

// samePixels reports whether a and b are the same frame byte for byte (an
// RGBA or NRGBA one, as a phone's PNG decodes): a settled screen usually
// is, and comparing the bytes costs a fraction of a fingerprint.
func samePixels(a, b image.Image) bool {
	a, b = encoded.Pixels(a), encoded.Pixels(b)
	switch x := a.(type) {
	case *image.RGBA:
		y, ok := b.(*image.RGBA)
		return ok && x.Rect == y.Rect && x.Stride == y.Stride && bytes.Equal(x.Pix, y.Pix)
	case *image.NRGBA:
		y, ok := b.(*image.NRGBA)
		return ok && x.Rect == y.Rect && x.Stride == y.Stride && bytes.Equal(x.Pix, y.Pix)
	}
	return false
}
