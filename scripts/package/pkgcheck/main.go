// Command pkgcheck holds the checks `make package-test` needs that a shell
// cannot do well: whether a file is a real Windows PE image (MZ header, PE
// signature, machine), and whether a screenshot shows Tandem's UI rather than
// a blank window or an error page.
//
//	pkgcheck pe FILE...        exit 0 when every FILE is a PE image
//	pkgcheck shot FILE.png     exit 0 when the capture shows Tandem's UI
package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"tandem/internal/uicheck"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "pkgcheck:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 2 {
		return errors.New("usage: pkgcheck pe FILE... | pkgcheck shot FILE.png")
	}
	switch args[0] {
	case "pe":
		for _, name := range args[1:] {
			f, err := os.Open(name)
			if err != nil {
				return err
			}
			machine, err := PEMachine(f)
			f.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			fmt.Printf("%s: PE image, machine 0x%04x\n", name, machine)
		}
		return nil
	case "shot":
		f, err := os.Open(args[1])
		if err != nil {
			return err
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			return fmt.Errorf("%s: %w", args[1], err)
		}
		if !LooksLikeTandem(img) {
			return fmt.Errorf("%s does not show Tandem's UI", args[1])
		}
		fmt.Printf("%s: shows Tandem's UI\n", args[1])
		return nil
	}
	return fmt.Errorf("unknown check %q", args[0])
}

// ErrNotPE is returned for a file without the MZ header or the PE signature.
var ErrNotPE = errors.New("not a PE image")

// PEMachine reads the DOS header's e_lfanew, checks "PE\0\0" there and
// returns the COFF machine field (0x8664 amd64, 0x14c i386).
func PEMachine(r io.ReaderAt) (uint16, error) {
	var dos [64]byte
	if _, err := r.ReadAt(dos[:], 0); err != nil {
		return 0, fmt.Errorf("%w: %v", ErrNotPE, err)
	}
	if dos[0] != 'M' || dos[1] != 'Z' {
		return 0, fmt.Errorf("%w: no MZ header", ErrNotPE)
	}
	off := int64(binary.LittleEndian.Uint32(dos[60:64]))
	var pe [6]byte
	if _, err := r.ReadAt(pe[:], off); err != nil {
		return 0, fmt.Errorf("%w: %v", ErrNotPE, err)
	}
	if string(pe[:4]) != "PE\x00\x00" {
		return 0, fmt.Errorf("%w: no PE signature at 0x%x", ErrNotPE, off)
	}
	return binary.LittleEndian.Uint16(pe[4:6]), nil
}

// LooksLikeTandem is the window smoke test's criterion (internal/uicheck).
func LooksLikeTandem(img image.Image) bool { return uicheck.LooksLikeTandem(img) }
