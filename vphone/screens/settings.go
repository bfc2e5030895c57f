package screens

import (
	"fmt"
	"image"
	"image/color"
	"strconv"
)

// The Settings app: its switches and pages show and change the phone's
// settings store, the one `settings get` reads, under the keys a real
// phone uses (global wifi_on, bluetooth_on, airplane_mode_on; secure
// ui_night_mode 2 for dark; system screen_brightness 0-255 and
// system_locales).

// Settings keys the Settings app shows.
const (
	keyWiFi       = "global/wifi_on"
	keyBluetooth  = "global/bluetooth_on"
	keyAirplane   = "global/airplane_mode_on"
	keyNightMode  = "secure/ui_night_mode"
	keyBrightness = "system/screen_brightness"
	keyLocales    = "system/system_locales"
)

// Languages are the locales the Language page offers, with their names.
func Languages() [][2]string {
	return [][2]string{{"en-US", "English (United States)"}, {"zh-CN", "简体中文（中国）"}, {"fr-FR", "Français (France)"}, {"de-DE", "Deutsch (Deutschland)"}}
}

func (m *Model) initSettings() {
	defaults := map[string]string{keyWiFi: "1", keyBluetooth: "0", keyAirplane: "0", keyNightMode: "1", keyBrightness: "102", keyLocales: "en-US"}
	for k, v := range defaults {
		if _, ok := m.settings[k]; !ok {
			m.settings[k] = v
		}
	}
}

func (m *Model) setting(key string) string { return m.settings[key] }

func (m *Model) flip(key string) {
	m.settings[key] = map[bool]string{true: "0", false: "1"}[m.settings[key] == "1"]
}

func (m *Model) settingsScreen() *node {
	a, _ := m.App(PkgSettings)
	root, content := m.root(PkgSettings, white)
	switch m.settingsPage {
	case "display":
		content.add(m.appBar(PkgSettings, "Display", a.color))
		m.displayPage(content, a)
		return root
	case "language":
		content.add(m.appBar(PkgSettings, "Language", a.color))
		m.languagePage(content, a)
		return root
	}
	content.add(m.appBar(PkgSettings, "Settings", a.color))
	list := &node{class: "androidx.recyclerview.widget.RecyclerView", id: PkgSettings + ":id/recycler_view", bounds: m.rc(0, 240, designW, 1800)}
	content.add(list)
	rows := []struct{ id, title, key, page string }{
		{"wifi_switch", "Wi-Fi", keyWiFi, ""}, {"bluetooth_switch", "Bluetooth", keyBluetooth, ""},
		{"airplane_switch", "Airplane mode", keyAirplane, ""}, {"", "Display", "", "display"}, {"", "Sound", "", ""},
		{"", "Storage", "", ""}, {"", "Language", "", "language"}, {"", "About phone", "", ""},
	}
	for i, r := range rows {
		t := 260 + i*180
		row := &node{class: "android.widget.LinearLayout", bounds: m.rc(0, t, designW, t+170), look: lookRow}
		row.add(m.label("android:id/title", r.title, m.rc(60, t+40, 800, t+130), 48, textDark))
		switch {
		case r.key != "":
			key := r.key
			row.clickable, row.focusable, row.onTap = true, true, func(m *Model, _, _ int) { m.flip(key) }
			on := m.setting(key) == "1"
			row.add(&node{class: "android.widget.Switch", id: PkgSettings + ":id/" + r.id, text: map[bool]string{true: "ON", false: "OFF"}[on],
				desc: r.title, bounds: m.rc(860, t+45, 1020, t+125), look: lookSwitch, checkable: true, checked: on, focusable: true, accent: a.color,
				clickable: true, onTap: func(m *Model, _, _ int) { m.flip(key) }})
		case r.page != "":
			page := r.page
			row.clickable, row.focusable, row.onTap = true, true, func(m *Model, _, _ int) { m.settingsPage = page }
		}
		list.add(row)
	}
	return root
}

func (m *Model) displayPage(content *node, a App) {
	dark := m.setting(keyNightMode) == "2"
	row := &node{class: "android.widget.LinearLayout", bounds: m.rc(0, 260, designW, 430), look: lookRow, clickable: true, focusable: true,
		onTap: func(m *Model, _, _ int) { m.toggleDark() }}
	row.add(m.label("android:id/title", "Dark theme", m.rc(60, 300, 800, 390), 48, textDark),
		&node{class: "android.widget.Switch", id: PkgSettings + ":id/dark_switch", text: map[bool]string{true: "ON", false: "OFF"}[dark],
			desc: "Dark theme", bounds: m.rc(860, 305, 1020, 385), look: lookSwitch, checkable: true, checked: dark, focusable: true, accent: a.color,
			clickable: true, onTap: func(m *Model, _, _ int) { m.toggleDark() }})
	content.add(row)
	b, _ := strconv.Atoi(m.setting(keyBrightness))
	pct := (b*100 + 127) / 255
	content.add(m.label(PkgSettings+":id/brightness_label", fmt.Sprintf("Brightness: %d%%", pct), m.rc(60, 480, 1020, 560), 44, textDark))
	bar := m.rc(60, 600, 1020, 700)
	content.add(&node{class: "android.widget.SeekBar", id: PkgSettings + ":id/brightness", text: strconv.Itoa(pct), desc: "Brightness",
		bounds: bar, look: lookCustom, clickable: true, focusable: true, paint: seekPaint(pct, a.color),
		onTap: func(m *Model, x, _ int) {
			f := float64(x-bar.Min.X) / float64(bar.Dx())
			f = min(1, max(0, f))
			m.settings[keyBrightness] = strconv.Itoa(int(f*255 + 0.5))
		}})
	content.add(m.label(PkgSettings+":id/brightness_hint", "Tap the bar where you want it: left is dark, right is bright", m.rc(60, 720, 1020, 800), 34, textGrey))
}

func (m *Model) toggleDark() {
	if m.setting(keyNightMode) == "2" {
		m.settings[keyNightMode] = "1"
	} else {
		m.settings[keyNightMode] = "2"
	}
}

func (m *Model) languagePage(content *node, a App) {
	cur := m.setting(keyLocales)
	name := cur
	for _, l := range Languages() {
		if l[0] == cur {
			name = l[1]
		}
	}
	content.add(m.label(PkgSettings+":id/current_language", "Current language: "+name, m.rc(60, 270, 1020, 350), 40, textGrey))
	for i, l := range Languages() {
		t := 370 + i*180
		tag := l[0]
		row := &node{class: "android.widget.RadioButton", id: PkgSettings + ":id/language", text: l[1], bounds: m.rc(0, t, designW, t+170),
			look: lookRow, fg: textDark, size: 48, checkable: true, checked: cur == tag, selected: cur == tag, clickable: true, focusable: true,
			onTap: func(m *Model, _, _ int) { m.settings[keyLocales] = tag }}
		content.add(row)
	}
}

// seekPaint draws a seek bar filled to pct.
func seekPaint(pct int, accent color.RGBA) func(c *canvas, n *node) {
	return func(c *canvas, n *node) {
		r := n.bounds
		mid := r.Min.Y + r.Dy()/2
		track := image.Rect(r.Min.X, mid-c.Px(6), r.Max.X, mid+c.Px(6))
		c.RoundRect(track, c.Px(6), divider)
		x := r.Min.X + r.Dx()*pct/100
		c.RoundRect(image.Rect(r.Min.X, mid-c.Px(6), x, mid+c.Px(6)), c.Px(6), accent)
		c.Circle(x, mid, c.Px(24), accent)
	}
}
