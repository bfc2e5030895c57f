package app

import (
	"sync"
	"time"

	"tandem/engine"
)

// frame is how long a streamed event may wait for others to go with it to
// the page: one frame of a 60 Hz screen.
const frame = 16 * time.Millisecond

// pageEvents sends the run's events to the page in batches, one "runs"
// event (a list, in the order they came) at a time. Each event the window
// receives is a script run on GTK's main loop and then in the page
// (Wails' ExecJS); a model streaming its reply makes hundreds of thought
// events a second, and a state change queued behind them reached the
// window half a second late or more (BenchmarkWindowPause). So the streamed
// kinds (thought, waiting, usage, retry) wait up to one frame for company,
// and any other event (a state change, a request, a step) goes at once,
// taking those waiting before it along, in order. Other names ("devices")
// pass as they are.
type pageEvents struct {
	emit func(name string, data any)

	sendMu sync.Mutex // one batch goes at a time, so batches keep their order
	mu     sync.Mutex
	queue  []engine.Event
	timer  *time.Timer
	closed bool
}

func newPageEvents(emit func(name string, data any)) *pageEvents {
	return &pageEvents{emit: emit}
}

// Notify is the backend's Notifier.
func (p *pageEvents) Notify(name string, data any) {
	e, ok := data.(engine.Event)
	if name != "run" || !ok {
		p.emit(name, data)
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.queue = append(p.queue, e)
	if streamed(e.Kind) {
		if p.timer == nil {
			p.timer = time.AfterFunc(frame, p.flush)
		}
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	p.flush()
}

// flush sends what waits, if anything.
func (p *pageEvents) flush() {
	p.sendMu.Lock()
	defer p.sendMu.Unlock()
	p.mu.Lock()
	batch := p.queue
	p.queue = nil
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	p.mu.Unlock()
	if len(batch) > 0 {
		p.emit("runs", batch)
	}
}

// close sends what waits and drops what comes after (the window is going).
func (p *pageEvents) close() {
	p.flush()
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
}

// streamed reports whether events of kind k come many a second, each
// superseding or adding a little to the last, so that one frame's wait
// costs the person nothing.
func streamed(k engine.EventKind) bool {
	switch k {
	case engine.KindThought, engine.KindWaiting, engine.KindUsage, engine.KindRetry:
		return true
	case engine.KindSnapshot, engine.KindState, engine.KindStep, engine.KindPlan, engine.KindManual,
		engine.KindRequest, engine.KindDone, engine.KindPerson:
		return false
	}
	return false
}
