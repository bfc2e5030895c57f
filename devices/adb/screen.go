package adb

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net"
	"strings"
	"time"
	"unicode/utf8"

	"tandem/engine/device"
	"tandem/internal/encoded"
)

// maxScreenshot bounds a PNG screenshot (a 1440x3200 PNG is ~3-6 MB), and
// raw output that is not a frame; a raw frame is bounded by its screen's
// (bounds.go).
const maxScreenshot = 64 << 20

var (
	pngMagic = []byte("\x89PNG\r\n\x1a\n")
	pngEnd   = []byte("IEND\xae\x42\x60\x82") // the IEND chunk's type and CRC
)

// Screenshot captures the screen. Over USB and on emulators it fetches the
// raw frame (`screencap` without -p): a phone takes far longer to encode a
// PNG (0.6–3 s for a 1440x3120 screen) than USB 2 takes to carry the raw
// pixels (~0.3–0.7 s), and decoding a PNG here costs tens of milliseconds
// more. Over Wi-Fi bandwidth is the limit, so a network device (or any phone
// of another computer's adb server) sends a PNG;
// so does a phone whose raw output is not understood, from then on.
//
// A capture that is all black or that the phone refuses is a secure window
// (FLAG_SECURE) and is returned as device.ErrSecureScreen; a connection that
// drops mid-transfer is device.ErrGone.
//
// A capture whose connection breaks while the phone stays online is taken
// once more (again).
func (d *Device) Screenshot(ctx context.Context) (image.Image, error) {
	return again(ctx, func() (image.Image, error) { return d.screenshot(ctx) })
}

func (d *Device) screenshot(ctx context.Context) (image.Image, error) {
	if !d.pngOnly.Load() && !networkSerial(d.serial) && !d.srv.remote() {
		img, err := d.screenshotRaw(ctx)
		if !errors.Is(err, errRawFormat) {
			return img, err
		}
		d.pngOnly.Store(true)
	}
	return d.screenshotPNG(ctx)
}

// errRawFormat: the raw screencap output is not a layout this driver reads.
var errRawFormat = errors.New("unknown raw screencap format")

func (d *Device) screenshotRaw(ctx context.Context) (image.Image, error) {
	st, err := d.srv.Open(ctx, d.serial, "exec:screencap")
	if err != nil {
		return nil, err
	}
	d.srv.finite(st)
	c, err := d.frames.read(st, maxScreenshot)
	st.Close()
	if err != nil {
		return nil, d.srv.classify(ctx, d.serial, fmt.Errorf("exec \"screencap\": %w", err))
	}
	d.sumChecked(c.same != nil)
	if c.same != nil {
		return c.same, nil
	}
	raw := c.raw
	img, err := decodeRaw(raw)
	switch {
	case errors.Is(err, errStreamBroken):
		return nil, d.srv.classify(ctx, d.serial, fmt.Errorf("screencap: %w", err))
	case errors.Is(err, errNoImage):
		return nil, d.noImage(ctx, raw)
	case errors.Is(err, ErrScreenTooLarge):
		return nil, d.refuse("sent a raw screenshot of", err)
	case err != nil:
		return nil, err
	}
	if allBlack(img) {
		d.frames.give(raw)
		return nil, fmt.Errorf("%w: the screenshot is black (the app blocks screen capture)", device.ErrSecureScreen)
	}
	if len(img.Pix) > 0 && len(raw) >= 12 && &img.Pix[len(img.Pix)-1] != &raw[len(raw)-1] {
		d.frames.give(raw) // widened into a frame of its own: raw is no one's
		raw = nil
	}
	return d.frames.hand(img, raw, c.differs, asCaptured(img, raw)), nil
}

// asCaptured is raw's header when img's pixels are the bytes after it as
// the phone sent them (RGBA_8888 behind a 16-byte header), else nil.
func asCaptured(img *image.RGBA, raw []byte) []byte {
	if len(raw) != 16+len(img.Pix) || len(img.Pix) == 0 || &raw[16] != &img.Pix[0] || binary.LittleEndian.Uint32(raw[8:]) != 1 {
		return nil
	}
	return raw[:16:16]
}

// readRaw reads screencap's raw output. The header says how large the
// frame is, so the buffer is allocated once at its final size rather than
// regrown (and recopied) from 512 bytes to 10 MB and more on every
// capture, but only for a size a screen can have (screenFits): output that
// is not such a frame is read as it comes, up to limit bytes, and
// decodeRaw tells what it is.
func readRaw(r io.Reader, limit int64) ([]byte, error) { return readRawInto(r, limit, nil) }

// readRawInto is readRaw reading a frame into spare when it is large
// enough (a buffer no one else uses).
func readRawInto(r io.Reader, limit int64, spare []byte) ([]byte, error) {
	head := make([]byte, 12)
	n, err := io.ReadFull(r, head)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return head[:n], nil // too short for a frame: decodeRaw says what it is
		}
		return head[:n], err
	}
	w, h := binary.LittleEndian.Uint32(head), binary.LittleEndian.Uint32(head[4:])
	bpp := pixelBytes(binary.LittleEndian.Uint32(head[8:]))
	size := int64(16) + int64(w)*int64(h)*int64(bpp)
	switch {
	case !screenFits(int64(w), int64(h)) && !textLike(head):
		return head, nil // no screen is this size: decodeRaw refuses the header, unread the rest
	case !screenFits(int64(w), int64(h)):
		rest, err := io.ReadAll(io.LimitReader(r, maxWords))
		return append(head, rest...), err
	case bpp == 0:
		rest, err := io.ReadAll(io.LimitReader(r, limit-12))
		return append(head, rest...), err
	}
	buf := spare[:0]
	if int64(cap(spare)) < size {
		buf = make([]byte, 0, size)
	}
	buf = append(buf[:0], head...)[:size]
	n, err = io.ReadFull(r, buf[12:])
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return buf[:12+n], nil // a 12-byte header, or a cut stream: decodeRaw tells
	case err != nil:
		return buf[:12+n], err
	}
	// Anything after a full frame is not a frame this driver knows.
	var one [1]byte
	if m, _ := r.Read(one[:]); m > 0 {
		rest, err := io.ReadAll(io.LimitReader(r, max(limit-size-1, 0)))
		return append(append(buf, one[0]), rest...), err
	}
	return buf, nil
}

// maxWords bounds the words a phone prints instead of a frame (an error
// of screencap's, a shell's).
const maxWords = 64 << 10

// textLike reports whether b reads as the start of words (UTF-8 text
// with no control bytes but tabs and line ends, a character maybe cut at
// its end), not a frame's header, whose sizes hold zero bytes.
func textLike(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	for cut := 0; cut < 4 && cut <= len(b); cut++ {
		if utf8.Valid(b[:len(b)-cut]) {
			return true
		}
	}
	return false
}

// pixelBytes is the size of a pixel of a raw frame in Android's pixel
// format (PixelFormat.java): 0 for a format this driver does not read.
func pixelBytes(format uint32) int {
	switch format {
	case 1, 2, 5: // RGBA_8888, RGBX_8888, BGRA_8888
		return 4
	case 3: // RGB_888
		return 3
	case 4: // RGB_565, as some older phones send it
		return 2
	}
	return 0
}

// widen makes an RGBA frame of raw RGB_888 or RGB_565 pixels.
func widen(pix []byte, w, h int, format uint32) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	out := img.Pix
	for i, o := 0, 0; o < len(out); o += 4 {
		if format == 3 {
			out[o], out[o+1], out[o+2] = pix[i], pix[i+1], pix[i+2]
			i += 3
		} else {
			v := binary.LittleEndian.Uint16(pix[i:])
			r, g, b := byte(v>>11), byte(v>>5&0x3f), byte(v&0x1f)
			out[o], out[o+1], out[o+2] = r<<3|r>>2, g<<2|g>>4, b<<3|b>>2
			i += 2
		}
		out[o+3] = 0xff
	}
	return img
}

// errNoImage: the output holds no frame at all (words, or nothing).
var errNoImage = errors.New("no frame in the output")

// decodeRaw reads `screencap`'s raw output: little-endian width, height and
// pixel format, then (since Android 9) a dataspace word, then the pixels.
// The header size is told apart by the total length. A header larger than
// any screen is ErrScreenTooLarge, unless the output is words (whose first
// bytes read as a huge size).
func decodeRaw(raw []byte) (*image.RGBA, error) {
	if len(raw) < 12 {
		if len(raw) == 0 || utf8.Valid(raw) {
			return nil, errNoImage
		}
		return nil, fmt.Errorf("%w (%d bytes)", errStreamBroken, len(raw))
	}
	w, h, format := binary.LittleEndian.Uint32(raw), binary.LittleEndian.Uint32(raw[4:]), binary.LittleEndian.Uint32(raw[8:])
	if !screenFits(int64(w), int64(h)) {
		switch {
		case textLike(raw):
			return nil, errNoImage
		case w == 0 || h == 0:
			return nil, fmt.Errorf("%w: %dx%d", errRawFormat, w, h)
		}
		return nil, tooLarge(int64(w), int64(h))
	}
	bpp := pixelBytes(format)
	if bpp == 0 {
		return nil, fmt.Errorf("%w: pixel format %d", errRawFormat, format)
	}
	size := int(w) * int(h) * bpp
	var pix []byte
	switch {
	case len(raw) == 16+size:
		pix = raw[16:]
	case len(raw) == 12+size:
		pix = raw[12:]
	case len(raw) < 12+size:
		return nil, fmt.Errorf("%w (%d of %d bytes)", errStreamBroken, len(raw), 16+size)
	default:
		return nil, fmt.Errorf("%w: %d bytes for %dx%d", errRawFormat, len(raw), w, h)
	}
	if bpp != 4 {
		return widen(pix, int(w), int(h), format), nil
	}
	img := &image.RGBA{Pix: pix, Stride: int(w) * 4, Rect: image.Rect(0, 0, int(w), int(h))}
	switch format {
	case 1: // RGBA_8888: the layout image.RGBA uses
	case 2: // RGBX_8888: the fourth byte is not alpha
		for i := 3; i < len(pix); i += 4 {
			pix[i] = 0xff
		}
	case 5: // BGRA_8888
		for i := 0; i < len(pix); i += 4 {
			pix[i], pix[i+2] = pix[i+2], pix[i]
		}
	default:
		return nil, fmt.Errorf("%w: pixel format %d", errRawFormat, format)
	}
	return img, nil
}

func (d *Device) screenshotPNG(ctx context.Context) (image.Image, error) {
	raw, err := d.srv.Exec(ctx, d.serial, "screencap -p", maxScreenshot)
	if err != nil {
		return nil, err
	}
	start := bytes.Index(raw, pngMagic)
	if start < 0 {
		return nil, d.noImage(ctx, raw)
	}
	// A complete PNG ends with its IEND chunk. Without it the stream was
	// cut: ask the server at once, before the device can reconnect, and
	// without spending time decoding half a picture.
	if !bytes.HasSuffix(bytes.TrimRight(raw, "\r\n"), pngEnd) {
		return nil, d.srv.classify(ctx, d.serial, fmt.Errorf("screencap: %w (%d bytes, no PNG end)", errStreamBroken, len(raw)))
	}
	if err := checkPNG(raw[start:]); err != nil {
		return nil, d.refuse("sent a PNG screenshot of", err)
	}
	img, err := png.Decode(bytes.NewReader(raw[start:]))
	if err != nil {
		// A PNG that stops short means the connection was cut.
		return nil, d.srv.classify(ctx, d.serial, fmt.Errorf("screencap: %w (%d bytes): %w", errStreamBroken, len(raw), err))
	}
	if allBlack(img) {
		return nil, fmt.Errorf("%w: the screenshot is black (the app blocks screen capture)", device.ErrSecureScreen)
	}
	b := img.Bounds()
	if data := plainPNG(raw[start:]); data != nil && len(data) <= 2*b.Dx()*b.Dy() {
		// The phone's own bytes can go to the model as they are. Not
		// when they outweigh two bytes a pixel (a phone's screen takes
		// a fraction of that): an encode of ours is then the lighter.
		return &encoded.Image{Image: img, Data: data, MIME: "image/png"}, nil
	}
	return img, nil
}

// plainPNG returns the PNG p with only its critical chunks (IHDR, PLTE,
// IDAT, IEND): what a picture is, without the text and metadata a phone
// may add. Nil when p is not a well-formed chunk sequence.
func plainPNG(p []byte) []byte {
	if !bytes.HasPrefix(p, pngMagic) {
		return nil
	}
	out := make([]byte, 0, len(p))
	out = append(out, pngMagic...)
	for rest := p[len(pngMagic):]; len(rest) > 0; {
		if len(rest) < 12 {
			return nil
		}
		n := int64(binary.BigEndian.Uint32(rest))
		if n > int64(len(rest))-12 {
			return nil
		}
		c := rest[:12+n]
		if c[4]&0x20 == 0 { // an upper-case first letter: critical
			out = append(out, c...)
		}
		rest = rest[12+n:]
		if string(c[4:8]) == "IEND" {
			return out
		}
	}
	return nil
}

// noImage explains output without a picture: the phone printed an error
// instead, or the stream died before the header. Nothing at all is most
// likely a cut stream, so ask the server; words are a refusal (a secure
// window) unless the device is already gone.
func (d *Device) noImage(ctx context.Context, raw []byte) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		if gerr := d.srv.classify(ctx, d.serial, fmt.Errorf("screencap: %w", errStreamBroken)); errors.Is(gerr, device.ErrGone) || ctx.Err() != nil {
			return gerr
		}
	} else if st, serr := d.srv.State(ctx, d.serial); errors.Is(serr, device.ErrGone) || serr == nil && st != "device" {
		return fmt.Errorf("%w (%s): screencap: %s", device.ErrGone, st, clip(string(raw), 200))
	}
	return fmt.Errorf("%w: screencap returned no image: %q", device.ErrSecureScreen, clip(string(raw), 200))
}

// networkSerial reports whether a serial names a device reached over the
// network (Wi-Fi ADB: "192.168.1.20:5555", or an mDNS name), where the raw
// frame would be too slow. Loopback serials are local emulators and the
// virtual phone.
func networkSerial(serial string) bool {
	if strings.Contains(serial, "._adb-tls-") {
		return true
	}
	host, _, err := net.SplitHostPort(serial)
	if err != nil {
		return false
	}
	if ip := net.ParseIP(host); ip != nil {
		return !ip.IsLoopback()
	}
	return host != "localhost"
}

// clip is at most n bytes of s (whole characters) for a message, saying
// how long s was when it was cut: what a server or phone sent is quoted
// as an excerpt, never whole.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
}

// blackLimit is the brightest a channel may be for a pixel to count as black.
const blackLimit = 0x10

// allBlack reports whether every pixel is (nearly) black. It scans the pixel
// bytes directly and stops at the first lit pixel, so an ordinary screen
// costs almost nothing and only a truly black one is read in full.
func allBlack(img image.Image) bool {
	b := img.Bounds()
	switch m := img.(type) {
	case *image.NRGBA:
		return blackPix(m.Pix, m.Stride, b.Dx()*4, b.Dy())
	case *image.RGBA:
		return blackPix(m.Pix, m.Stride, b.Dx()*4, b.Dy())
	case *image.Paletted:
		if !litPalette(m) {
			return true
		}
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if lit(img.At(x, y)) {
				return false
			}
		}
	}
	return true
}

func lit(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return r>>8 > blackLimit || g>>8 > blackLimit || b>>8 > blackLimit
}

func litPalette(m *image.Paletted) bool {
	for _, c := range m.Palette {
		if lit(c) {
			return true
		}
	}
	return false
}

func blackPix(pix []byte, stride, rowBytes, rows int) bool {
	for y := 0; y < rows; y++ {
		row := pix[y*stride : y*stride+rowBytes]
		for i := 0; i < len(row); i += 4 {
			if row[i] > blackLimit || row[i+1] > blackLimit || row[i+2] > blackLimit {
				return false
			}
		}
	}
	return true
}

// ErrNotIdle is returned when `uiautomator dump` kept answering "could not
// get idle state" (an animation or video that never stops); the engine can
// fall back to the screenshot alone.
var ErrNotIdle = errors.New("ui tree unavailable: the screen never became idle")

// dumpPath is where uiautomator writes; the file is removed first so a
// failed dump can never return an old one.
const dumpPath = "/sdcard/window_dump.xml"

// UITree returns the uiautomator XML of the current screen. "could not get
// idle state" is retried a few times with a short pause, then ErrNotIdle.
func (d *Device) UITree(ctx context.Context) ([]byte, error) {
	cmd := "rm -f " + dumpPath + "; uiautomator dump " + dumpPath + " && cat " + dumpPath
	var last string
	for attempt := 0; attempt < d.retries; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Duration(attempt) * 150 * time.Millisecond):
			}
		}
		res, err := d.read(ctx, cmd)
		if err != nil {
			return nil, err
		}
		out := res.Stdout
		if i := bytes.Index(out, []byte("<?xml")); i >= 0 {
			out = out[i:]
		} else if i := bytes.Index(out, []byte("<hierarchy")); i >= 0 {
			out = out[i:]
		} else {
			last = res.Output()
			if strings.Contains(last, "could not get idle state") {
				continue
			}
			return nil, fmt.Errorf("uiautomator dump failed (exit %d): %s", res.Exit, clip(last, 300))
		}
		if end := bytes.LastIndex(out, []byte("</hierarchy>")); end >= 0 {
			return out[:end+len("</hierarchy>")], nil
		}
		return nil, fmt.Errorf("uiautomator dump: incomplete XML (%d bytes)", len(out))
	}
	return nil, fmt.Errorf("%w (%d tries): %s", ErrNotIdle, d.retries, clip(last, 200))
}
