// Package layout holds no code, only the tests that keep the house: which
// room may import which (no arrow back up: the engine knows no driver, a
// driver no UI), and how large a file or a function may grow.
//
// Why a package of its own: these are rules about the whole module, read
// from `go list` and the Go parser, and belong to no single room. The rules
// apply to production code; tests may import more (the engine's tests run
// on the virtual phone).
package layout
