package adb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"time"

	"tandem/engine/device"
)

// maxScreenshot bounds a PNG screenshot (a 1440x3200 PNG is ~3-6 MB).
const maxScreenshot = 64 << 20

var (
	pngMagic = []byte("\x89PNG\r\n\x1a\n")
	pngEnd   = []byte("IEND\xae\x42\x60\x82") // the IEND chunk's type and CRC
)

// Screenshot captures the screen with `exec:screencap -p`. A capture that is
// all black or that the phone refuses is a secure window (FLAG_SECURE) and is
// returned as device.ErrSecureScreen; a connection that drops mid-transfer is
// device.ErrGone.
func (d *Device) Screenshot(ctx context.Context) (image.Image, error) {
	raw, err := d.srv.Exec(ctx, d.serial, "screencap -p", maxScreenshot)
	if err != nil {
		return nil, err
	}
	start := bytes.Index(raw, pngMagic)
	if start < 0 {
		// No PNG at all: the phone printed an error instead, or the stream
		// died before the header. Nothing at all is most likely a cut
		// stream, so wait briefly for the server to say so; words are a
		// refusal unless the device is already gone.
		if len(bytes.TrimSpace(raw)) == 0 {
			if gerr := d.srv.classify(ctx, d.serial, fmt.Errorf("screencap: %w", errStreamBroken)); errors.Is(gerr, device.ErrGone) || ctx.Err() != nil {
				return nil, gerr
			}
		} else if st, serr := d.srv.State(ctx, d.serial); errors.Is(serr, device.ErrGone) || serr == nil && st != "device" {
			return nil, fmt.Errorf("%w (%s): screencap: %s", device.ErrGone, st, clip(string(raw), 200))
		}
		return nil, fmt.Errorf("%w: screencap returned no image: %q", device.ErrSecureScreen, clip(string(raw), 200))
	}
	// A complete PNG ends with its IEND chunk. Without it the stream was
	// cut: ask the server at once, before the device can reconnect, and
	// without spending time decoding half a picture.
	if !bytes.HasSuffix(bytes.TrimRight(raw, "\r\n"), pngEnd) {
		return nil, d.srv.classify(ctx, d.serial, fmt.Errorf("screencap: %w (%d bytes, no PNG end)", errStreamBroken, len(raw)))
	}
	img, err := png.Decode(bytes.NewReader(raw[start:]))
	if err != nil {
		// A PNG that stops short means the connection was cut.
		return nil, d.srv.classify(ctx, d.serial, fmt.Errorf("screencap: %w (%d bytes): %w", errStreamBroken, len(raw), err))
	}
	if allBlack(img) {
		return nil, fmt.Errorf("%w: the screenshot is black (the app blocks screen capture)", device.ErrSecureScreen)
	}
	return img, nil
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
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
		res, err := d.sh(ctx, cmd)
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
