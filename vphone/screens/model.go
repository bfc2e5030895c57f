package screens

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
type Model struct {
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
	settingsPage string // the Settings app's page: "" the list, "display", "language"
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
	// chores are the chore apps by package; settings is the phone's
	// settings store (namespace/key -> value), which the Settings app
	// shows and changes.
	chores   map[string]*recordsApp
	settings map[string]string
	chaos    chaos
}

// FormState is the Form app's fields.
type FormState struct {
	Name, Phone, City string
	Submitted         bool
}

// Config is what the apps are made for.
type Config struct {
	Width, Height int           // the screen in pixels (portrait)
	AnimationFor  time.Duration // how long the Animation app's ball moves
	CounterText   int           // the Counter's text size
	CaptchaCode   string        // the code the login screen's picture shows
	// Settings is the phone's settings store, shared with its `settings`
	// command (the caller holds one lock over both); nil: one of its own.
	Settings map[string]string
}

// New is the phone's apps at their start: the launcher in front.
func New(c Config, now func() time.Time) *Model {
	m := &Model{
		w: c.Width, h: c.Height, scale: float64(c.Width) / designW,
		apps: allApps(), animFor: c.AnimationFor, digits: c.CounterText, now: now,
		fg: PkgLauncher, captcha: c.CaptchaCode, chatOpen: -1, chatSent: map[int][]string{},
		chores: map[string]*recordsApp{}, settings: c.Settings,
	}
	if m.settings == nil {
		m.settings = map[string]string{}
	}
	m.initSettings()
	for _, d := range choreDefs() {
		m.chores[d.pkg] = newRecordsApp(d)
	}
	return m
}

func (m *Model) Changed() { m.version++ }

// designH is the screen height in design pixels.
func (m *Model) designH() int { return int(float64(m.h) / m.scale) }

// rc scales a rectangle from design pixels to screen pixels.
func (m *Model) rc(l, t, r, b int) image.Rectangle {
	s := m.scale
	return image.Rect(int(float64(l)*s+0.5), int(float64(t)*s+0.5), int(float64(r)*s+0.5), int(float64(b)*s+0.5))
}

func (m *Model) App(pkg string) (App, bool) {
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

// Launch brings pkg to the front on its first screen, as a cold start of a
// stopped app or a warm start of one in recents would.
func (m *Model) Launch(pkg string) bool {
	if _, ok := m.App(pkg); !ok {
		return false
	}
	m.fg, m.screen, m.focus = pkg, scrMain, ""
	m.chaos.shifted, m.chaos.shiftAt, m.chaos.popup = false, time.Time{}, false
	switch pkg {
	case PkgNotes:
		m.focus = PkgNotes + ":id/note_editor"
	case PkgDialog:
		m.dialogOpen = true
	case PkgChat:
		m.chatOpen = -1
	case PkgSettings:
		m.settingsPage = ""
	}
	if a := m.chores[pkg]; a != nil {
		a.scr, a.picker, a.confirm = "", "", false
	}
	if pkg != PkgLauncher {
		m.touchRecent(pkg)
	}
	m.Changed()
	return true
}

func (m *Model) touchRecent(pkg string) {
	out := []string{pkg}
	for _, p := range m.recents {
		if p != pkg {
			out = append(out, p)
		}
	}
	m.recents = out
}

func (m *Model) ForceStop(pkg string) {
	if a := m.chores[pkg]; a != nil { // its process ends: what its screens held goes (its table stays)
		a.scr, a.query, a.scroll, a.picker, a.confirm, a.editing = "", "", 0, "", false, 0
	}
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
	m.Changed()
}

// Activity is the foreground component as dumpsys shows it.
func (m *Model) Activity() App {
	if m.screen == scrRecents {
		return App{Package: PkgLauncher, Activity: "com.android.launcher3.RecentsActivity"}
	}
	a, _ := m.App(m.fg)
	return a
}

// Animating reports whether the Animation app is still moving at now.
func (m *Model) Animating(now time.Time) bool {
	return m.fg == PkgAnim && now.Before(m.animUntil)
}

// Frame identifies what the screen shows beyond the version: during an
// animation, the time since its start in 16 ms steps.
func (m *Model) Frame(now time.Time) int64 {
	if !m.Animating(now) {
		return -1
	}
	return int64(now.Sub(m.animStart) / (16 * time.Millisecond))
}

// ---- input ----

func (m *Model) Tap(x, y int) {
	root := m.Window()
	n := root.hit(x, y)
	if n != nil {
		n.onTap(m, x, y)
		m.Changed()
	}
	// Focusing a field answers at once; what opens or saves may load.
	m.afterInput(n == nil || n.value == nil)
}

func (m *Model) LongPress(x, y int) {
	// Nothing on these screens reacts to a long press differently.
	m.Tap(x, y)
}

// Swipe scrolls the scrollable view under the start point.
func (m *Model) Swipe(x1, y1, x2, y2 int) {
	root := m.Window()
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
		m.Changed()
	}
	if a := m.chores[m.fg]; a != nil && target.id == a.def.pkg+":id/list" {
		a.scroll = clamp(a.scroll+dy, 0, a.maxScroll(m))
		m.Changed()
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
func (m *Model) focused() *node {
	if m.focus == "" {
		return nil
	}
	if n := m.Window().find(m.focus); n != nil && n.value != nil {
		return n
	}
	return nil
}

// TypeText inserts s into the focused field; without one it goes nowhere,
// as on a phone.
func (m *Model) TypeText(s string) {
	n := m.focused()
	if n == nil {
		return
	}
	v := n.value(m)
	if !n.multi {
		s = strings.ReplaceAll(s, "\n", "")
	}
	*v += s
	m.Changed()
}

func (m *Model) ClearText() {
	if n := m.focused(); n != nil {
		*n.value(m) = ""
		m.Changed()
	}
}

func (m *Model) DeleteBack() {
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
	m.Changed()
}

func (m *Model) Enter() {
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
		m.Window().walk(func(c *node) {
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
	m.Changed()
}

func (m *Model) Back() {
	switch {
	case m.chaos.popup:
		m.chaos.popup = false
	case m.screen == scrRecents:
		m.screen = scrMain
	case m.fg == PkgDialog && m.dialogOpen:
		m.dialogOpen = false
	case m.fg == PkgChat && m.chatOpen >= 0:
		m.chatOpen, m.focus = -1, ""
	case m.chores[m.fg] != nil && m.chores[m.fg].back(m):
	case m.fg == PkgSettings && m.settingsPage != "":
		m.settingsPage = ""
	case m.fg != PkgLauncher:
		m.fg, m.screen, m.focus = PkgLauncher, scrMain, ""
	default:
		return
	}
	m.Changed()
}

func (m *Model) Home() {
	m.fg, m.screen, m.focus = PkgLauncher, scrMain, ""
	m.Changed()
}

func (m *Model) AppSwitch() {
	if m.screen == scrRecents {
		m.screen = scrMain
	} else {
		m.screen = scrRecents
	}
	m.Changed()
}

// Tab in a single-line field moves on as Enter does; in a text area it
// does nothing.
func (m *Model) Tab() {
	if f := m.focused(); f != nil && !f.multi {
		m.Enter()
	}
}
