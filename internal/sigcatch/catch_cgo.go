//go:build unix && cgo

package sigcatch

/*
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t tandem_caught; // signals handled since install
static int tandem_wfd = -1;
static struct sigaction tandem_prev_int, tandem_prev_term;

// The handler marks the process interrupted first, then wakes Go through
// the pipe; both are async-signal-safe.
static void tandem_on_signal(int sig) {
	int saved = errno;
	tandem_caught++;
	if (tandem_wfd >= 0) {
		char b = (char)sig;
		ssize_t n = write(tandem_wfd, &b, 1);
		(void)n;
	}
	errno = saved;
}

static int tandem_install(int wfd) {
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = tandem_on_signal;
	// SA_ONSTACK: Go's threads run signal handlers on their own signal
	// stacks (the os/signal documentation asks this of C handlers).
	sa.sa_flags = SA_ONSTACK | SA_RESTART;
	sigfillset(&sa.sa_mask);
	tandem_caught = 0;
	tandem_wfd = wfd;
	if (sigaction(SIGINT, &sa, &tandem_prev_int) != 0) {
		tandem_wfd = -1;
		return errno;
	}
	if (sigaction(SIGTERM, &sa, &tandem_prev_term) != 0) {
		int e = errno;
		sigaction(SIGINT, &tandem_prev_int, NULL);
		tandem_wfd = -1;
		return e;
	}
	return 0;
}

static void tandem_uninstall(void) {
	sigaction(SIGINT, &tandem_prev_int, NULL);
	sigaction(SIGTERM, &tandem_prev_term, NULL);
	tandem_wfd = -1;
}

// tandem_check changes this thread's signal mask and changes it back. The
// kernel recomputes, at each change, whether a signal the process holds
// is owed to this thread, and delivers it as the call returns: a SIGINT
// sent but not yet taken by any thread runs its handler here, before the
// mark is read.
static int tandem_check(void) {
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, SIGRTMAX);
	pthread_sigmask(SIG_BLOCK, &one, NULL);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	return tandem_caught;
}
*/
import "C"

import (
	"os"
	"sync"
	"syscall"
)

// handler is the one C handler of the process and the catchers it tells.
// A signal's handler is the process's own, so this is too.
var handler struct {
	mu       sync.Mutex
	catchers map[*Catcher]struct{}
	w        int           // the pipe's write end, the C handler's
	done     chan struct{} // closed when the pipe's reader has stopped
	r        *os.File
}

// Catch installs the handler (the first catcher of the process does) and
// returns a catcher told of every Ctrl+C or SIGTERM from now on, until
// its release; the last release puts back what handled them before. A
// handler that cannot be installed (no pipe left) leaves Go's delivery.
func Catch() *Catcher {
	handler.mu.Lock()
	defer handler.mu.Unlock()
	if len(handler.catchers) == 0 {
		if err := install(); err != nil {
			return catchThroughGo()
		}
	}
	from := C.tandem_check()
	c := &Catcher{c: make(chan struct{})}
	c.caught = func() bool { return C.tandem_check() != from }
	handler.catchers[c] = struct{}{}
	c.release = func() {
		handler.mu.Lock()
		delete(handler.catchers, c)
		handler.mu.Unlock()
		uninstall()
	}
	return c
}

// install opens the pipe, puts the C handler in place and starts the
// reader that tells the catchers. handler.mu is held.
func install() error {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK); err != nil {
		return err
	}
	r, w := os.NewFile(uintptr(p[0]), "sigcatch-r"), p[1]
	if e := C.tandem_install(C.int(w)); e != 0 {
		r.Close()
		syscall.Close(w)
		return syscall.Errno(e)
	}
	handler.catchers, handler.r, handler.w, handler.done = map[*Catcher]struct{}{}, r, w, make(chan struct{})
	go func(done chan struct{}) {
		defer close(done)
		var b [16]byte
		for {
			n, err := r.Read(b[:])
			if n > 0 {
				handler.mu.Lock()
				for c := range handler.catchers {
					c.fire()
				}
				handler.mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}(handler.done)
	return nil
}

// uninstall puts back the handlers from before install and stops the
// reader, once no catcher is left.
func uninstall() {
	handler.mu.Lock()
	if len(handler.catchers) > 0 || handler.r == nil {
		handler.mu.Unlock()
		return // a catcher is left, or it is gone already
	}
	C.tandem_uninstall()
	r, w, done := handler.r, handler.w, handler.done
	handler.r = nil
	handler.mu.Unlock()
	// The reader may be waiting for the lock to tell catchers: it is
	// let go first.
	syscall.Close(w)
	r.Close()
	<-done
}
