package vphone

import (
	"image"
	"strings"
	"time"
	"unicode/utf8"
)

// designW is the width the layouts are written for; everything is scaled
// by width/designW, so other screen sizes keep the same proportions.
const designW = 1080

// screen names within apps (the launcher and recents are apps of their own).
const (
	scrMain    = ""
	scrRecents = "recents"
	scrChat    = "chat"
)

// model is the phone's state. It is only touched with Phone.mu held.
type model struct {
	w, h    int
	scale   float64
	apps    []App
	animFor time.Duration
	digits  int // the Counter's text size
	now     func() time.Time
	version uint64 // bumped on every change; keys the screenshot cache

	fg      string // foreground package
	screen  string // sub-screen of fg
	recents []string
	focus   string // resource id of the focused field

	counter      int
	note         string
	form         FormState
	formError    string
	listScroll   int // design pixels
	listSelected int // 1-based, 0 = none
	dialogOpen   bool
	wifi         bool
	bluetooth    bool
	paid         bool
	username     string
	captchaIn    string
	captcha      string
	loggedIn     bool
	loginError   string
	animStart    time.Time
	animUntil    time.Time
	animTaps     int
	gameScore    int
	chatOpen     int
	chatDraft    string
	chatSent     map[int][]string
}

// FormState is the Form app's fields.
type FormState struct {
	Name, Phone, City string
	Submitted         bool
}

func newModel(o *Options, now func() time.Time) *model {
	m := &model{
		w: o.Width, h: o.Height, scale: float64(o.Width) / designW,
		apps: builtinApps(), animFor: o.AnimationFor, digits: o.CounterText, now: now,
		fg: PkgLauncher, wifi: true, captcha: o.CaptchaCode, chatOpen: -1, chatSent: map[int][]string{},
	}
	return m
}

func (m *model) changed() { m.version++ }

// designH is the screen height in design pixels.
func (m *model) designH() int { return int(float64(m.h) / m.scale) }

// rc scales a rectangle from design pixels to screen pixels.
func (m *model) rc(l, t, r, b int) image.Rectangle {
	s := m.scale
	return image.Rect(int(float64(l)*s+0.5), int(float64(t)*s+0.5), int(float64(r)*s+0.5), int(float64(b)*s+0.5))
}

func (m *model) app(pkg string) (App, bool) {
	for _, a := range m.apps {
		if a.Package == pkg {
			return a, true
		}
	}
	if pkg == PkgLauncher {
		return App{Package: PkgLauncher, Label: "Launcher", Activity: "com.android.launcher3.Launcher"}, true
	}
	return App{}, false
}

// launch brings pkg to the front on its first screen, as a cold start of a
// stopped app or a warm start of one in recents would.
func (m *model) launch(pkg string) bool {
	if _, ok := m.app(pkg); !ok {
		return false
	}
	m.fg, m.screen, m.focus = pkg, scrMain, ""
	switch pkg {
	case PkgNotes:
		m.focus = PkgNotes + ":id/note_editor"
	case PkgDialog:
		m.dialogOpen = true
	case PkgChat:
		m.chatOpen = -1
	}
	if pkg != PkgLauncher {
		m.touchRecent(pkg)
	}
	m.changed()
	return true
}

func (m *model) touchRecent(pkg string) {
	out := []string{pkg}
	for _, p := range m.recents {
		if p != pkg {
			out = append(out, p)
		}
	}
	m.recents = out
}

func (m *model) forceStop(pkg string) {
	out := m.recents[:0]
	for _, p := range m.recents {
		if p != pkg {
			out = append(out, p)
		}
	}
	m.recents = out
	if m.fg == pkg {
		m.fg, m.screen, m.focus = PkgLauncher, scrMain, ""
	}
	m.changed()
}

// activity is the foreground component as dumpsys shows it.
func (m *model) activity() App {
	if m.screen == scrRecents {
		return App{Package: PkgLauncher, Activity: "com.android.launcher3.RecentsActivity"}
	}
	a, _ := m.app(m.fg)
	return a
}

// animating reports whether the Animation app is still moving at now.
func (m *model) animating(now time.Time) bool {
	return m.fg == PkgAnim && now.Before(m.animUntil)
}

// frame identifies what the screen shows beyond the version: during an
// animation, the time since its start in 16 ms steps.
func (m *model) frame(now time.Time) int64 {
	if !m.animating(now) {
		return -1
	}
	return int64(now.Sub(m.animStart) / (16 * time.Millisecond))
}

// ---- input ----

func (m *model) tap(x, y int) {
	root := m.window()
	if n := root.hit(x, y); n != nil {
		n.onTap(m, x, y)
		m.changed()
	}
}

func (m *model) longPress(x, y int) {
	// Nothing on these screens reacts to a long press differently.
	m.tap(x, y)
}

// swipe scrolls the scrollable view under the start point.
func (m *model) swipe(x1, y1, x2, y2 int) {
	root := m.window()
	var target *node
	p := image.Pt(x1, y1)
	root.walk(func(n *node) {
		if n.scrollable && p.In(n.bounds) {
			target = n
		}
	})
	if target == nil {
		return
	}
	dy := int(float64(y1-y2) / m.scale)
	if target.id == PkgList+":id/list" {
		m.listScroll = clamp(m.listScroll+dy, 0, m.listMaxScroll())
		m.changed()
	}
}

func clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// focused returns the focused editable node of the current window.
func (m *model) focused() *node {
	if m.focus == "" {
		return nil
	}
	if n := m.window().find(m.focus); n != nil && n.value != nil {
		return n
	}
	return nil
}

// typeText inserts s into the focused field; without one it goes nowhere,
// as on a phone.
func (m *model) typeText(s string) {
	n := m.focused()
	if n == nil {
		return
	}
	v := n.value(m)
	if !n.multi {
		s = strings.ReplaceAll(s, "\n", "")
	}
	*v += s
	m.changed()
}

func (m *model) clearText() {
	if n := m.focused(); n != nil {
		*n.value(m) = ""
		m.changed()
	}
}

func (m *model) deleteBack() {
	n := m.focused()
	if n == nil {
		return
	}
	v := n.value(m)
	if *v == "" {
		return
	}
	_, size := utf8.DecodeLastRuneInString(*v)
	*v = (*v)[:len(*v)-size]
	m.changed()
}

func (m *model) enter() {
	n := m.focused()
	if n == nil {
		return
	}
	switch {
	case n.multi:
		*n.value(m) += "\n"
	case n.onEnter != nil:
		n.onEnter(m)
	default:
		// IME action "next": focus the following field.
		var edits []*node
		m.window().walk(func(c *node) {
			if c.value != nil {
				edits = append(edits, c)
			}
		})
		for i, e := range edits {
			if e.id == n.id && i+1 < len(edits) {
				m.focus = edits[i+1].id
			}
		}
	}
	m.changed()
}

func (m *model) back() {
	switch {
	case m.screen == scrRecents:
		m.screen = scrMain
	case m.fg == PkgDialog && m.dialogOpen:
		m.dialogOpen = false
	case m.fg == PkgChat && m.chatOpen >= 0:
		m.chatOpen, m.focus = -1, ""
	case m.fg != PkgLauncher:
		m.fg, m.screen, m.focus = PkgLauncher, scrMain, ""
	default:
		return
	}
	m.changed()
}

func (m *model) home() {
	m.fg, m.screen, m.focus = PkgLauncher, scrMain, ""
	m.changed()
}

func (m *model) appSwitch() {
	if m.screen == scrRecents {
		m.screen = scrMain
	} else {
		m.screen = scrRecents
	}
	m.changed()
}
