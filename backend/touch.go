package backend

import (
	"sync"
	"time"

	"tandem/engine/action"
	"tandem/mirror"
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

// track takes one phase and returns the finished gesture on "up", by the
// mirror's one gesture rule (mirror.Classify) on a screen of this size.
func (g *liveGestures) track(device, phase string, x, y int, screen action.Size, now time.Time) (action.Action, bool) {
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
		if ok && mirror.Beyond(d.x, d.y, x, y, screen) {
			d.moved = true
			g.downs[device] = d
		}
	case "up":
		delete(g.downs, device)
		if !ok {
			return action.Action{}, false
		}
		return mirror.Classify(d.x, d.y, x, y, now.Sub(d.at), d.moved, screen), true
	default: // "cancel": the finger left without a gesture
		delete(g.downs, device)
	}
	return action.Action{}, false
}
