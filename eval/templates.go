package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Templates are the suite's task templates, in the order they list.
func Templates() []Template {
	var out []Template
	for _, part := range [][]Template{settingsTemplates(), recordTemplates(), listTemplates(), formTemplates(), crossTemplates(), personTemplates(), moreTemplates(), askTemplates()} {
		out = append(out, part...)
	}
	return out
}

const (
	uriContacts = "content://com.tandem.contacts/contacts"
	uriAlarms   = "content://com.tandem.clock/alarms"
	uriEvents   = "content://com.tandem.calendar/events"
	uriExpenses = "content://com.tandem.expenses/expenses"
	uriTodo     = "content://com.tandem.todo/tasks"
	uriFiles    = "content://com.tandem.files/files"
	uriChat     = "content://com.tencent.mm/messages"
	uriNotes    = "content://com.tandem.notes/notes"
	uriOrders   = "content://com.tandem.shop/orders"
)

// home puts the phone on its home screen with the apps closed.
func home(pkgs ...string) []string {
	var out []string
	for _, p := range pkgs {
		out = append(out, "am force-stop "+p)
	}
	return append(out, "input keyevent KEYCODE_HOME")
}

// checkSetting is a check that NS KEY reads want.
func checkSetting(ns, key, want string) func(context.Context, Phone, Outcome) (bool, error) {
	return func(ctx context.Context, p Phone, _ Outcome) (bool, error) {
		v, err := setting(ctx, p, ns, key)
		return v == want, err
	}
}

// checkRow is a check that uri has a row with want.
func checkRow(uri string, cols []string, want map[string]string) func(context.Context, Phone, Outcome) (bool, error) {
	return func(ctx context.Context, p Phone, _ Outcome) (bool, error) {
		rs, err := rows(ctx, p, uri, cols...)
		return has(rs, want), err
	}
}

func onOff(on bool) string { return map[bool]string{true: "1", false: "0"}[on] }

func settingsTemplates() []Template {
	type sw struct{ ns, key, label, zh string }
	switches := []sw{{"global", "wifi_on", "Wi-Fi", "Wi-Fi"}, {"global", "bluetooth_on", "Bluetooth", "蓝牙"}, {"global", "airplane_mode_on", "Airplane mode", "飞行模式"}}
	return []Template{
		{Name: "settings_switch", Tier: Simple, Apps: []string{"Settings"}, Source: "AndroidWorld SystemWifiTurnOn/Off, SystemBluetoothTurnOn/Off",
			Make: func(r *rand.Rand) Spec {
				s, on := pick(r, switches), r.IntN(2) == 1
				verb := map[bool]string{true: "on", false: "off"}[on]
				goal := fmt.Sprintf("Turn %s %s.", s.label, verb)
				if r.IntN(2) == 0 {
					goal = map[bool]string{true: "打开", false: "关闭"}[on] + s.zh
				}
				return Spec{Goal: goal, Setup: append(home("com.android.settings"), fmt.Sprintf("settings put %s %s %s", s.ns, s.key, onOff(!on))),
					Check: checkSetting(s.ns, s.key, onOff(on)),
					Solve: func(sc *Screen) []Act { return settingsSwitch(sc, s.label, on) }}
			}},
		{Name: "dark_theme", Tier: Simple, Apps: []string{"Settings"}, Source: "AndroidWorld (system settings); a person's request",
			Make: func(r *rand.Rand) Spec {
				on := r.IntN(2) == 1
				goal := map[bool]string{true: "Turn on the dark theme.", false: "Turn off the dark theme."}[on]
				if r.IntN(2) == 0 {
					goal = map[bool]string{true: "把手机切换到深色模式", false: "关闭深色模式"}[on]
				}
				want := map[bool]string{true: "2", false: "1"}[on]
				return Spec{Goal: goal, Setup: append(home("com.android.settings"), "settings put secure ui_night_mode "+map[bool]string{true: "1", false: "2"}[on]),
					Check: checkSetting("secure", "ui_night_mode", want),
					Solve: func(sc *Screen) []Act { return darkTheme(sc, on) }}
			}},
		{Name: "brightness", Tier: Simple, Apps: []string{"Settings"}, Source: "AndroidWorld SystemBrightnessMax/Min (single/system.py; a level instead of an end)",
			Make: func(r *rand.Rand) Spec {
				pct := 10 + 10*r.IntN(9)
				return Spec{Goal: fmt.Sprintf("Set the screen brightness to %d%%.", pct),
					Setup: append(home("com.android.settings"), fmt.Sprintf("settings put system screen_brightness %d", farFrom(pct))),
					Check: func(ctx context.Context, p Phone, _ Outcome) (bool, error) {
						v, err := setting(ctx, p, "system", "screen_brightness")
						n, _ := strconv.Atoi(v)
						got := (n*100 + 127) / 255
						return got >= pct-2 && got <= pct+2, err
					},
					Solve: func(sc *Screen) []Act { return brightness(sc, pct) }}
			}},
		{Name: "language", Tier: Medium, Apps: []string{"Settings"}, Source: "a person's request (AndroidWorld has no language task)",
			Make: func(r *rand.Rand) Spec {
				langs := [][3]string{{"zh-CN", "简体中文（中国）", "Change the phone's language to Chinese."}, {"fr-FR", "Français (France)", "把手机语言改成法语"},
					{"de-DE", "Deutsch (Deutschland)", "Switch the phone's language to German."}}
				l := pick(r, langs)
				return Spec{Goal: l[2], Setup: append(home("com.android.settings"), "settings put system system_locales en-US"),
					Check: checkSetting("system", "system_locales", l[0]),
					Solve: func(sc *Screen) []Act { return language(sc, l[1]) }}
			}},
	}
}

func settingsSwitch(s *Screen, label string, on bool) []Act {
	if a := inApp(s, "Settings", "Settings", "Display", "Language"); a != nil {
		return a
	}
	if s.Title() != "Settings" {
		return []Act{key("back")}
	}
	return flipTo(s.FindType("switch", "("+label+")"), label, on)
}

// toDisplay is the way to Settings' Display page; nil when it is in front.
func toDisplay(s *Screen) []Act {
	if a := inApp(s, "Settings", "Settings", "Display", "Language"); a != nil {
		return a
	}
	switch s.Title() {
	case "Settings":
		return []Act{tap(s.Find("Display"))}
	case "Language":
		return []Act{key("back")}
	}
	return nil
}

// flipTo taps a switch named name until it reads on, then finishes.
func flipTo(sw *El, name string, on bool) []Act {
	if sw == nil {
		return []Act{fail("no " + name + " switch")}
	}
	if strings.HasPrefix(sw.Text, "ON") == on {
		return []Act{finish(name + " is " + map[bool]string{true: "on", false: "off"}[on])}
	}
	return []Act{tap(sw)}
}

func darkTheme(s *Screen, on bool) []Act {
	if a := toDisplay(s); a != nil {
		return a
	}
	return flipTo(s.FindType("switch", "(Dark theme)"), "the dark theme", on)
}

func brightness(s *Screen, pct int) []Act {
	if a := toDisplay(s); a != nil {
		return a
	}
	l := s.Find("Brightness: ")
	if l == nil {
		return []Act{fail("no brightness level shown")}
	}
	got, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(l.Text, "Brightness: "), "%"))
	if got >= pct-2 && got <= pct+2 {
		return []Act{finish(fmt.Sprintf("brightness is %d%%", got))}
	}
	var bar *El
	for i := range s.Els {
		if s.Els[i].Bounds[1] > l.Bounds[3]-2 && len(s.Els[i].Actions) > 0 {
			bar = &s.Els[i]
			break
		}
	}
	if bar == nil {
		return []Act{fail("no brightness bar")}
	}
	x := bar.Bounds[0] + (bar.Bounds[2]-bar.Bounds[0])*pct/100
	return []Act{{Tool: "tap", Args: map[string]any{"x": x, "y": bar.cy()}}}
}

func language(s *Screen, name string) []Act {
	if a := inApp(s, "Settings", "Settings", "Display", "Language"); a != nil {
		return a
	}
	switch s.Title() {
	case "Settings":
		return []Act{tap(s.Find("Language"))}
	case "Display":
		return []Act{key("back")}
	}
	e := s.Find(name)
	if e == nil {
		return []Act{fail("no " + name)}
	}
	if s.Has("Current language: " + name) {
		return []Act{finish("the language is " + name)}
	}
	return []Act{tap(e)}
}

// farFrom is a brightness (0-255) at least 40 points of percent from pct,
// so the phone never starts the task done.
func farFrom(pct int) int {
	if pct <= 50 {
		return 230 // 90%
	}
	return 26 // 10%
}
