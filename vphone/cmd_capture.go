package vphone

import (
	"encoding/binary"
	"fmt"
	"image"
	"strings"

	"tandem/vphone/shell"
)

// Screens out: screencap and uiautomator dump.

func cmdScreencap(p *Phone, c *shell.IO, args []string) int {
	asPNG := false
	file := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-d" && i+1 < len(args):
			i++
		case strings.HasPrefix(a, "-"):
			for _, f := range a[1:] {
				switch f {
				case 'p':
					asPNG = true
				case 'h':
					fmt.Fprintln(c.Err, "usage: screencap [-hp] [-d display-id] [FILENAME]\n   -h: this message\n   -p: save the file as a png.\n   -d: specify the physical display ID to capture (default: 0)\nIf FILENAME ends with .png it will be saved as a png.\nIf FILENAME is not given, the results will be printed to stdout.")
					return 0
				}
			}
		default:
			file = a
		}
	}
	if strings.HasSuffix(file, ".png") {
		asPNG = true
	}
	p.screencaps.Add(1)
	p.holdThisScreencap()
	// data, then pix: a raw frame's pixels are the picture's own bytes
	// when they are its layout (RGBA_8888), written as they are rather
	// than copied (10 MB a capture at 1080×2400) into data.
	var data, pix []byte
	if asPNG {
		var err error
		data, err = p.ScreenshotPNG()
		if err != nil {
			fmt.Fprintln(c.Err, "Error: failed to capture the screen")
			return 1
		}
	} else {
		data, pix = rawFrame(p.Screenshot(), p.opts.RawFormat)
	}
	whole := func() { data, pix = append(data, pix...), nil }
	if w, h, lie := p.faultsNow().claimedScreen(); lie {
		whole()
		if asPNG {
			data = claimPNG(data, w, h)
		} else {
			data = claimRaw(data, w, h)
		}
	}
	if file != "" {
		whole()
		if err := p.fs.write(file, data, 0o660, false); err != nil {
			fmt.Fprintf(c.Err, "Error opening file: %s (%s).\n", file, errText(err))
			return 1
		}
		return 0
	}
	if c.Drop != nil && p.dropThisScreencap() {
		whole()
		c.Out.Write(data[:len(data)/2])
		c.Drop()
		return 1
	}
	c.Out.Write(data)
	if pix != nil {
		c.Out.Write(pix)
	}
	return 0
}

func cmdUiautomator(p *Phone, c *shell.IO, args []string) int {
	if len(args) == 0 || args[0] != "dump" {
		fmt.Fprintln(c.Err, "Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\nhelp: displays help message\n\ndump: creates an XML dump of current UI hierarchy\n    dump [--verbose][file]\n      [--compressed]: dumps compressed layout information.\n      [file]: the location where the dumped XML should be stored, default is\n      /sdcard/window_dump.xml")
		return 1
	}
	file := "/sdcard/window_dump.xml"
	for _, a := range args[1:] {
		if !strings.HasPrefix(a, "-") {
			file = a
		}
	}
	p.mu.Lock()
	idle := p.faults.idleError
	var dump []byte
	if !idle {
		dump = p.dumpLocked()
	}
	p.mu.Unlock()
	if idle {
		fmt.Fprintln(c.Err, "ERROR: could not get idle state.")
		return 0
	}
	if file == "/dev/tty" || file == "/proc/self/fd/1" {
		c.Out.Write(dump)
	} else if err := p.fs.write(file, dump, 0o660, false); err != nil {
		fmt.Fprintf(c.Err, "ERROR: could not write %s: %s\n", file, errText(err))
		return 1
	}
	fmt.Fprintf(c.Out, "UI hierchary dumped to: %s\n", file)
	return 0
}

// dropThisScreencap reports whether this screencap drops its connection
// midway (SetDropMidScreencap, or the one DropScreencap named).
func (p *Phone) dropThisScreencap() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.faults.dropScreencapAt > 0 {
		p.faults.dropScreencapAt--
		if p.faults.dropScreencapAt == 0 {
			return true
		}
	}
	return p.faults.dropScreencap
}

// rawFrame is screencap's raw output of img in format: its header and, in
// RGBA_8888 (or a vendor's four-byte number), img's own pixels, never to
// be written; in the other formats the header and the converted pixels,
// and nil.
func rawFrame(img *image.RGBA, format uint32) (data, pix []byte) {
	b, n := img.Bounds(), len(img.Pix)/4
	head := make([]byte, 16)
	binary.LittleEndian.PutUint32(head[0:], uint32(b.Dx()))
	binary.LittleEndian.PutUint32(head[4:], uint32(b.Dy()))
	binary.LittleEndian.PutUint32(head[8:], format)
	binary.LittleEndian.PutUint32(head[12:], 1) // dataspace sRGB
	switch format {
	case 3: // RGB_888
		data = append(make([]byte, 0, 16+3*n), head...)
		for i := 0; i+3 < len(img.Pix); i += 4 {
			data = append(data, img.Pix[i:i+3]...)
		}
	case 4: // RGB_565
		data = append(make([]byte, 0, 16+2*n), head...)
		for i := 0; i+3 < len(img.Pix); i += 4 {
			r, g, bl := uint16(img.Pix[i]), uint16(img.Pix[i+1]), uint16(img.Pix[i+2])
			data = binary.LittleEndian.AppendUint16(data, r>>3<<11|g>>2<<5|bl>>3)
		}
	default: // RGBA_8888, or four bytes a pixel under a vendor's number
		return head, img.Pix
	}
	return data, nil
}
