package desktop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// clipboard pastes text the keyboard cannot type (Chinese, emoji) through the
// CLIPBOARD selection, served by the driver itself. Serving it ourselves is
// what tells us when the focused app has fetched the text, so the person's
// clipboard is put back only after the paste, never before it landed and
// never seconds later by a guessed sleep.
//
// Restoring: the person's text stays on the clipboard, served by the driver
// while it lives; Close hands it to xclip (or xsel) so it outlives Tandem. A
// clipboard that held something other than text (an image, files) cannot be
// restored: it is cleared rather than left holding the agent's text. Pastes
// larger than maxPaste are refused (no INCR transfers).
//
// Waking: Chromium's X11 event loop can stall in the middle of a paste with
// our answer already read off its connection but not yet handled (it looks
// like a wakeup lost between libxcb's queue and the poll on its socket); it
// resumes on the
// next X event it receives, whenever that comes. On a desktop nobody touches
// that can be seconds, and if the next event is the person's clipboard coming
// back, the paste reads that instead of ours or is dropped. So whenever the
// driver waits for clipboard traffic and hears none for a while, it nudges:
// it sets and deletes a property on the root window, which every app that
// watches the root (Chromium does, for the workspace) receives as an event.
// Seen under load in TestPastesBackToBack: the stalled request arrives within
// a millisecond of the nudge.
type clipboard struct {
	c    *xgb.Conn
	win  xproto.Window
	root xproto.Window
	a    struct{ clipboard, utf8, targets, text, prop, incr, mimeUTF8, mime, nudge xproto.Atom }

	mu        sync.Mutex
	data      []byte
	owned     bool
	delivered uint64        // data transfers so far
	asked     chan struct{} // signalled on every request for our selection
	notify    chan xproto.SelectionNotifyEvent
}

const maxPaste = 200 << 10

func newClipboard(c *xgb.Conn) (*clipboard, error) {
	cb := &clipboard{c: c, asked: make(chan struct{}, 1), notify: make(chan xproto.SelectionNotifyEvent, 1)}
	for name, dst := range map[string]*xproto.Atom{"CLIPBOARD": &cb.a.clipboard, "UTF8_STRING": &cb.a.utf8,
		"TARGETS": &cb.a.targets, "TEXT": &cb.a.text, "TANDEM_SELECTION": &cb.a.prop, "INCR": &cb.a.incr,
		"text/plain;charset=utf-8": &cb.a.mimeUTF8, "text/plain": &cb.a.mime, "_TANDEM_NUDGE": &cb.a.nudge} {
		a, err := internAtom(c, name)
		if err != nil {
			return nil, fmt.Errorf("clipboard: %w", err)
		}
		*dst = a
	}
	win, err := xproto.NewWindowId(c)
	if err != nil {
		return nil, fmt.Errorf("clipboard window: %w", err)
	}
	root := xproto.Setup(c).DefaultScreen(c).Root
	// An InputOnly window that is never mapped: it owns the selection and
	// receives its events without ever taking the focus.
	if err := xproto.CreateWindowChecked(c, 0, win, root, -1, -1, 1, 1, 0, xproto.WindowClassInputOnly,
		0, xproto.CwEventMask, []uint32{xproto.EventMaskPropertyChange}).Check(); err != nil {
		return nil, fmt.Errorf("clipboard window: %w", err)
	}
	cb.win = win
	cb.root = root
	return cb, nil
}

// read returns the clipboard's text. has is false when nobody owns the
// clipboard; text is false when the owner offers no text.
func (cb *clipboard) read(ctx context.Context) (data []byte, has, text bool, err error) {
	own, err := xproto.GetSelectionOwner(cb.c, cb.a.clipboard).Reply()
	if err != nil {
		return nil, false, false, fmt.Errorf("clipboard owner: %w", err)
	}
	if own.Owner == 0 {
		return nil, false, false, nil
	}
	if own.Owner == cb.win {
		cb.mu.Lock()
		defer cb.mu.Unlock()
		return append([]byte(nil), cb.data...), true, true, nil
	}
	select {
	case <-cb.notify: // a stale answer
	default:
	}
	xproto.ConvertSelection(cb.c, cb.win, cb.a.clipboard, cb.a.utf8, cb.a.prop, xproto.TimeCurrentTime)
	t := time.NewTimer(time.Second)
	defer t.Stop()
	var n xproto.SelectionNotifyEvent
	select {
	case n = <-cb.notify:
	case <-t.C:
		return nil, true, false, nil // the owner does not answer: treat as not text
	case <-ctx.Done():
		return nil, true, false, ctx.Err()
	}
	if n.Property == 0 {
		return nil, true, false, nil
	}
	r, err := xproto.GetProperty(cb.c, true, cb.win, cb.a.prop, xproto.GetPropertyTypeAny, 0, maxPaste/4).Reply()
	if err != nil {
		return nil, true, false, fmt.Errorf("clipboard read: %w", err)
	}
	if r.Type == cb.a.incr || r.BytesAfter > 0 {
		return nil, true, false, nil
	}
	return r.Value, true, true, nil
}

// own makes data the clipboard's content, served by us.
func (cb *clipboard) own(data []byte) error {
	if len(data) > maxPaste {
		return fmt.Errorf("text of %d bytes is too long to paste (at most %d)", len(data), maxPaste)
	}
	cb.mu.Lock()
	cb.data = append([]byte(nil), data...)
	cb.owned = true
	cb.mu.Unlock()
	xproto.SetSelectionOwner(cb.c, cb.win, cb.a.clipboard, xproto.TimeCurrentTime)
	r, err := xproto.GetSelectionOwner(cb.c, cb.a.clipboard).Reply()
	if err != nil {
		return fmt.Errorf("clipboard: %w", err)
	}
	if r.Owner != cb.win {
		return fmt.Errorf("clipboard: could not take the CLIPBOARD selection")
	}
	return nil
}

// disown empties the clipboard if we own it.
func (cb *clipboard) disown() {
	cb.mu.Lock()
	cb.owned = false
	cb.data = nil
	cb.mu.Unlock()
	r, err := xproto.GetSelectionOwner(cb.c, cb.a.clipboard).Reply()
	if err == nil && r.Owner == cb.win {
		xproto.SetSelectionOwner(cb.c, 0, cb.a.clipboard, xproto.TimeCurrentTime)
	}
}

// deliveries returns how many data transfers we have served.
func (cb *clipboard) deliveries() uint64 {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	return cb.delivered
}

// settle waits until the apps are done with the clipboard for now: no
// request for quiet, with a nudge halfway through the silence (see
// clipboard), at most limit.
func (cb *clipboard) settle(ctx context.Context, quiet, limit time.Duration) error {
	end := time.NewTimer(limit)
	defer end.Stop()
	nudged := false
	for {
		q := time.NewTimer(quiet / 2)
		select {
		case <-cb.asked:
			q.Stop()
			nudged = false
		case <-q.C:
			if nudged {
				return nil
			}
			cb.nudge()
			nudged = true
		case <-end.C:
			q.Stop()
			return nil
		case <-ctx.Done():
			q.Stop()
			return ctx.Err()
		}
	}
}

// waitDelivery waits until a data transfer after the first `after` ones, or
// until d, halt or ctx, nudging every nudgeEvery of silence.
func (cb *clipboard) waitDelivery(ctx context.Context, after uint64, d time.Duration, halt <-chan struct{}) error {
	end := time.NewTimer(d)
	defer end.Stop()
	tick := time.NewTicker(nudgeEvery)
	defer tick.Stop()
	for cb.deliveries() <= after {
		select {
		case <-tick.C:
			cb.nudge()
		case <-cb.asked:
		case <-end.C:
			return errPasteTimeout
		case <-halt:
			return ErrTakenOver
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// nudgeEvery is how often a wait for a fetch nudges the apps.
const nudgeEvery = 125 * time.Millisecond

// nudge sends every app watching the root window a PropertyNotify, waking an
// event loop stalled with our answer unread (see clipboard). The property is
// set and deleted at once, so the root keeps nothing.
func (cb *clipboard) nudge() {
	xproto.ChangeProperty(cb.c, xproto.PropModeReplace, cb.root, cb.a.nudge, xproto.AtomInteger, 32, 1, []byte{0, 0, 0, 0})
	xproto.DeleteProperty(cb.c, cb.root, cb.a.nudge)
}

var errPasteTimeout = errors.New("the focused window did not fetch the pasted text")

// handle answers selection traffic on the control connection.
func (cb *clipboard) handle(ev xgb.Event) {
	switch e := ev.(type) {
	case xproto.SelectionNotifyEvent:
		select {
		case cb.notify <- e:
		default:
		}
	case xproto.SelectionClearEvent:
		cb.mu.Lock()
		cb.owned = false
		cb.data = nil
		cb.mu.Unlock()
	case xproto.SelectionRequestEvent:
		cb.answer(e)
	}
}

func (cb *clipboard) answer(e xproto.SelectionRequestEvent) {
	prop := e.Property
	if prop == 0 {
		prop = e.Target // an obsolete client
	}
	cb.mu.Lock()
	data, owned := cb.data, cb.owned
	cb.mu.Unlock()
	delivered := false
	switch {
	case !owned || e.Selection != cb.a.clipboard:
		prop = 0
	case e.Target == cb.a.targets:
		atoms := []xproto.Atom{cb.a.targets, cb.a.utf8, cb.a.mimeUTF8, cb.a.mime, cb.a.text, xproto.AtomString}
		buf := make([]byte, 4*len(atoms))
		for i, a := range atoms {
			xgb.Put32(buf[4*i:], uint32(a))
		}
		xproto.ChangeProperty(cb.c, xproto.PropModeReplace, e.Requestor, prop, xproto.AtomAtom, 32, uint32(len(atoms)), buf)
	case e.Target == cb.a.utf8 || e.Target == cb.a.mimeUTF8 || e.Target == cb.a.mime || e.Target == cb.a.text || e.Target == xproto.AtomString:
		typ := e.Target
		if typ == cb.a.text {
			typ = cb.a.utf8
		}
		xproto.ChangeProperty(cb.c, xproto.PropModeReplace, e.Requestor, prop, typ, 8, uint32(len(data)), data)
		delivered = true
	default:
		prop = 0
	}
	n := xproto.SelectionNotifyEvent{Time: e.Time, Requestor: e.Requestor, Selection: e.Selection,
		Target: e.Target, Property: prop}
	xproto.SendEvent(cb.c, false, e.Requestor, 0, string(n.Bytes()))
	if delivered {
		_, _ = xproto.GetInputFocus(cb.c).Reply() // the reply proves the server passed the data on
		cb.mu.Lock()
		cb.delivered++
		cb.mu.Unlock()
	}
	select {
	case cb.asked <- struct{}{}:
	default:
	}
}

// handOff gives text we still serve to xclip or xsel, which keep it after
// Tandem exits. Best effort: without either tool the text goes with us.
func (cb *clipboard) handOff(ctx context.Context, display string) {
	cb.mu.Lock()
	data, owned := cb.data, cb.owned
	cb.mu.Unlock()
	if !owned {
		return
	}
	var cmd *exec.Cmd
	if p, err := exec.LookPath("xclip"); err == nil {
		cmd = exec.CommandContext(ctx, p, "-selection", "clipboard", "-in")
	} else if p, err := exec.LookPath("xsel"); err == nil {
		cmd = exec.CommandContext(ctx, p, "--clipboard", "--input")
	} else {
		return
	}
	if display != "" {
		cmd.Env = append(os.Environ(), "DISPLAY="+display)
	}
	cmd.Stdin = strings.NewReader(string(data))
	_ = cmd.Run()
}
