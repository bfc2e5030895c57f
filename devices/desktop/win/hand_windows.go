//go:build windows

package win

import (
	"context"
	"slices"
	"sync"
	"time"

	"golang.org/x/sys/windows"

	"tandem/devices/desktop"
	"tandem/engine/action"
)

// The person's acts while they drive, as on X11: the hooks' events that
// were not injected, from the takeover until Resume, put together by
// desktop.HandActs. The hooks are called as the input happens, so no event
// is judged late: a plain timer ends a pause.

// handItem is what the hand loop is given, in order.
type handItem struct {
	ev    desktop.HandEvent
	epoch uint64 // the agent's arm when the hook saw ev
	flush chan []action.Action
	reset bool
}

// handQueue is an unbounded queue: a hook never waits.
type handQueue struct {
	mu    sync.Mutex
	items []handItem
	wake  chan struct{}
}

func (q *handQueue) push(it handItem) {
	q.mu.Lock()
	q.items = append(q.items, it)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *handQueue) take() []handItem {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = nil
	return items
}

// PersonActs delivers, in order, what the person does with their own mouse
// and keyboard on this monitor while they drive, from the takeover until
// Resume (see the X11 driver's PersonActs). Injected input (the agent's, any
// driver's) is never one of them, nor input on Tandem's own windows.
func (d *Driver) PersonActs() <-chan action.Action { return d.acts }

// FlushActs ends what the person was doing and returns every act they
// finished that PersonActs has not delivered. Call it as they hand back,
// before Resume, from the goroutine that reads PersonActs.
func (d *Driver) FlushActs(ctx context.Context) ([]action.Action, error) {
	reply := make(chan []action.Action, 1)
	d.hand.push(handItem{flush: reply})
	select {
	case acts := <-reply:
		return acts, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-d.quit:
		return nil, desktop.ErrClosed
	}
}

// handLoop judges the person's events and assembles their acts.
func (d *Driver) handLoop() {
	defer d.wg.Done()
	acts := desktop.NewHandActs(d.info.Screen)
	var out []action.Action
	pause := time.NewTimer(time.Hour)
	pause.Stop()
	for {
		var send chan<- action.Action
		var next action.Action
		if len(out) > 0 {
			send, next = d.acts, out[0]
		}
		select {
		case <-d.quit:
			return
		case send <- next:
			out = out[1:]
		case <-pause.C:
			out = append(out, acts.Settle()...)
		case <-d.hand.wake:
			for _, it := range d.hand.take() {
				switch {
				case it.flush != nil:
					it.flush <- append(out, acts.Settle()...)
					out = nil
				case it.reset:
					acts, out = desktop.NewHandActs(d.info.Screen), nil
				case d.personEvent(it.ev, it.epoch):
					out = append(out, acts.Feed(d.onMonitor(it.ev))...)
					if wait := acts.Pending(); wait > 0 {
						pause.Reset(wait)
					}
				}
			}
		}
	}
}

// personEvent judges one of the person's events: in the agent's action a
// press is a takeover (the pointer's moves are judged by where it is, see
// personMouse), unless the hook saw it before the action's arm (queued while
// the person drove, judged after Resume); it reports whether the person
// drives, so it is theirs.
func (d *Driver) personEvent(e desktop.HandEvent, epoch uint64) bool {
	d.inj.mu.Lock()
	defer d.inj.mu.Unlock()
	if d.inj.armed && epoch == d.inj.epoch.Load() && e.Kind != desktop.HandMove && e.Kind != desktop.HandUp && e.Kind != desktop.HandKeyUp {
		d.tookLocked()
	}
	return d.inj.driving
}

// onMonitor moves e to this monitor's pixels and says whether it is off
// the monitor or on Tandem's own windows.
func (d *Driver) onMonitor(e desktop.HandEvent) desktop.HandEvent {
	screen := e.P
	e.Off = !screen.In(d.bounds)
	e.P = screen.Sub(d.bounds.Min)
	switch e.Kind {
	case desktop.HandDown, desktop.HandWheel:
		e.Own = !e.Off && d.excluded(screen) != nil
	case desktop.HandKey:
		e.Own, e.Off = d.foreground(e.Off)
	case desktop.HandMove, desktop.HandUp, desktop.HandKeyUp: // judged where their press began
	}
	return e
}

// foreground says where typing goes: to one of Tandem's own windows (own),
// or to a window off this monitor (off); with none in front, the pointer
// says (pointerOff).
func (d *Driver) foreground(pointerOff bool) (own, off bool) {
	fg, _, _ := procGetForegroundWnd.Call()
	if fg == 0 {
		return false, pointerOff
	}
	var pid uint32
	_, _, _ = procGetWindowThreadPID.Call(fg, uintptr(unsafePointer(&pid)))
	if r, ok := windowRect(windows.HWND(fg)); ok {
		off = !r.Overlaps(d.bounds)
	}
	return slices.Contains(d.opts.ExcludePIDs, int(pid)), off
}
