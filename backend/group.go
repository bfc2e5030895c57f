package backend

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"

	"tandem/engine/action"
	"tandem/mirror"
)

// Group control (QtScrcpy's): with several tiles picked in the window, the
// person's press on one of them is made a gesture once, by the one rule,
// and lands on every picked device at the same place in the 0–1000 grid,
// each through Hand like any input of theirs: on a device no run drives it
// is done, in a run they drive it is that run's recorded act, and while an
// agent drives it takes that device's run over (as a press on its mirror
// would). Each device answers for itself.

// GroupResult is where the group's press went on one device.
type GroupResult struct {
	Device  string  `json:"device"`
	Outcome Outcome `json:"outcome,omitempty"`
	Error   string  `json:"error,omitempty"`
}

// ErrNoScreen is a device whose screen size is not known yet (no picture
// from it), so no place on it matches the press.
var ErrNoScreen = errors.New("its screen size is not known yet: wait for its picture")

// HandGroup makes p, a press on device from's mirror, a gesture and hands
// it to from and every device in others at once, scaled to each screen.
func (b *Backend) HandGroup(ctx context.Context, from string, others []string, p mirror.Press) ([]GroupResult, error) {
	act, err := p.Gesture()
	if err != nil {
		return nil, err
	}
	src := action.Size{W: p.W, H: p.H}
	ids := []string{from}
	for _, id := range others {
		if id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	out := make([]GroupResult, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		out[i].Device = id
		a := act
		if id != from {
			dst, ok := b.screenOf(ctx, id)
			if !ok {
				out[i].Error = ErrNoScreen.Error()
				continue
			}
			a = Rescale(act, src, dst)
		}
		wg.Go(func() {
			o, err := b.Hand(ctx, id, Input{Gesture: &a})
			out[i].Outcome = o
			if err != nil {
				out[i].Error = err.Error()
			}
		})
	}
	wg.Wait()
	return out, nil
}

// screenOf is a device's screen size: its newest picture's, else the
// device list's.
func (b *Backend) screenOf(ctx context.Context, id string) (action.Size, bool) {
	if f, _ := b.hub.Latest(id); f != nil && f.Width > 0 && f.Height > 0 {
		return action.Size{W: f.Width, H: f.Height}, true
	}
	list, _ := b.ListDevices(ctx)
	for _, e := range list {
		if e.ID == id && e.Screen.W > 0 && e.Screen.H > 0 {
			return e.Screen, true
		}
	}
	return action.Size{}, false
}

// Rescale moves a gesture's points from a screen of size from to the same
// place, in proportion, on a screen of size to.
func Rescale(a action.Action, from, to action.Size) action.Action {
	if from.W <= 0 || from.H <= 0 || from == to {
		return a
	}
	sx := func(v int) int { return min(to.W-1, int(math.Round(float64(v)*float64(to.W)/float64(from.W)))) }
	sy := func(v int) int { return min(to.H-1, int(math.Round(float64(v)*float64(to.H)/float64(from.H)))) }
	if a.Type.Pointed() {
		a.X, a.Y = sx(a.X), sy(a.Y)
	}
	if a.X2 != 0 || a.Y2 != 0 {
		a.X2, a.Y2 = sx(a.X2), sy(a.Y2)
	}
	return a
}
