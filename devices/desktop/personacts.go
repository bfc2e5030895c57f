package desktop

import (
	"context"
	"fmt"
	"image"
	"slices"
	"sync"
	"time"

	"github.com/jezek/xgb/xproto"

	"tandem/engine/action"
)

// The person's acts while they drive: the stream's events that were not
// Tandem's, from the takeover until Resume, put together by HandActs and
// handed out in order on PersonActs (or by FlushActs).

// handItem is what the hand loop is given, in the stream's order: one of
// the person's events, a pause to settle on, a flush, or the end of their
// turn.
type handItem struct {
	ev     HandEvent
	settle bool
	fed    uint64 // settle: the events fed when the pause began
	flush  chan []action.Action
	reset  bool
}

// handQueue is an unbounded queue: the stream never waits for the hand loop.
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
// and keyboard on this display while they drive: from the takeover
// (Takeover fired) until Resume. Each is a canonical action in this
// display's screenshot pixels: tap, double_tap, long_press, drag,
// right_click, scroll, type (characters typed in a row), key (a named key),
// hotkey. Tandem's own input, on any display, is never one of them, nor is
// input on Tandem's own windows. An act is delivered once, here or by
// FlushActs. Without the X server's RECORD extension nothing is delivered.
func (d *Driver) PersonActs() <-chan action.Action { return d.acts }

// FlushActs ends what the person was doing (the text they were typing, a
// click that might have become a double click) and returns, in order, every
// act they finished before the call that PersonActs has not delivered.
// Call it as they hand back, before Resume, from the goroutine that reads
// PersonActs: then every act is on the record before the model is told.
func (d *Driver) FlushActs(ctx context.Context) ([]action.Action, error) {
	reply := make(chan []action.Action, 1)
	s := d.inj.s
	s.mu.Lock()
	if s.rec == nil {
		s.mu.Unlock()
		return nil, nil
	}
	s.markLocked(func() { d.hand.push(handItem{flush: reply}) })
	s.mu.Unlock()
	select {
	case acts := <-reply:
		return acts, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-d.quit:
		return nil, ErrClosed
	}
}

// handEventLocked is ev as HandEvent, in root coordinates still (the hand
// loop moves them to the display); s.mu is held.
func (d *Driver) handEventLocked(ev xevent) HandEvent {
	e := HandEvent{P: ev.root, Ms: ev.ms}
	wheel := map[byte]string{4: "up", 5: "down", 6: "left", 7: "right"}
	button := map[byte]string{1: "left", 2: "middle", 3: "right"}
	switch ev.typ {
	case xproto.MotionNotify:
		e.Kind = HandMove
	case xproto.ButtonPress, xproto.ButtonRelease:
		switch {
		case wheel[ev.detail] != "" && ev.typ == xproto.ButtonPress:
			e.Kind, e.Wheel = HandWheel, wheel[ev.detail]
		case button[ev.detail] != "" && ev.typ == xproto.ButtonPress:
			e.Kind, e.Button = HandDown, button[ev.detail]
		case button[ev.detail] != "":
			e.Kind, e.Button = HandUp, button[ev.detail]
		}
	case xproto.KeyPress, xproto.KeyRelease:
		e.Kind = HandKey
		if ev.typ == xproto.KeyRelease {
			e.Kind = HandKeyUp
		}
		if d.stopKeyLocked(xproto.Keycode(ev.detail)) {
			e.Kind = 0 // the stop hotkey is no act
		} else if k, err := d.inj.s.keymapLocked(); err == nil {
			e.Key, e.Text, e.Mods = k.personKey(xproto.Keycode(ev.detail), ev.state)
		}
	}
	return e
}

// handLoop assembles the person's acts and hands them out.
func (d *Driver) handLoop() {
	defer d.wg.Done()
	acts := NewHandActs(d.info.Screen)
	var out []action.Action
	var fed uint64
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
			// The person paused: once the stream is past this moment, what
			// was held back is done (unless more came meanwhile).
			n := fed
			d.inj.s.mu.Lock()
			d.inj.s.markLocked(func() { d.hand.push(handItem{settle: true, fed: n}) })
			d.inj.s.mu.Unlock()
		case <-d.hand.wake:
			for _, it := range d.hand.take() {
				switch {
				case it.flush != nil:
					it.flush <- append(out, acts.Settle()...)
					out = nil
				case it.reset:
					acts, out = NewHandActs(d.info.Screen), nil
				case it.settle:
					if it.fed == fed {
						out = append(out, acts.Settle()...)
					}
				case it.ev.Kind != 0:
					fed++
					out = append(out, acts.Feed(d.onDisplay(it.ev))...)
					if wait := acts.Pending(); wait > 0 {
						pause.Reset(wait)
					}
				}
			}
		}
	}
}

// onDisplay moves e to this display's pixels and says whether it is off
// the display or on Tandem's own windows.
func (d *Driver) onDisplay(e HandEvent) HandEvent {
	root := e.P
	e.Off = !root.In(d.bounds)
	e.P = root.Sub(d.bounds.Min)
	switch e.Kind {
	case HandDown, HandWheel:
		e.Own = !e.Off && d.excluded(root) != nil
	case HandKey:
		e.Own, e.Off = d.focus(e.Off)
	case HandMove, HandUp, HandKeyUp: // judged where their press began
	}
	return e
}

// focus says where typing goes: to one of Tandem's own windows (own), or
// to a window off this display (off); with no window focused, the pointer
// says (pointerOff).
func (d *Driver) focus(pointerOff bool) (own, off bool) {
	f, err := xproto.GetInputFocus(d.ctl).Reply()
	if err != nil || f.Focus == xproto.WindowNone || f.Focus == xproto.InputFocusPointerRoot {
		return false, pointerOff
	}
	top, err := d.topLevel(f.Focus)
	if err != nil || top == 0 {
		return false, pointerOff
	}
	if g, err := xproto.GetGeometry(d.ctl, xproto.Drawable(top)).Reply(); err == nil {
		r := image.Rect(int(g.X), int(g.Y), int(g.X)+int(g.Width), int(g.Y)+int(g.Height))
		off = !r.Overlaps(d.bounds)
	}
	return len(d.opts.ExcludePIDs) > 0 && slices.Contains(d.opts.ExcludePIDs, d.windowPID(top, 2)), off
}

// topLevel is the child of the root that w is in (0: w is the root).
func (d *Driver) topLevel(w xproto.Window) (xproto.Window, error) {
	root := xproto.Setup(d.ctl).DefaultScreen(d.ctl).Root
	for w != root {
		t, err := xproto.QueryTree(d.ctl, w).Reply()
		if err != nil {
			return 0, fmt.Errorf("window tree: %w", err)
		}
		if t.Parent == root {
			return w, nil
		}
		w = t.Parent
	}
	return 0, nil
}
