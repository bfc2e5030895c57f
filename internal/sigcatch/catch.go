package sigcatch

import (
	"errors"
	"sync"
)

// ErrBusy means another Catcher of this process is installed.
var ErrBusy = errors.New("sigcatch: a catcher is installed already")

// Catcher is the process's interrupt handler while it is installed.
type Catcher struct {
	c       chan struct{}
	once    sync.Once
	release func()
	caught  func() bool
}

// C is closed at the first Ctrl+C or SIGTERM.
func (c *Catcher) C() <-chan struct{} { return c.c }

// Caught reports whether Ctrl+C or SIGTERM has been sent to the process
// since Catch: handled by the C handler, or held by the kernel for the
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
