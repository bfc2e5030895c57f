//go:build windows

package engine

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockAt is the byte locked: past the process id the file holds, so the
// lock (mandatory on Windows) never keeps a reader from the id.
const lockAt = 1 << 20

// tryLock takes f's exclusive lock without waiting: false when another
// handle holds it.
func tryLock(f *os.File) (bool, error) {
	ol := windows.Overlapped{Offset: lockAt}
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return false, nil
	}
	return err == nil, err
}

func unlock(f *os.File) {
	ol := windows.Overlapped{Offset: lockAt}
	_ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}
