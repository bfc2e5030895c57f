package vphone

import "image"

// screen is the phone's display as its video encoder (encode.Stream) sees it.
type screen struct{ p *Phone }

func (s screen) Size() (int, int) {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	return s.p.displaySize()
}

func (s screen) Key() shotKey { return s.p.screenKey() }

func (s screen) Picture() *image.RGBA { return s.p.Screenshot() }

// screenKey identifies what the screen shows now.
func (p *Phone) screenKey() shotKey {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.m.Tick(p.now())
	return shotKey{version: p.m.Version(), frame: p.m.Frame(p.now()), secure: p.faults.secure, rotation: p.rotation}
}
