package screens

import (
	"image"
	"strings"
	"time"
)

// What the phone reads of its apps. The Model is not safe for concurrent
// use: the phone's lock covers every call.

// State is what the apps show and hold, for tests and tools.
type State struct {
	Foreground   string // package in front
	Activity     string // its activity class
	Recents      bool   // the recent-apps screen is open
	Counter      int
	Note         string
	Form         FormState
	ListScroll   int // pixels the list is scrolled by
	ListSelected int // the tapped list item (1-based), 0 = none
	DialogOpen   bool
	WiFi         bool // the Settings toggle
	Bluetooth    bool
	Paid         bool
	Username     string
	LoggedIn     bool
	Animating    bool
	AnimTaps     int
	GameScore    int
	ChatSent     []string // messages sent in the open or last chat
	Focus        string   // resource id of the focused field
	Version      uint64   // bumped on every visible change
}

// State is the apps' state at now.
func (m *Model) State(now time.Time) State {
	st := State{
		Foreground: m.fg, Activity: m.Activity().Activity, Recents: m.screen == scrRecents,
		Counter: m.counter, Note: m.note, Form: m.form,
		ListScroll: int(float64(m.listScroll) * m.scale), ListSelected: m.listSelected,
		DialogOpen: m.fg == PkgDialog && m.dialogOpen, WiFi: m.setting(keyWiFi) == "1", Bluetooth: m.setting(keyBluetooth) == "1", Paid: m.paid,
		Username: m.username, LoggedIn: m.loggedIn, Animating: m.Animating(now), AnimTaps: m.animTaps,
		GameScore: m.gameScore, Focus: m.focus, Version: m.version,
	}
	if m.chatOpen >= 0 {
		st.ChatSent = append([]string(nil), m.chatSent[m.chatOpen]...)
	}
	return st
}

// Foreground is the package in front.
func (m *Model) Foreground() string { return m.fg }

// Showing reports whether pkg's main screen is in front.
func (m *Model) Showing(pkg string) bool { return m.fg == pkg && m.screen == scrMain }

// Apps are the installed apps.
func (m *Model) Apps() []App { return append([]App(nil), m.apps...) }

// Scale is screen pixels per design pixel.
func (m *Model) Scale() float64 { return m.scale }

// Version is bumped on every visible change.
func (m *Model) Version() uint64 { return m.version }

// Captcha is the code the login screen's picture shows.
func (m *Model) Captcha() string { return m.captcha }

// Dump is the `uiautomator dump` of the screen, on a display turned by rot
// whose portrait size is w x h.
func (m *Model) Dump(rot, w, h int) []byte {
	pkg := m.fg
	if m.screen == scrRecents {
		pkg = PkgLauncher
	}
	return dumpXML(m.Window(), pkg, rot, w, h)
}

// Bounds are the bounds of the first node with the resource id (either
// "pkg:id/name" or just "name") on the screen.
func (m *Model) Bounds(id string) (image.Rectangle, bool) {
	win := m.Window()
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

// BoundsOfText are the bounds of the first node showing text or
// content-desc s on the screen.
func (m *Model) BoundsOfText(s string) (image.Rectangle, bool) {
	var found *node
	m.Window().walk(func(c *node) {
		if found == nil && (c.text == s || c.desc == s) {
			found = c
		}
	})
	if found == nil {
		return image.Rectangle{}, false
	}
	return found.bounds, true
}
