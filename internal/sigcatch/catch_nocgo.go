//go:build !(unix && cgo)

package sigcatch

// Catch returns a catcher told of every Ctrl+C or SIGTERM from now on,
// until its release: through os/signal here (no cgo, or Windows, whose
// console Ctrl+C arrives on a thread of its own).
func Catch() *Catcher { return catchThroughGo() }
