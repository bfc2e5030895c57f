// Package filelock takes and lets go of an OS lock on an open file without
// waiting (flock on Unix, LockFileEx on Windows): the lock the OS lets go
// of by itself when the process dies, so what it guards is never left
// held by a crash. The device leases (devices/lease.go) are built on it.
package filelock

// Offset is where the lock sits in the file: past the few bytes a holder
// writes about itself, so the lock (mandatory on Windows) never keeps a
// reader from them.
const Offset = 1 << 20
