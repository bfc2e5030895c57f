//go:build unix && cgo

package sigcatch

/*
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t tandem_caught;
static int tandem_wfd = -1;
static struct sigaction tandem_prev_int, tandem_prev_term;

// The handler marks the process interrupted first, then wakes Go through
// the pipe; both are async-signal-safe.
static void tandem_on_signal(int sig) {
	int saved = errno;
	tandem_caught = 1;
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

// installed guards the one C handler of the process.
var installed sync.Mutex

// Catch installs the handler. Only one Catcher is installed at a time;
// a second Catch returns ErrBusy until the first is released.
func Catch() (*Catcher, error) {
	if !installed.TryLock() {
		return nil, ErrBusy
	}
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK); err != nil {
		installed.Unlock()
		return nil, err
	}
	r, w := os.NewFile(uintptr(p[0]), "sigcatch-r"), p[1]
	if e := C.tandem_install(C.int(w)); e != 0 {
		r.Close()
		syscall.Close(w)
		installed.Unlock()
		return nil, syscall.Errno(e)
	}
	c := &Catcher{c: make(chan struct{})}
	c.caught = func() bool { return C.tandem_check() != 0 }
	done := make(chan struct{})
	go func() {
		defer close(done)
		var b [16]byte
		for {
			if n, err := r.Read(b[:]); n > 0 {
				c.fire()
			} else if err != nil {
				return
			}
		}
	}()
	c.release = func() {
		C.tandem_uninstall()
		syscall.Close(w)
		r.Close()
		<-done
		installed.Unlock()
	}
	return c, nil
}
