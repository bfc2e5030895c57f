package vphone

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"io"
	"strings"

	"tandem/vphone/shell"
)

// cmdCksum is toybox's cksum (toys/posix/cksum.c in landley/toybox): a
// CRC-32 of each file, or of its input, with its flags -H (hexadecimal),
// -I (no post-inversion), -P (pre-inversion), -L (little endian: the
// reflected polynomial) and -N (the length neither checksummed nor
// printed). Tandem's driver confirms a still screen with
// `screencap | cksum -LPN`.
func cmdCksum(p *Phone, c *shell.IO, args []string) int {
	p.checksums.Add(1)
	var flags string
	var files []string
	for _, a := range args {
		if len(a) > 1 && a[0] == '-' {
			for _, f := range a[1:] {
				if !strings.ContainsRune("HIPLN", f) {
					fmt.Fprintf(c.Err, "cksum: Unknown option '%c'\n", f)
					return 1
				}
			}
			flags += a[1:]
			continue
		}
		files = append(files, a)
	}
	has := func(f string) bool { return strings.Contains(flags, f) }
	one := func(r io.Reader, name string) { // name: "" for the input
		w := crcWriter{le: has("L")}
		if has("P") {
			w.crc = ^uint32(0)
		}
		n, _ := io.Copy(&w, r)
		if !has("N") {
			for l := uint64(n); l != 0; l >>= 8 {
				w.Write([]byte{byte(l)})
			}
		}
		crc := w.crc
		if !has("I") {
			crc = ^crc
		}
		if has("H") {
			fmt.Fprintf(c.Out, "%08x", crc)
		} else {
			fmt.Fprintf(c.Out, "%d", crc)
		}
		if !has("N") {
			fmt.Fprintf(c.Out, " %d", n)
		}
		if name != "" {
			fmt.Fprintf(c.Out, " %s", name)
		}
		fmt.Fprintln(c.Out)
	}
	if len(files) == 0 {
		one(c.In, "")
		return 0
	}
	status := 0
	for _, f := range files {
		data, err := p.fs.read(f)
		if err != nil {
			fmt.Fprintf(c.Err, "cksum: %s: %s\n", f, errText(err))
			status = 1
			continue
		}
		one(bytes.NewReader(data), f)
	}
	return status
}

// crcWriter adds what is written to crc, a CRC-32 without its
// inversions: reflected (le) as zlib's, else most significant bit first
// as POSIX cksum's.
type crcWriter struct {
	crc uint32
	le  bool
}

// bigEndian is the table of the polynomial 0x04C11DB7 most significant
// bit first.
var bigEndian = func() (t [256]uint32) {
	for i := range t {
		c := uint32(i) << 24
		for range 8 {
			if c&(1<<31) != 0 {
				c = c<<1 ^ 0x04C11DB7
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

func (w *crcWriter) Write(p []byte) (int, error) {
	if w.le {
		w.crc = ^crc32.Update(^w.crc, crc32.IEEETable, p) // Update inverts before and after
		return len(p), nil
	}
	for _, b := range p {
		w.crc = w.crc<<8 ^ bigEndian[byte(w.crc>>24)^b]
	}
	return len(p), nil
}
