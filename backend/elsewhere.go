package backend

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"tandem/devices"
	"tandem/engine"
)

// A device another Tandem drives (devices/lease.go) is shown live in this
// one: who drives it, and, when it is a run, the run as its record says,
// read again whenever the record grows. A lock tells no one when it is
// taken and a file no one when it grows across processes, so the watch
// looks every elsewhereEvery while a device is held elsewhere, and not at
// all while none is.

// ElsewhereRun is a device driven by another Tandem: who, and the run it
// drives as its record says so far (no Run when the holder is no run, or
// its record is not in this Tandem's data folder). Gone: the device is
// no longer held elsewhere, forget it.
type ElsewhereRun struct {
	Device string           `json:"device"`
	Holder devices.Holder   `json:"holder"`
	Run    *engine.Snapshot `json:"run,omitempty"`
	Gone   bool             `json:"gone,omitempty"`
}

const elsewhereEvery = time.Second

type elsewhere struct {
	dataDir string
	wake    chan struct{}

	mu    sync.Mutex
	held  map[string]devices.Holder // device -> who drives it elsewhere
	sizes map[string]int64          // device -> its run's record size when last read
	views map[string]ElsewhereRun
}

func newElsewhere(dataDir string) *elsewhere {
	return &elsewhere{dataDir: dataDir, wake: make(chan struct{}, 1),
		held: map[string]devices.Holder{}, sizes: map[string]int64{}, views: map[string]ElsewhereRun{}}
}

// see takes a new device list: who holds what elsewhere now.
func (w *elsewhere) see(list []DeviceEntry) {
	w.mu.Lock()
	held := map[string]devices.Holder{}
	for _, e := range list {
		if e.HeldBy != nil {
			held[e.ID] = *e.HeldBy
		}
	}
	w.held = held
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Views are the devices driven elsewhere now, as last read.
func (w *elsewhere) Views() []ElsewhereRun {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]ElsewhereRun, 0, len(w.views))
	for _, v := range w.views {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b ElsewhereRun) int { return strings.Compare(a.Device, b.Device) })
	return out
}

// loop reads the held devices' records and tells n what changed
// ("elsewhere", an ElsewhereRun), until ctx ends.
func (w *elsewhere) loop(ctx context.Context, n Notifier) {
	t := time.NewTicker(elsewhereEvery)
	defer t.Stop()
	for {
		for _, v := range w.look() {
			n.Notify("elsewhere", v)
		}
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		case <-t.C:
		}
	}
}

// look reads what changed since the last look.
func (w *elsewhere) look() []ElsewhereRun {
	w.mu.Lock()
	held := maps.Clone(w.held)
	w.mu.Unlock()
	var news []ElsewhereRun
	for id, v := range w.gone(held) {
		news = append(news, ElsewhereRun{Device: id, Holder: v.Holder, Gone: true})
	}
	for id, h := range held {
		if v, ok := w.read(id, h); ok {
			news = append(news, v)
		}
	}
	return news
}

// gone forgets the devices no longer held elsewhere.
func (w *elsewhere) gone(held map[string]devices.Holder) map[string]ElsewhereRun {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]ElsewhereRun{}
	for id, v := range w.views {
		if h, ok := held[id]; !ok || h.PID != v.Holder.PID || h.Run != v.Holder.Run {
			out[id] = v
			delete(w.views, id)
			delete(w.sizes, id)
		}
	}
	return out
}

// read is device id's view when its holder or its record changed.
func (w *elsewhere) read(id string, h devices.Holder) (ElsewhereRun, bool) {
	size := int64(-1)
	var dir string
	if h.Run != "" && filepath.Base(h.Run) == h.Run {
		dir = filepath.Join(w.dataDir, h.Run)
		if fi, err := os.Stat(engine.RecordPath(dir)); err == nil {
			size = fi.Size()
		}
	}
	w.mu.Lock()
	last, seen := w.sizes[id]
	_, shown := w.views[id]
	w.mu.Unlock()
	if shown && seen && last == size {
		return ElsewhereRun{}, false
	}
	v := ElsewhereRun{Device: id, Holder: h}
	if size >= 0 {
		if rr, err := engine.ReadRecordAll(dir); err == nil && rr.Started() {
			snap := engine.SnapshotOf(h.Run, rr.Entries)
			if snap.Device == "" {
				snap.Device = id
			}
			v.Run = &snap
		}
	}
	w.mu.Lock()
	w.sizes[id], w.views[id] = size, v
	w.mu.Unlock()
	return v, true
}

// Elsewhere are the devices another Tandem drives now, each with its run
// as far as its record says (a window that opens asks; then "elsewhere"
// news keeps it current).
func (b *Backend) Elsewhere() []ElsewhereRun { return b.away.Views() }
