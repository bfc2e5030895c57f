//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package desktop

import "errors"

// Windows has no System V shared memory (nor, usually, an X server): the
// capturer then takes kbinani/screenshot's path, and the X11 driver itself
// reports that this computer's desktop cannot be driven. This file exists so
// the rest of Tandem (phones) builds for Windows.

var errNoSysV = errors.New("capture: no System V shared memory on this OS")

func sysvGet(int) (int, error)   { return 0, errNoSysV }
func sysvRm(int) error           { return errNoSysV }
func sysvAt(int) ([]byte, error) { return nil, errNoSysV }
func sysvDt([]byte) error        { return errNoSysV }
