package vphone

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"sort"
	"strconv"
	"strings"
	"tandem/vphone/render"
)

// What the phone saw and shows, for tests and the app: state, events,
// bounds of elements, direct input, screenshots.

// ---- state API ----

// State returns a snapshot of the phone's state.
func (p *Phone) State() State {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.m
	act := m.activity()
	st := State{
		Foreground: m.fg, Activity: act.Activity, Recents: m.screen == scrRecents,
		Counter: m.counter, Note: m.note, Form: m.form,
		ListScroll: int(float64(m.listScroll) * m.scale), ListSelected: m.listSelected,
		DialogOpen: m.fg == PkgDialog && m.dialogOpen, WiFi: m.wifi, Bluetooth: m.bluetooth, Paid: m.paid,
		Username: m.username, LoggedIn: m.loggedIn, Animating: m.animating(p.now()), AnimTaps: m.animTaps,
		GameScore: m.gameScore, Focus: m.focus, IME: p.ime, Version: m.version,
	}
	if m.chatOpen >= 0 {
		st.ChatSent = append([]string(nil), m.chatSent[m.chatOpen]...)
	}
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
	return p.m.captcha
}

// Size is the screen size in pixels.
func (p *Phone) Size() (w, h int) { return p.opts.Width, p.opts.Height }

// Bounds returns the bounds of the first node with the resource id (either
// "pkg:id/name" or just "name") on the current screen.
func (p *Phone) Bounds(id string) (image.Rectangle, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	win := p.m.window()
	n := win.find(id)
	if n == nil && !strings.Contains(id, ":id/") {
		win.walk(func(c *node) {
			if n == nil && strings.HasSuffix(c.id, ":id/"+id) {
				n = c
			}
		})
	}
	if n == nil {
		return image.Rectangle{}, false
	}
	return n.bounds, true
}

// BoundsOfText returns the bounds of the first node showing text or
// content-desc s on the current screen.
func (p *Phone) BoundsOfText(s string) (image.Rectangle, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var found *node
	p.m.window().walk(func(c *node) {
		if found == nil && (c.text == s || c.desc == s) {
			found = c
		}
	})
	if found == nil {
		return image.Rectangle{}, false
	}
	return found.bounds, true
}

// Launch brings an app to the front, as tapping its icon would.
func (p *Phone) Launch(pkg string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.m.launch(pkg) {
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
	p.m.tap(x, y)
}

// Swipe swipes from (x1, y1) to (x2, y2) as `input swipe` would (without
// taking the gesture's time).
func (p *Phone) Swipe(x1, y1, x2, y2 int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.record("swipe", []string{strconv.Itoa(x1), strconv.Itoa(y1), strconv.Itoa(x2), strconv.Itoa(y2)}, x1, y1)
	p.m.swipe(x1, y1, x2, y2)
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
	p.m.typeText(s)
}

// Apps lists the launcher's apps.
func (p *Phone) Apps() []App {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]App(nil), p.m.apps...)
}

// UIDump returns what `uiautomator dump` would write now.
func (p *Phone) UIDump() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dumpLocked()
}

func (p *Phone) dumpLocked() []byte {
	pkg := p.m.fg
	if p.m.screen == scrRecents {
		pkg = PkgLauncher
	}
	return dumpXML(p.m.window(), pkg, p.rotation, p.opts.Width, p.opts.Height)
}

func (p *Phone) record(kind string, args []string, x, y int) {
	p.events = append(p.events, Event{Kind: kind, Args: append([]string(nil), args...), X: x, Y: y, At: p.now()})
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
	key := shotKey{version: p.m.version, frame: p.m.frame(now), secure: p.faults.secure, rotation: p.rotation}
	c := &p.cache
	if !c.hasImg || c.imgKey != key {
		if key.secure {
			dw, dh := p.displaySize()
			c.img = image.NewRGBA(image.Rect(0, 0, dw, dh))
			for i := 3; i < len(c.img.Pix); i += 4 {
				c.img.Pix[i] = 0xff
			}
		} else {
			c.img = render.Rotate(paintScreen(p.m, p.fonts), key.rotation)
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
