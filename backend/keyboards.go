package backend

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"tandem/devices/adb"
	"tandem/internal/datadir"
)

// restoreBound bounds the start-up repair of keyboards: one adb listing and
// a shell call per phone with a pending note.
const restoreBound = 5 * time.Second

// restoreKeyboards runs at start-up: every connected phone with a pending
// keyboard note (left by this app or by `tandem run`, both keep it in the
// data dir) gets the person's keyboard back, and GetSettings reports which
// so the UI can say so. Notes an older version kept in the config folder
// are moved to the data dir first.
func (a *Backend) restoreKeyboards(ctx context.Context) {
	a.RestoreKeyboards(ctx)
}

// RestoreKeyboards gives back the keyboard of every phone an earlier
// Tandem left typing, and says so in words ("" when there was none).
func (a *Backend) RestoreKeyboards(ctx context.Context) string {
	notes := datadir.KeyboardNotes(a.cfg.DataDir)
	adoptNotes(filepath.Join(a.cfg.ConfigDir, "devices"), notes)
	ctx, cancel := context.WithTimeout(ctx, restoreBound)
	defer cancel()
	rs, err := adb.RestorePending(ctx, a.devices.ADB(), notes, func(serial string) bool { return a.devices.HeldBy(serial) != nil })
	if err != nil {
		// Not fatal: the note stays, and the next start (or opening the
		// phone, which repairs it too) tries again.
		fmt.Fprintln(os.Stderr, "tandem: giving a keyboard back at start-up:", err)
	}
	a.mu.Lock()
	a.restored = rs
	a.mu.Unlock()
	return adb.RestoredText(rs)
}

// adoptNotes moves keyboard notes from an old folder into the data dir's.
func adoptNotes(from, to string) {
	old, _ := filepath.Glob(filepath.Join(from, "keyboard-*.json"))
	if len(old) == 0 || os.MkdirAll(to, 0o700) != nil {
		return
	}
	for _, p := range old {
		dst := filepath.Join(to, filepath.Base(p))
		if _, err := os.Stat(dst); err == nil {
			continue // a newer note for the same phone wins
		}
		_ = os.Rename(p, dst)
	}
}
