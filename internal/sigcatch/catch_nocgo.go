//go:build !(unix && cgo)

package sigcatch

import (
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

var installed sync.Mutex

// Catch installs the handler through os/signal (no cgo, or Windows, whose
// console Ctrl+C arrives on a thread of its own). Only one Catcher is
// installed at a time; a second Catch returns ErrBusy until the first is
// released.
func Catch() (*Catcher, error) {
	if !installed.TryLock() {
		return nil, ErrBusy
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var got atomic.Bool
	c := &Catcher{c: make(chan struct{}), caught: got.Load}
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			got.Store(true)
			c.fire()
		case <-done:
		}
	}()
	c.release = func() {
		signal.Stop(sigs)
		close(done)
		installed.Unlock()
	}
	return c, nil
}
