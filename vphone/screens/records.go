package screens

import (
	"cmp"
	"fmt"
	"image"
	"image/color"
	"slices"
	"strconv"
	"strings"
)

// The chore apps (Contacts, Clock, Calendar, Expenses, To-do, Files) are
// each a table of records behind the screens real apps of their kind have:
// a list that scrolls, with search, an add button and a switch on rows
// that carry one; a form to add or edit a record whose text fields sit under
// a keyboard that covers the lower part of the screen, whose times, dates
// and choices are set in pickers, and whose Delete asks in a dialog. Their
// tables are the phone's own state, read and written through `content`
// (content://PKG/TABLE), as a check reads a real phone's provider.

// colKind says how a column is shown and set.
type colKind int

const (
	colText   colKind = iota // an EditText
	colNumber                // an EditText for digits
	colTime                  // HH:MM, set in the time picker
	colDate                  // YYYY-MM-DD, set in the date picker
	colChoice                // one of choices, set in a list dialog
	colToggle                // "1" or "0", a switch (also on the list's row when the app's toggle)
)

type column struct {
	key, label string
	kind       colKind
	choices    []string
	on         bool // a toggle a new record starts with on
}

// record is one row: column -> value, with "_id".
type record map[string]string

func (r record) id() int { n, _ := strconv.Atoi(r["_id"]); return n }

// recordsDef is what makes one chore app.
type recordsDef struct {
	pkg, table  string
	title, noun string // "Contacts", "contact"
	cols        []column
	toggle      string // the column whose switch is on each row ("" none)
	search      bool
	// line is a row's two lines in the list.
	line func(r record) (title, sub string)
	// less orders the list.
	less func(a, b record) int
	seed []record
}

// recordsApp is one chore app's table and what its screens show now.
type recordsApp struct {
	def  recordsDef
	rows []record
	next int

	scr     string // "" the list, "form"
	scroll  int    // design pixels
	query   string
	editing int                // the record in the form (0: a new one)
	draft   map[string]*string // the form's values
	picker  string             // the column whose picker is open ("" none)
	pickTmp [3]int             // the picker's choice so far (hour, minute, -) or (year, month, day)
	confirm bool               // the delete dialog is open
}

const (
	scrForm    = "form"
	recRowH    = 170
	recListTop = 400
	recFABRoom = 340 // the list scrolls its last row above the add button
)

func newRecordsApp(d recordsDef) *recordsApp {
	a := &recordsApp{def: d, next: 1}
	for _, r := range d.seed {
		a.insert(r)
	}
	return a
}

// insert adds a copy of r with the next id and returns that id.
func (a *recordsApp) insert(r record) int {
	c := record{}
	for _, col := range a.def.cols {
		c[col.key] = r[col.key]
	}
	if v := r["_id"]; v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= a.next {
			a.next = n
		}
	}
	c["_id"] = strconv.Itoa(a.next)
	a.next++
	a.rows = append(a.rows, c)
	return a.next - 1
}

func (a *recordsApp) byID(id int) record {
	for _, r := range a.rows {
		if r.id() == id {
			return r
		}
	}
	return nil
}

func (a *recordsApp) remove(id int) {
	a.rows = slices.DeleteFunc(a.rows, func(r record) bool { return r.id() == id })
}

// shown is the list as it shows now: searched and ordered.
func (a *recordsApp) shown() []record {
	q := strings.ToLower(strings.TrimSpace(a.query))
	var out []record
	for _, r := range a.rows {
		if q == "" || a.matches(r, q) {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(x, y record) int {
		if a.def.less != nil {
			if c := a.def.less(x, y); c != 0 {
				return c
			}
		}
		return cmp.Compare(x.id(), y.id())
	})
	return out
}

func (a *recordsApp) matches(r record, q string) bool {
	for _, c := range a.def.cols {
		if c.kind == colText && strings.Contains(strings.ToLower(r[c.key]), q) {
			return true
		}
	}
	return false
}

// open shows the form for record id (0: a new one).
func (a *recordsApp) open(m *Model, id int) {
	a.scr, a.editing, a.picker, a.confirm = scrForm, id, "", false
	a.draft = map[string]*string{}
	r := a.byID(id)
	for _, c := range a.def.cols {
		v := ""
		if r != nil {
			v = r[c.key]
		} else if c.kind == colToggle {
			v = map[bool]string{true: "1", false: "0"}[c.on]
		}
		a.draft[c.key] = &v
	}
	m.focus = ""
	if id == 0 {
		for _, c := range a.def.cols {
			if c.kind == colText || c.kind == colNumber {
				m.focus = a.fieldID(c.key)
				break
			}
		}
	}
}

// fieldID is the resource id of the form's field for column key.
func (a *recordsApp) fieldID(key string) string { return a.def.pkg + ":id/" + key + "_field" }

// save writes the form back; a new record needs its first text column.
func (a *recordsApp) save(m *Model) {
	first := a.def.cols[0].key
	if strings.TrimSpace(*a.draft[first]) == "" {
		return
	}
	r := a.byID(a.editing)
	if r == nil {
		r = record{}
		for k, v := range a.draft {
			r[k] = strings.TrimSpace(*v)
		}
		a.insert(r)
	} else {
		for k, v := range a.draft {
			r[k] = strings.TrimSpace(*v)
		}
	}
	a.scr, m.focus = "", ""
}

// back goes one level up; false when the list is showing with nothing open
// (the system takes the app away).
func (a *recordsApp) back(m *Model) bool {
	switch {
	case a.picker != "":
		a.picker = ""
	case a.confirm:
		a.confirm = false
	case m.focus != "" && strings.HasPrefix(m.focus, a.def.pkg+":"):
		m.focus = "" // the keyboard goes first
	case a.scr == scrForm:
		a.scr = ""
	case a.query != "":
		a.query, a.scroll = "", 0
	default:
		return false
	}
	return true
}

func (a *recordsApp) maxScroll(m *Model) int {
	view := m.designH() - 40 - recListTop
	return max(0, len(a.shown())*recRowH+recFABRoom-view)
}

// keyboardTop is where the keyboard starts, in design pixels, while a
// field of this app has the focus (0: no keyboard).
func (a *recordsApp) keyboardTop(m *Model) int {
	if m.focus == "" || !strings.HasPrefix(m.focus, a.def.pkg+":") {
		return 0
	}
	return m.designH() * 58 / 100
}

// window is the app's screen now.
func (a *recordsApp) window(m *Model) *node {
	app, _ := m.App(a.def.pkg)
	root, content := m.root(a.def.pkg, white)
	if a.scr == scrForm {
		a.formScreen(m, app, content)
	} else {
		a.listScreen(m, app, content)
	}
	if kb := a.keyboardTop(m); kb > 0 {
		hideBelow(content, m.rc(0, kb, designW, m.designH()).Min.Y)
		content.add(m.keyboard(kb))
	}
	return root
}

// modal is the dialog open over the app's screen (nil: none): the window a
// dump shows and taps reach while it is open, as on a phone.
func (a *recordsApp) modal(m *Model) *node {
	app, _ := m.App(a.def.pkg)
	switch {
	case a.picker != "":
		return a.pickerWindow(m, app)
	case a.confirm:
		return a.confirmWindow(m, app)
	}
	return nil
}

// hideBelow drops the nodes the keyboard covers: what starts below its top.
func hideBelow(n *node, y int) {
	n.children = slices.DeleteFunc(n.children, func(c *node) bool { return c.bounds.Min.Y >= y })
	for _, c := range n.children {
		if c.bounds.Max.Y > y && len(c.children) > 0 {
			hideBelow(c, y)
		}
	}
}

func (a *recordsApp) listScreen(m *Model, app App, content *node) {
	content.add(m.appBar(a.def.pkg, a.def.title, app.color))
	if a.def.search {
		s := m.edit(a.def.pkg+":id/search", "Search "+a.def.title, m.rc(40, 260, designW-40, 380), func(*Model) *string { return &a.query })
		s.onEnter = func(m *Model) { m.focus = "" }
		content.add(s)
		if a.query != "" {
			content.add(&node{class: "android.widget.ImageButton", id: a.def.pkg + ":id/search_clear", desc: "Clear search", text: "×",
				bounds: m.rc(920, 270, 1030, 370), look: lookText, fg: textGrey, size: 56, center: true, clickable: true, focusable: true,
				onTap: func(m *Model, _, _ int) { a.query, a.scroll = "", 0 }})
		}
	}
	rows := a.shown()
	top, bottom := recListTop, m.designH()-40
	a.scroll = clamp(a.scroll, 0, a.maxScroll(m))
	list := &node{class: "androidx.recyclerview.widget.RecyclerView", id: a.def.pkg + ":id/list",
		bounds: m.rc(0, top, designW, bottom), scrollable: a.maxScroll(m) > 0, focusable: true}
	content.add(list)
	if len(rows) == 0 {
		e := m.label(a.def.pkg+":id/empty", "No "+a.def.noun+"s", m.rc(0, top+200, designW, top+300), 44, textGrey)
		e.center = true
		list.add(e)
	}
	for i, r := range rows {
		t := top + i*recRowH - a.scroll
		if t+recRowH <= top {
			continue
		}
		if t >= bottom {
			break
		}
		list.add(a.row(m, app, r, t, top, bottom))
	}
	content.add(m.fab(a.def.pkg+":id/add", "Add "+a.def.noun, app.color, func(m *Model, _, _ int) { a.open(m, 0) }))
}

// row is one record in the list, clipped to the list's view.
func (a *recordsApp) row(m *Model, app App, r record, t, top, bottom int) *node {
	id := r.id()
	vt, vb := max(t, top), min(t+recRowH, bottom)
	title, sub := a.def.line(r)
	row := &node{class: "android.widget.LinearLayout", id: a.def.pkg + ":id/row", bounds: m.rc(0, vt, designW, vb), look: lookRow,
		clickable: true, focusable: true, onTap: func(m *Model, _, _ int) { a.open(m, id) }}
	row.paint = rowPaint(m.rc(0, t, designW, t+recRowH))
	if t >= top && t+recRowH <= bottom { // a row cut by the edge shows no words to tap
		row.add(m.label(a.def.pkg+":id/row_title", title, m.rc(60, t+20, 820, t+95), 46, textDark))
		if sub != "" {
			row.add(m.label(a.def.pkg+":id/row_subtitle", sub, m.rc(60, t+95, 820, t+155), 34, textGrey))
		}
		if a.def.toggle != "" {
			key := a.def.toggle
			on := r[key] == "1"
			row.add(&node{class: "android.widget.Switch", id: a.def.pkg + ":id/row_switch", text: map[bool]string{true: "ON", false: "OFF"}[on],
				desc: title, bounds: m.rc(860, t+45, 1020, t+125), look: lookSwitch, checkable: true, checked: on, clickable: true,
				focusable: true, accent: app.color, onTap: func(*Model, int, int) { r[key] = map[bool]string{true: "0", false: "1"}[on] }})
		}
	}
	return row
}

func (a *recordsApp) formScreen(m *Model, app App, content *node) {
	verb := "New "
	if a.editing != 0 {
		verb = "Edit "
	}
	content.add(m.appBar(a.def.pkg, verb+a.def.noun, app.color))
	content.add(&node{class: "android.widget.Button", id: a.def.pkg + ":id/save", text: "Save", bounds: m.rc(800, 100, 1040, 220),
		look: lookText, fg: white, size: 46, center: true, clickable: true, focusable: true, onTap: func(m *Model, _, _ int) { a.save(m) }})
	y := 280
	for _, c := range a.def.cols {
		content.add(m.label(a.def.pkg+":id/"+c.key+"_label", c.label, m.rc(60, y, 1020, y+60), 36, textGrey))
		content.add(a.field(m, app, c, y+60))
		y += 230
	}
	if a.editing != 0 {
		content.add(m.button(a.def.pkg+":id/delete", "Delete", m.rc(60, y+40, 1020, y+180), rgb(0xd3, 0x2f, 0x2f),
			func(*Model, int, int) { a.confirm = true }))
	}
}

// field is the form's control for column c at design y.
func (a *recordsApp) field(m *Model, app App, c column, y int) *node {
	id := a.fieldID(c.key)
	v := a.draft[c.key]
	r := m.rc(60, y, 1020, y+140)
	switch c.kind {
	case colText, colNumber:
		e := m.edit(id, c.label, r, func(*Model) *string { return v })
		return e
	case colToggle:
		on := *v == "1"
		return &node{class: "android.widget.Switch", id: id, text: map[bool]string{true: "ON", false: "OFF"}[on], desc: c.label,
			bounds: m.rc(60, y+20, 240, y+110), look: lookSwitch, checkable: true, checked: on, clickable: true, focusable: true,
			accent: app.color, onTap: func(*Model, int, int) { *v = map[bool]string{true: "0", false: "1"}[on] }}
	case colTime, colDate, colChoice:
	}
	shown := *v
	if shown == "" {
		shown = "Set " + strings.ToLower(c.label)
	}
	key := c.key
	return &node{class: "android.widget.Spinner", id: id, text: shown, bounds: r, look: lookCard, bg: bgLight, fg: textDark, size: 46,
		clickable: true, focusable: true, onTap: func(m *Model, _, _ int) { a.openPicker(m, key) }}
}

func (a *recordsApp) confirmWindow(m *Model, app App) *node {
	title, _ := a.def.line(a.byID(a.editing))
	mid := m.designH() / 2
	win := &node{class: "android.widget.FrameLayout", bounds: m.rc(90, mid-260, designW-90, mid+260), look: lookCard, bg: white}
	win.add(m.label("android:id/alertTitle", "Delete "+a.def.noun+"?", m.rc(150, mid-210, 930, mid-110), 52, textDark),
		m.label("android:id/message", fmt.Sprintf("“%s” will be deleted.", title), m.rc(150, mid-80, 930, mid+40), 40, textGrey),
		m.textButton("android:id/button2", "Cancel", m.rc(420, mid+100, 660, mid+220), app.color, func(*Model, int, int) { a.confirm = false }),
		m.textButton("android:id/button1", "Delete", m.rc(690, mid+100, 930, mid+220), rgb(0xd3, 0x2f, 0x2f), func(m *Model, _, _ int) {
			a.remove(a.editing)
			a.confirm, a.scr, m.focus = false, "", ""
		}))
	return win
}

// ---- shared pieces of the chore apps ----

func (m *Model) fab(id, desc string, accent color.RGBA, tap func(m *Model, x, y int)) *node {
	dh := m.designH()
	return &node{class: "android.widget.ImageButton", id: id, desc: desc, bounds: m.rc(820, dh-300, 1000, dh-120), look: lookIcon,
		accent: accent, glyph: "+", fg: white, clickable: true, focusable: true, onTap: tap}
}

func (m *Model) textButton(id, s string, r image.Rectangle, fg color.RGBA, tap func(m *Model, x, y int)) *node {
	return &node{class: "android.widget.Button", id: id, text: s, bounds: r, look: lookText, fg: fg, size: 42, center: true,
		clickable: true, focusable: true, onTap: tap}
}

// keyboard is the on-screen keyboard from design y to the bottom: it
// takes no taps of its own here (text comes through `input text` or ADB
// Keyboard), but hides what lies under it.
func (m *Model) keyboard(top int) *node {
	dh := m.designH()
	kb := &node{class: "android.inputmethodservice.KeyboardView", id: "com.android.inputmethod.latin:id/keyboard_view",
		bounds: m.rc(0, top, designW, dh), look: lookText, bg: rgb(0xd1, 0xd4, 0xd9), onTap: func(*Model, int, int) {}}
	rows := []string{"q w e r t y u i o p", "a s d f g h j k l", "z x c v b n m", "?123   space   ⏎"}
	h := (dh - top - 60) / len(rows)
	for i, s := range rows {
		t := top + 30 + i*h
		l := m.label("", s, m.rc(0, t, designW, t+h), 48, textDark)
		l.center = true
		kb.add(l)
	}
	return kb
}
