package screens

import (
	"image"
	"math/rand/v2"
	"time"
)

// Chaos is what real phones do to an agent that a clean test phone does
// not: a keyboard that drops characters, a pop-up that comes in the middle
// of a task, an app slow to answer a tap, a layout that moves after a tap
// (a banner pushes the screen down). `tandem eval` turns them on to
// measure what Tandem's own features are worth. The zero Chaos is none.
type Chaos struct {
	DropChars float64       // the chance each character `input text` types is lost
	PopupRate float64       // the chance a tap brings up a "rate this app" pop-up
	SlowFor   time.Duration // after each input the app shows "Loading…" this long, taking no taps
	// ShiftAfter, when above 0, is how long after a tap a banner appears at
	// the top of the app and pushes its screen down (once per app launch).
	ShiftAfter time.Duration
	Seed       uint64
}

// chaos is the Chaos in force and what it did.
type chaos struct {
	Chaos
	rnd       *rand.Rand
	popup     bool
	busyUntil time.Time
	shiftAt   time.Time // zero: no banner due
	shifted   bool
}

const bannerH = 160 // design pixels the banner pushes the screen down

// SetChaos turns the faults on (a zero Chaos turns them off).
func (m *Model) SetChaos(c Chaos) {
	m.chaos = chaos{Chaos: c, rnd: rand.New(rand.NewPCG(c.Seed, 0x5eed))}
	m.Changed()
}

// Tick applies what time alone changes (a slow app answering, a banner
// appearing); the phone calls it before it shows the screen.
func (m *Model) Tick(now time.Time) {
	c := &m.chaos
	if !c.busyUntil.IsZero() && !now.Before(c.busyUntil) {
		c.busyUntil = time.Time{}
		m.Changed()
	}
	if !c.shiftAt.IsZero() && !now.Before(c.shiftAt) {
		c.shiftAt, c.shifted = time.Time{}, true
		m.Changed()
	}
}

// busy reports whether the app is still answering the last input.
func (m *Model) busy() bool { return !m.chaos.busyUntil.IsZero() && m.now().Before(m.chaos.busyUntil) }

// afterInput is the chaos that follows an input; tap says it was a tap
// that opens, saves or switches something (not one that focuses a field).
func (m *Model) afterInput(tap bool) {
	c := &m.chaos
	if c.rnd == nil || m.fg == PkgLauncher || m.busy() {
		return
	}
	if tap && c.SlowFor > 0 {
		c.busyUntil = m.now().Add(c.SlowFor)
	}
	if tap && c.PopupRate > 0 && !c.popup && c.rnd.Float64() < c.PopupRate {
		c.popup = true
	}
	if tap && c.ShiftAfter > 0 && !c.shifted && c.shiftAt.IsZero() {
		c.shiftAt = m.now().Add(c.ShiftAfter)
	}
}

// DropChars is s with each character lost at the chaos's rate: what
// `input text` delivers (ADB Keyboard's broadcasts arrive whole).
func (m *Model) DropChars(s string) string {
	c := &m.chaos
	if c.rnd == nil || c.DropChars <= 0 {
		return s
	}
	out := make([]rune, 0, len(s))
	for _, r := range s {
		if c.rnd.Float64() >= c.DropChars {
			out = append(out, r)
		}
	}
	return string(out)
}

// chaosModal is the pop-up or the loading veil, when one is up.
func (m *Model) chaosModal() *node {
	if m.busy() {
		mid := m.designH() / 2
		win := &node{class: "android.widget.FrameLayout", bounds: m.rc(240, mid-120, designW-240, mid+120), look: lookCard, bg: white,
			onTap: func(*Model, int, int) {}}
		l := m.label("android:id/progress_text", "Loading…", m.rc(240, mid-60, designW-240, mid+60), 46, textDark)
		l.center = true
		return win.add(l)
	}
	if !m.chaos.popup {
		return nil
	}
	mid := m.designH() / 2
	close := func(*Model, int, int) { m.chaos.popup = false }
	win := &node{class: "android.widget.FrameLayout", bounds: m.rc(90, mid-280, designW-90, mid+280), look: lookCard, bg: white}
	win.add(m.label("android:id/alertTitle", "Enjoying the app?", m.rc(150, mid-230, 930, mid-130), 52, textDark),
		m.label("android:id/message", "Rate us 5 stars on the store!", m.rc(150, mid-100, 930, mid+20), 40, textGrey),
		m.textButton("android:id/button2", "Not now", m.rc(380, mid+110, 640, mid+230), rgb(0x19, 0x76, 0xd2), close),
		m.textButton("android:id/button1", "Rate", m.rc(690, mid+110, 930, mid+230), rgb(0x19, 0x76, 0xd2), close))
	return win
}

// shift moves an activity's screen down under the banner.
func (m *Model) shift(root *node) *node {
	if !m.chaos.shifted || m.fg == PkgLauncher {
		return root
	}
	dy := m.rc(0, bannerH, 0, bannerH).Min.Y
	top := m.rc(0, 80, 0, 80).Min.Y
	var move func(n *node)
	move = func(n *node) {
		if n.bounds.Min.Y >= top {
			n.bounds = n.bounds.Add(image.Pt(0, dy)).Intersect(image.Rect(0, 0, m.w, m.h))
		}
		for _, c := range n.children {
			move(c)
		}
	}
	for _, c := range root.children {
		move(c)
	}
	banner := &node{class: "android.widget.TextView", id: "com.android.systemui:id/banner", text: "Update available · tap to install later",
		bounds: image.Rect(0, top, m.w, top+dy), look: lookText, bg: rgb(0xff, 0xf3, 0xc4), fg: textDark, size: 36, center: true}
	root.add(banner)
	return root
}
