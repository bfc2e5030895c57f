// Package sigcatch tells a command line's Ctrl+C (SIGINT, SIGTERM) the
// moment the kernel hands it to the process, before Go's own signal
// delivery has woken anyone.
//
// Why: `tandem run` shuts its run's action gate on Ctrl+C, but Go's
// delivery of a signal to a channel takes a thread's wake-up and a
// goroutine's (1.4–67 ms on a loaded machine, measured), while a model
// reply that arrived with the signal reaches its tap in about 1 ms: the
// tap won 36 times in 100 (issue 31). Here a handler written in C marks
// the process interrupted inside the signal handler itself, and Caught
// also reports a signal the kernel holds for the process but has not yet
// handed to a thread, so an action that asks Caught first does not start
// once Ctrl+C has been sent. Go still hears of the signal (C returns a
// channel) to do the rest of the stop.
//
// Without cgo, or off Unix, Catch uses os/signal and Caught reports only
// what has been delivered.
package sigcatch
