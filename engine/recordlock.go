package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A record in use is locked by the process that writes it: an OS file
// lock on record.lock beside it (flock on Unix, LockFileEx on Windows),
// taken when the record opens and let go when it closes — or by the OS
// when the process dies, so a crashed run is resumable at once and a live
// one never: two Tandems (the window and `tandem run`) can never drive
// one run, and History tells a run going on elsewhere from one cut off.
// The lock file holds the writer's process id, for the message.

const lockFile = "record.lock"

// ErrRecordInUse means another process (another Tandem) is writing the
// record: its run is going on there.
var ErrRecordInUse = errors.New("the run is going on in another Tandem")

// InUseError says which process writes the record.
type InUseError struct {
	Dir string
	PID int // 0 when it could not be read
}

func (e *InUseError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("run %s is going on in another Tandem (process %d): stop it there, or wait for it to end", filepath.Base(e.Dir), e.PID)
	}
	return fmt.Sprintf("run %s is going on in another Tandem: stop it there, or wait for it to end", filepath.Base(e.Dir))
}

// Is makes errors.Is(err, ErrRecordInUse) hold.
func (e *InUseError) Is(target error) bool { return target == ErrRecordInUse }

// recordLock is a held lock on a record.
type recordLock struct{ f *os.File }

// lockRecord takes dir's lock for this process, or says who holds it.
func lockRecord(dir string) (*recordLock, error) {
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("engine: record lock: %w", err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("engine: record lock: %w", err)
	}
	if !held {
		pid := readPID(f)
		f.Close()
		return nil, &InUseError{Dir: dir, PID: pid}
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &recordLock{f: f}, nil
}

// release lets the lock go (the process's end does it too).
func (l *recordLock) release() {
	if l == nil {
		return
	}
	unlock(l.f)
	l.f.Close()
}

func readPID(f *os.File) int {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	return pid
}

// RecordInUse says whether another process writes the record in dir now
// (nil), and who (an *InUseError). A record with no lock file, or an
// unheld one, is not in use: it ended, or its writer died.
func RecordInUse(dir string) error {
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return nil // unreadable: not ours to judge; opening it to resume says why
	}
	defer f.Close()
	held, err := tryLock(f)
	if err != nil || held {
		if held {
			unlock(f)
		}
		return nil
	}
	return &InUseError{Dir: dir, PID: readPID(f)}
}
