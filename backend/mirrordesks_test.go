package backend

import (
	"testing"

	"tandem/mirror"
)

// mirrorDesks is a mirror hub with its server and the desks of reg's
// devices feeding it, as the window has them; the server closes and the
// desks stop when the test ends.
func mirrorDesks(tb testing.TB, reg *Devices) (*mirror.Hub, *mirror.Server, *desks) {
	tb.Helper()
	hub := mirror.NewHub()
	srv, err := mirror.Start(hub)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { srv.Close() })
	f := newDesks(reg, hub, func(string) bool { return false })
	tb.Cleanup(f.stopAll)
	return hub, srv, f
}
