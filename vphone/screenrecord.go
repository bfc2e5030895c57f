package vphone

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"tandem/vphone/encode"
	"tandem/vphone/shell"
)

// screenrecordMaxLimit is AOSP's cap on --time-limit (seconds); it is also
// the default.
const screenrecordMaxLimit = 180

const screenrecordUsage = `Usage: screenrecord [options] <filename>

Android screenrecord v1.4.  Records the device's display to a .mp4 file.

Options:
--size WIDTHxHEIGHT
    Set the video size, e.g. "1280x720".  Default is the device's main
    display resolution (if supported), 1280x720 if not.  For best results,
    use a size supported by the AVC encoder.
--bit-rate RATE
    Set the video bit rate, in bits per second.  Value may be specified as
    bits or megabits, e.g. '4000000' is equivalent to '4M'.  Default 20Mbps.
--time-limit TIME
    Set the maximum recording time, in seconds.  Default / maximum is 180.
--output-format FORMAT
    Format to output: 'mp4', 'h264', 'webm', '3gpp', 'frames' or 'raw-frames'.
    The virtual phone encodes 'h264' only.
--help
    Show this message.

Recording continues until Ctrl-C is hit or the time limit is reached.
`

// parseBitRate reads "4000000" or "4M" as AOSP's screenrecord does.
func parseBitRate(s string) (int, bool) {
	mul := 1
	switch {
	case strings.HasSuffix(s, "M"), strings.HasSuffix(s, "m"):
		mul, s = 1_000_000, s[:len(s)-1]
	case strings.HasSuffix(s, "K"), strings.HasSuffix(s, "k"):
		mul, s = 1_000, s[:len(s)-1]
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || n > 200_000_000/mul {
		return 0, false
	}
	return n * mul, true
}

// cmdScreenrecord records the screen as raw H.264 (Annex-B) to a file or to
// stdout ("-"), frames only when the picture changes, until the time limit,
// the host closing the stream, or the phone closing.
func cmdScreenrecord(p *Phone, c *shell.IO, args []string) int {
	o := recordArgs{w: p.opts.Width, h: p.opts.Height, bitRate: 20_000_000, limit: screenrecordMaxLimit, format: "mp4"}
	for i := 0; i < len(args); i++ {
		var code int
		var done bool
		if i, code, done = o.parse(c, args, i); done {
			return code
		}
	}
	if o.file == "" {
		fmt.Fprintln(c.Err, "Must specify output file (see --help).")
		return 2
	}
	if o.format != "h264" {
		fmt.Fprintf(c.Err, "ERROR: the virtual phone's encoder writes --output-format=h264 only, not %s\n", o.format)
		return 1
	}
	w, h := o.w, o.h
	if w%2 != 0 || h%2 != 0 || w > 4096 || h > 4096 {
		fmt.Fprintf(c.Err, "ERROR: unable to configure video/avc codec at %dx%d (err=-38)\n", w, h)
		return 1
	}
	toStdout := o.file == "-" || o.file == "/dev/stdout" || o.file == "/proc/self/fd/1"
	var buf bytes.Buffer
	out := c.Out
	if !toStdout {
		out = &buf
	}
	err := encode.Stream(c.Ctx, screen{p}, encode.Options{Width: w, Height: h, BitRate: o.bitRate, GOP: 600, Limit: time.Duration(o.limit) * time.Second, Letterbox: true},
		p.heldPictures(c.Ctx, func(pk encode.Packet) error {
			_, err := out.Write(pk.Data)
			return err
		}))
	if err != nil {
		fmt.Fprintf(c.Err, "ERROR: %v\n", err)
		return 1
	}
	if !toStdout {
		if err := p.fs.write(o.file, buf.Bytes(), 0o660, false); err != nil {
			fmt.Fprintf(c.Err, "Unable to open '%s': %s\n", o.file, errText(err))
			return 1
		}
	}
	return 0
}

// recordArgs are screenrecord's options.
type recordArgs struct {
	w, h, bitRate, limit int
	format, file         string
}

// parse reads the option at args[i] (and its value) and returns the index
// of the last argument it used; done means the command ends now with code.
func (o *recordArgs) parse(c *shell.IO, args []string, i int) (last, code int, done bool) {
	a := args[i]
	val := func() (string, bool) {
		if k, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(k, "--") {
			return v, true
		}
		if i+1 >= len(args) {
			fmt.Fprintf(c.Err, "screenrecord: option '%s' requires an argument\n", a)
			return "", false
		}
		i++
		return args[i], true
	}
	name, _, _ := strings.Cut(a, "=")
	switch name {
	case "--help", "-h":
		fmt.Fprint(c.Err, screenrecordUsage)
		return i, 0, true
	case "--verbose", "--rotate", "--bugreport", "--persistent-surface":
	case "--size", "--bit-rate", "--time-limit", "--output-format":
		v, ok := val()
		if !ok || !o.set(c, name, v) {
			return i, 2, true
		}
	case "--display-id", "--codec-name", "--bframes":
		if _, ok := val(); !ok {
			return i, 2, true
		}
	default:
		if strings.HasPrefix(a, "-") && a != "-" {
			fmt.Fprintf(c.Err, "screenrecord: unrecognized option '%s'\n", a)
			return i, 2, true
		}
		o.file = a
	}
	return i, 0, false
}

// set checks and sets the value v of option name, saying what is wrong as
// Android's screenrecord does.
func (o *recordArgs) set(c *shell.IO, name, v string) bool {
	switch name {
	case "--size":
		ws, hs, ok := strings.Cut(v, "x")
		nw, e1 := strconv.Atoi(ws)
		nh, e2 := strconv.Atoi(hs)
		if !ok || e1 != nil || e2 != nil || nw <= 0 || nh <= 0 {
			fmt.Fprintf(c.Err, "Invalid size '%s', must be width x height\n", v)
			return false
		}
		o.w, o.h = nw, nh
	case "--bit-rate":
		n, ok := parseBitRate(v)
		if !ok {
			fmt.Fprintf(c.Err, "Invalid bit rate '%s'\n", v)
			return false
		}
		o.bitRate = n
	case "--time-limit":
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > screenrecordMaxLimit {
			fmt.Fprintf(c.Err, "Time limit %ss outside acceptable range [1,%d]\n", v, screenrecordMaxLimit)
			return false
		}
		o.limit = n
	case "--output-format":
		switch v {
		case "mp4", "h264", "webm", "3gpp", "frames", "raw-frames":
			o.format = v
		default:
			fmt.Fprintf(c.Err, "Unknown format '%s'\n", v)
			return false
		}
	}
	return true
}
