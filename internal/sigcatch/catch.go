package sigcatch

import (
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

// Catcher is told of the process's interrupts while it is installed; the
// process may have several (each command of a test that runs several).
type Catcher struct {
	c       chan struct{}
	once    sync.Once
	release func()
	caught  func() bool
}

// C is closed at the first Ctrl+C or SIGTERM.
func (c *Catcher) C() <-chan struct{} { return c.c }

// Caught reports whether Ctrl+C or SIGTERM has been sent to the process
// since this Catch: handled by the C handler, or held by the kernel for the
// process. It does not block.
func (c *Catcher) Caught() bool { return c.caught() }

// Release gives the signals back to what handled them before Catch. It
// may be called more than once.
func (c *Catcher) Release() { c.once.Do(c.release) }

// fire closes c.C once.
func (c *Catcher) fire() {
	select {
	case <-c.c:
	default:
		close(c.c)
	}
}

// catchThroughGo is a catcher told through os/signal: Caught reports only
// what Go has delivered.
func catchThroughGo() *Catcher {
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
	}
	return c
}
