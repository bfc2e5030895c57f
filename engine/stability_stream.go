package engine

import (
	"context"
	"image"
	"time"
)

// Motion is a live video stream of the device's screen, as the mirror
// receives it: its pictures come only when the screen changes.
type Motion func() MotionState

// MotionState is what the stream tells at a moment.
type MotionState struct {
	Last time.Time       // when its newest picture of a change arrived
	Live bool            // a stream feeds the device now
	Next <-chan struct{} // closed at its next picture (or any change of the stream)
	// EchoUntil is until when the stream may still send a copy of its
	// newest picture: scrcpy-server has its encoder repeat the last
	// picture once, 100 ms after (its SurfaceEncoder's
	// REPEAT_FRAME_DELAY_US; MediaFormat's KEY_REPEAT_PREVIOUS_FRAME_AFTER,
	// "repeated (once)"). Zero when none is owed. A capture waits for it:
	// the copy is not counted as a change, and what came in its place, if
	// the screen did change then, is on the capture.
	EchoUntil time.Time
}

const (
	// streamQuiet is how long after a capture began the stream must bring
	// no picture for the capture to be the settled screen: longer than
	// the stream's own delay from the screen to here (the phone's
	// encoder, adb), so a change just after the capture would have shown.
	streamQuiet = 50 * time.Millisecond
	// streamPause is how long the pictures must pause before the screen
	// is captured again, so a screen still moving is not captured at
	// each of its pictures (three pictures of a 60 Hz animation).
	streamPause = 50 * time.Millisecond
	// streamMotionLimit is how long pictures may come without a pause
	// before the wait hands over to the captures' comparison: longer than
	// an app's transitions (Android's run 200–400 ms), shorter than the
	// cap, so a small perpetual animation (a spinner, a blinking banner)
	// costs at most this before the comparison's noise tolerance settles
	// it.
	streamMotionLimit = 500 * time.Millisecond
)

// streamWait is the stability wait with a live stream of the screen
// (issue 31): one capture, and the stream says when to take it and
// whether it is the settled screen, instead of a second capture an
// interval later.
//
// The capture is taken once the screen has reacted to the action (a
// picture since the action began) and its pictures have paused for
// streamPause, or, when no picture comes, once cfg.Interval has passed
// since the action ended and the wait began (the time an app is given to
// react, as with two captures; here, for its first picture to arrive). It is the settled screen when no picture comes for streamQuiet
// after it began (a change just after it would have shown by then); a
// picture means the screen moved, and it is captured again once the
// pictures pause. When no picture came at all, the capture must show the
// screen the action was made on: a change the stream did not show within
// streamQuiet means it is not to be trusted, and the wait goes on the old
// way; so do pictures that do not pause for streamMotionLimit. So the
// model is never asked about a screen the stream saw moving.
type streamWait struct {
	clock   Clock
	shoot   func(context.Context) (image.Image, error)
	cfg     StabilityConfig
	motion  Motion
	onShoot func()            // before each capture (the reads of the screen start with it)
	onRun   func(image.Image) // each capture, as it is taken
	since   time.Time         // when the action began
	before  Fingerprint       // the screen it was made on
}

// wait returns the settled screen. ok is false when no stream is live at
// the start, or when the stream ends or missed a change: the caller waits
// the old way.
func (w streamWait) wait(ctx context.Context) (s Settled, ok bool, err error) {
	if !w.motion().Live {
		return Settled{}, false, nil
	}
	cfg := w.cfg.withDefaults()
	start := w.clock.Now()
	var at time.Time         // when the newest capture began; zero before the first
	var motionFrom time.Time // the first picture seen of the motion not yet captured
	capture := func() (err error) {
		at, err = w.take(ctx, &s)
		motionFrom = time.Time{}
		return err
	}
	for {
		m := w.motion()
		last, live, next := m.Last, m.Live, m.Next
		now := w.clock.Now()
		moved := last.After(w.since)
		var due time.Time // when to capture, or when the capture is settled
		switch {
		case !live:
			return Settled{}, false, nil
		case now.Sub(start) >= cfg.Max:
			if s.Frame == nil || last.After(at) { // the newest screen, as the old way gives it
				if err := capture(); err != nil {
					return Settled{}, true, err
				}
			}
			s.Waited = w.clock.Now().Sub(start)
			return s, true, nil
		case s.Frame == nil || last.After(at):
			// Nothing captured yet, or the screen moved since: capture
			// once its pictures pause (or the app's time to react passes).
			due = last.Add(streamPause)
			if !moved {
				due = start.Add(cfg.Interval)
			}
			if m.EchoUntil.After(due) {
				due = m.EchoUntil
			}
			if moved && motionFrom.IsZero() {
				motionFrom = last
			}
			if moved && now.Before(last.Add(streamPause)) && now.Sub(motionFrom) >= streamMotionLimit {
				// Pictures without a pause for longer than a transition
				// lasts: a perpetual animation (a spinner, a banner), which
				// the captures' comparison tolerates when it is small.
				return Settled{}, false, nil
			}
			if !now.Before(due) {
				if err := capture(); err != nil {
					return Settled{}, true, err
				}
				continue
			}
		case !moved && s.Print.Diff(w.before) > cfg.Threshold:
			// The screen changed and the stream has not shown it: its
			// picture may be on its way, within the stream's delay.
			due = at.Add(streamQuiet)
			if !now.Before(due) {
				return Settled{}, false, nil
			}
		default:
			due = at.Add(streamQuiet)
			if !now.Before(due) {
				s.Stable = true
				s.Waited = now.Sub(start)
				return s, true, nil
			}
		}
		if err := sleepOrPicture(ctx, w.clock, due.Sub(now), next); err != nil {
			return Settled{}, true, err
		}
	}
}

// take captures the screen into s, telling the hooks, and returns when the
// capture began.
func (w streamWait) take(ctx context.Context, s *Settled) (time.Time, error) {
	if w.onShoot != nil {
		w.onShoot()
	}
	at := w.clock.Now()
	img, err := w.shoot(ctx)
	if err != nil {
		return at, err
	}
	s.Frame, s.Print = img, FingerprintOf(img)
	s.Frames++
	if w.onRun != nil {
		w.onRun(img)
	}
	return at, nil
}

// sleepOrPicture waits d, until next closes (a picture came), or until ctx
// ends (its error).
func sleepOrPicture(ctx context.Context, clock Clock, d time.Duration, next <-chan struct{}) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-next:
			cancel()
		case <-wctx.Done():
		}
	}()
	if err := clock.Sleep(wctx, d); err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}
