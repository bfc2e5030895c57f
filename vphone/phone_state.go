package vphone

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"sort"
	"strconv"
	"time"

	"tandem/vphone/render"
	"tandem/vphone/screens"
)

// What the phone saw and shows, for tests and the app: state, events,
// bounds of elements, direct input, screenshots.

// ---- state API ----

// Screencaps returns how many screencap commands the phone has served.
func (p *Phone) Screencaps() int64 { return p.screencaps.Load() }

// Checksums returns how many cksum commands the phone has served (the
// driver's confirmations of a still screen).
func (p *Phone) Checksums() int64 { return p.checksums.Load() }

// State returns a snapshot of the phone's state.
func (p *Phone) State() State {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := State{State: p.m.State(p.now()), IME: p.ime}
	for k := range p.imes {
		st.IMEs = append(st.IMEs, k)
	}
	sort.Strings(st.IMEs)
	return st
}

// Events returns the inputs received so far, oldest first.
func (p *Phone) Events() []Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Event(nil), p.events...)
}

// CaptchaCode is the code the login screen's picture shows.
func (p *Phone) CaptchaCode() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m.Captcha()
}

// Size is the screen size in pixels.
func (p *Phone) Size() (w, h int) { return p.opts.Width, p.opts.Height }

// Bounds returns the bounds of the first node with the resource id (either
// "pkg:id/name" or just "name") on the current screen.
func (p *Phone) Bounds(id string) (image.Rectangle, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m.Bounds(id)
}

// BoundsOfText returns the bounds of the first node showing text or
// content-desc s on the current screen.
func (p *Phone) BoundsOfText(s string) (image.Rectangle, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m.BoundsOfText(s)
}

// Launch brings an app to the front, as tapping its icon would.
func (p *Phone) Launch(pkg string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.m.Launch(pkg) {
		return fmt.Errorf("vphone: no app %q", pkg)
	}
	return nil
}

// Tap taps at (x, y) as `input tap` would, without going through adb (for
// tests of the model itself).
func (p *Phone) Tap(x, y int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.record("tap", []string{strconv.Itoa(x), strconv.Itoa(y)}, x, y)
	p.m.Tap(x, y)
}

// Swipe swipes from (x1, y1) to (x2, y2) as `input swipe` would (without
// taking the gesture's time).
func (p *Phone) Swipe(x1, y1, x2, y2 int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.record("swipe", []string{strconv.Itoa(x1), strconv.Itoa(y1), strconv.Itoa(x2), strconv.Itoa(y2)}, x1, y1)
	p.m.Swipe(x1, y1, x2, y2)
}

// Key presses an Android key code (KEYCODE_BACK = 4, HOME = 3, ...).
func (p *Phone) Key(code int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.record("key", []string{strconv.Itoa(code)}, 0, 0)
	p.key(code)
}

// TypeText types s into the focused field, any Unicode, as a keyboard
// would.
func (p *Phone) TypeText(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.record("text", []string{s}, 0, 0)
	p.m.TypeText(s)
}

// Apps lists the launcher's apps.
func (p *Phone) Apps() []App {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m.Apps()
}

// UIDump returns what `uiautomator dump` would write now.
func (p *Phone) UIDump() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dumpLocked()
}

func (p *Phone) dumpLocked() []byte {
	p.m.Tick(p.now())
	return p.m.Dump(p.rotation, p.opts.Width, p.opts.Height)
}

func (p *Phone) record(kind string, args []string, x, y int) {
	e := Event{Kind: kind, Args: append([]string(nil), args...), X: x, Y: y, At: p.now()}
	p.events = append(p.events, e)
	if p.opts.EventLog != nil {
		line, err := json.Marshal(struct {
			Kind string    `json:"kind"`
			Args []string  `json:"args"`
			X    int       `json:"x"`
			Y    int       `json:"y"`
			At   time.Time `json:"at"`
		}{e.Kind, e.Args, e.X, e.Y, e.At})
		if err == nil {
			_, _ = p.opts.EventLog.Write(append(line, '\n'))
		}
	}
}

// Screenshot renders the screen (black while secure).
func (p *Phone) Screenshot() *image.RGBA {
	img, _ := p.shot(false)
	return img
}

// ScreenshotPNG returns the screen as PNG bytes (cached per state).
func (p *Phone) ScreenshotPNG() ([]byte, error) {
	_, b := p.shot(true)
	if b == nil {
		return nil, errors.New("vphone: png encoding failed")
	}
	return b, nil
}

// shot returns the current picture and, if wantPNG, its PNG encoding; both
// are cached for the state they show.
func (p *Phone) shot(wantPNG bool) (*image.RGBA, []byte) {
	p.rmu.Lock()
	defer p.rmu.Unlock()
	p.mu.Lock()
	now := p.now()
	p.m.Tick(now)
	key := shotKey{version: p.m.Version(), frame: p.m.Frame(now), secure: p.faults.secure, rotation: p.rotation}
	c := &p.cache
	if !c.hasImg || c.imgKey != key {
		if key.secure {
			dw, dh := p.displaySize()
			c.img = image.NewRGBA(image.Rect(0, 0, dw, dh))
			for i := 3; i < len(c.img.Pix); i += 4 {
				c.img.Pix[i] = 0xff
			}
		} else {
			c.img = render.Rotate(screens.Paint(p.m, p.fonts), key.rotation)
		}
		c.imgKey, c.hasImg = key, true
	}
	p.mu.Unlock()
	if !wantPNG {
		return c.img, nil
	}
	if !c.hasPNG || c.pngKey != key {
		var buf bytes.Buffer
		buf.Grow(len(c.img.Pix) / 16)
		if err := render.EncodePNG(&buf, c.img); err != nil {
			p.log.Error("vphone: png", "err", err)
			return c.img, nil
		}
		c.png, c.pngKey, c.hasPNG = buf.Bytes(), key, true
	}
	return c.img, c.png
}
