package screens

import (
	"fmt"
	"image"
	"image/color"
	"strconv"
	"time"
)

// The chore apps' pickers: a time as an hour and a five-minute step
// chosen on a dial-like grid, a date on a month's calendar with the month
// turned by arrows, a choice from a list. Each waits for OK (or a choice),
// as Material's pickers do, so a tap alone never sets the value.

func (a *recordsApp) column(key string) column {
	for _, c := range a.def.cols {
		if c.key == key {
			return c
		}
	}
	return column{}
}

// openPicker opens the picker of column key, starting from its value.
func (a *recordsApp) openPicker(m *Model, key string) {
	a.picker, m.focus = key, ""
	v := *a.draft[key]
	switch a.column(key).kind {
	case colTime:
		a.pickTmp = [3]int{8, 0, 0}
		if t, err := time.Parse("15:04", v); err == nil {
			a.pickTmp = [3]int{t.Hour(), t.Minute(), 0}
		}
	case colDate:
		d, err := time.Parse(time.DateOnly, v)
		if err != nil {
			d = m.now()
		}
		a.pickTmp = [3]int{d.Year(), int(d.Month()), d.Day()}
	case colText, colNumber, colChoice, colToggle:
	}
}

func (a *recordsApp) pickerWindow(m *Model, app App) *node {
	c := a.column(a.picker)
	mid := m.designH() / 2
	switch c.kind {
	case colTime:
		return a.timePicker(m, app, mid)
	case colDate:
		return a.datePicker(m, app, mid)
	case colText, colNumber, colChoice, colToggle:
	}
	return a.choicePicker(m, app, c, mid)
}

// dialogFrame is a picker's card from design top to bottom, with its title.
func (m *Model) dialogFrame(title string, top, bottom int) *node {
	win := &node{class: "android.widget.FrameLayout", bounds: m.rc(60, top, designW-60, bottom), look: lookCard, bg: white}
	win.add(m.label("android:id/alertTitle", title, m.rc(120, top+40, 960, top+130), 48, textDark))
	return win
}

func (a *recordsApp) okCancel(m *Model, app App, win *node, y int, ok func()) {
	win.add(m.textButton("android:id/button2", "Cancel", m.rc(440, y, 680, y+120), app.color, func(*Model, int, int) { a.picker = "" }),
		m.textButton("android:id/button1", "OK", m.rc(720, y, 960, y+120), app.color, func(*Model, int, int) { ok(); a.picker = "" }))
}

// cell is one choice of a picker's grid.
func (m *Model) cell(id, s string, r image.Rectangle, on bool, accent color.RGBA, tap func()) *node {
	n := &node{class: "android.widget.TextView", id: id, text: s, bounds: r, look: lookText, fg: textDark, size: 42, center: true,
		clickable: true, focusable: true, selected: on, onTap: func(*Model, int, int) { tap() }}
	if on {
		n.bg, n.fg = accent, white
	}
	return n
}

func (a *recordsApp) timePicker(m *Model, app App, mid int) *node {
	top := mid - 640
	win := m.dialogFrame("Set time", top, mid+640)
	p := &a.pickTmp
	head := m.label("android:id/time_header", fmt.Sprintf("%02d:%02d", p[0], p[1]), m.rc(120, top+140, 960, top+260), 80, app.color)
	head.center = true
	win.add(head, m.label("", "Hour", m.rc(120, top+270, 960, top+330), 34, textGrey))
	for h := range 24 {
		l, t := 120+(h%6)*140, top+340+(h/6)*110
		win.add(m.cell("android:id/hour", fmt.Sprintf("%02d", h), m.rc(l, t, l+130, t+100), p[0] == h, app.color, func() { p[0] = h }))
	}
	win.add(m.label("", "Minute", m.rc(120, top+790, 960, top+850), 34, textGrey))
	for i := range 12 {
		mi := i * 5
		l, t := 120+(i%6)*140, top+860+(i/6)*110
		win.add(m.cell("android:id/minute", fmt.Sprintf("%02d", mi), m.rc(l, t, l+130, t+100), p[1] == mi, app.color, func() { p[1] = mi }))
	}
	key := a.picker
	a.okCancel(m, app, win, top+1110, func() { *a.draft[key] = fmt.Sprintf("%02d:%02d", p[0], p[1]) })
	return win
}

func (a *recordsApp) datePicker(m *Model, app App, mid int) *node {
	top := mid - 640
	win := m.dialogFrame("Set date", top, mid+640)
	p := &a.pickTmp
	first := time.Date(p[0], time.Month(p[1]), 1, 0, 0, 0, 0, time.UTC)
	days := first.AddDate(0, 1, -1).Day()
	p[2] = min(p[2], days)
	chosen := time.Date(p[0], time.Month(p[1]), p[2], 0, 0, 0, 0, time.UTC)
	head := m.label("android:id/date_header", chosen.Format("Mon, 2 Jan 2006"), m.rc(120, top+130, 960, top+200), 40, app.color)
	win.add(head)
	month := m.label("android:id/month", first.Format("January 2006"), m.rc(260, top+200, 820, top+270), 42, textDark)
	month.center = true
	turn := func(n int) func() {
		return func() {
			d := first.AddDate(0, n, 0)
			p[0], p[1] = d.Year(), int(d.Month())
		}
	}
	win.add(month,
		m.cell("android:id/prev", "‹", m.rc(120, top+200, 240, top+270), false, app.color, turn(-1)),
		m.cell("android:id/next", "›", m.rc(840, top+200, 960, top+270), false, app.color, turn(1)))
	for i, wd := range []string{"S", "M", "T", "W", "T", "F", "S"} {
		l := 120 + i*120
		h := m.label("", wd, m.rc(l, top+270, l+110, top+330), 34, textGrey)
		h.center = true
		win.add(h)
	}
	off := int(first.Weekday())
	for d := 1; d <= days; d++ {
		k := off + d - 1
		l, t := 120+(k%7)*120, top+340+(k/7)*120
		day := d
		c := m.cell("android:id/day", strconv.Itoa(d), m.rc(l, t, l+110, t+110), p[2] == d, app.color, func() { p[2] = day })
		c.desc = first.AddDate(0, 0, d-1).Format("2 January 2006")
		win.add(c)
	}
	key := a.picker
	a.okCancel(m, app, win, top+1110, func() { *a.draft[key] = fmt.Sprintf("%04d-%02d-%02d", p[0], p[1], p[2]) })
	return win
}

func (a *recordsApp) choicePicker(m *Model, app App, c column, mid int) *node {
	h := 140 + len(c.choices)*130 + 60
	top := mid - h/2
	win := m.dialogFrame(c.label, top, top+h)
	v := a.draft[c.key]
	for i, ch := range c.choices {
		t := top + 150 + i*130
		choice := ch
		win.add(m.cell("android:id/text1", ch, m.rc(120, t, 960, t+120), *v == ch, app.color, func() { *v, a.picker = choice, "" }))
	}
	return win
}
