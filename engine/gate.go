package engine

import "sync"

// gate keeps device actions from starting after Stop. Shutting it is
// immediate (no action can begin afterwards); draining waits for the
// actions already inside it, which land and are recorded.
type gate struct {
	mu      sync.Mutex
	closed  bool
	running int
	drained chan struct{} // made by shut; closed once nothing runs
	// interrupted, when set, is a stop on its way (Config.Interrupted):
	// once it reports true the gate shuts as Stop would shut it.
	interrupted func() bool
}

// do runs f unless the gate is shut.
func (g *gate) do(f func() error) (ran bool, err error) {
	g.mu.Lock()
	if !g.closed && g.interrupted != nil && g.interrupted() {
		g.shutLocked()
	}
	if g.closed {
		g.mu.Unlock()
		return false, nil
	}
	g.running++
	g.mu.Unlock()
	defer g.leave()
	return true, f()
}

func (g *gate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.running--
	if g.closed && g.running == 0 {
		close(g.drained)
	}
}

// shut stops any further action from starting, at once, and returns what
// is closed once the actions already inside the gate have ended.
func (g *gate) shut() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.shutLocked()
	return g.drained
}

func (g *gate) shutLocked() {
	if !g.closed {
		g.closed = true
		g.drained = make(chan struct{})
		if g.running == 0 {
			close(g.drained)
		}
	}
}

// close shuts the gate and waits for the actions inside it.
func (g *gate) close() { <-g.shut() }
