package app

import (
	"sync"
	"time"

	"tandem/engine/action"
)

// Live touches (scrcpy's control socket) reach the phone phase by phase, so
// no single action passes through the run. A run the person drives must
// still learn what they did (it is told to the model on hand back), so the
// phases are put back together here into the gesture they made.

// liveGestures remembers where each device's finger went down.
type liveGestures struct {
	mu    sync.Mutex
	downs map[string]touchDown
}

type touchDown struct {
	x, y  int
	at    time.Time
	moved bool
}

// slop is how far a finger may wander and still tap, in device pixels;
// longPress is how long a still finger makes a long press.
const (
	slop      = 16
	longPress = 500 * time.Millisecond
)

// track takes one phase and returns the finished gesture on "up".
func (g *liveGestures) track(device, phase string, x, y int, now time.Time) (action.Action, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.downs == nil {
		g.downs = map[string]touchDown{}
	}
	d, ok := g.downs[device]
	switch phase {
	case "down":
		g.downs[device] = touchDown{x: x, y: y, at: now}
	case "move":
		if ok && (abs(x-d.x) > slop || abs(y-d.y) > slop) {
			d.moved = true
			g.downs[device] = d
		}
	case "up":
		delete(g.downs, device)
		if !ok {
			return action.Action{}, false
		}
		held := now.Sub(d.at)
		switch {
		case d.moved || abs(x-d.x) > slop || abs(y-d.y) > slop:
			return action.Action{Type: action.Swipe, X: d.x, Y: d.y, X2: x, Y2: y, Ms: max(int(held.Milliseconds()), 1)}, true
		case held >= longPress:
			return action.Action{Type: action.LongPress, X: d.x, Y: d.y, Ms: int(held.Milliseconds())}, true
		}
		return action.Action{Type: action.Tap, X: d.x, Y: d.y}, true
	default: // "cancel": the finger left without a gesture
		delete(g.downs, device)
	}
	return action.Action{}, false
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
