package screens

import (
	"fmt"
	"image"
	"image/color"
	"strings"
	"unicode/utf8"
)

// The screens of the built-in apps, each a tree of nodes built from the
// model's state (the renderer and the uiautomator dump both read it).

// ---- screens ----

// Window returns the tree of the active window: the dialog when one is
// open, else the foreground activity.
func (m *Model) Window() *node {
	if m.screen == scrRecents {
		return m.recentsScreen()
	}
	if d := m.modal(); d != nil {
		return d
	}
	return m.shift(m.activityWindow())
}

// modal is the dialog window open over the activity, if any.
func (m *Model) modal() *node {
	if m.screen != scrRecents && m.fg != PkgLauncher {
		if d := m.chaosModal(); d != nil {
			return d
		}
	}
	if m.fg == PkgDialog && m.dialogOpen {
		return m.dialogWindow()
	}
	if a := m.chores[m.fg]; a != nil {
		return a.modal(m)
	}
	return nil
}

func (m *Model) activityWindow() *node {
	switch m.fg {
	case PkgCounter:
		return m.counterScreen()
	case PkgNotes:
		return m.notesScreen()
	case PkgList:
		return m.listScreen()
	case PkgDialog:
		return m.dialogScreen()
	case PkgSettings:
		return m.settingsScreen()
	case PkgShop:
		return m.shopScreen()
	case PkgLogin:
		return m.loginScreen()
	case PkgAnim:
		return m.animScreen()
	case PkgGame:
		return m.gameScreen()
	case PkgForm:
		return m.formScreen()
	case PkgChat:
		if m.chatOpen >= 0 {
			return m.chatScreen()
		}
		return m.chatListScreen()
	default:
		if a := m.chores[m.fg]; a != nil {
			return a.window(m)
		}
		return m.launcherScreen()
	}
}

var (
	white     = rgb(0xff, 0xff, 0xff)
	textDark  = rgb(0x21, 0x21, 0x21)
	textGrey  = rgb(0x75, 0x75, 0x75)
	bgLight   = rgb(0xf5, 0xf5, 0xf5)
	divider   = rgb(0xe0, 0xe0, 0xe0)
	wallpaper = rgb(0x26, 0x32, 0x38)
)

// root builds the activity's DecorView-like frame: FrameLayout >
// LinearLayout > FrameLayout(android:id/content).
func (m *Model) root(pkg string, bg color.RGBA) (root, content *node) {
	full := image.Rect(0, 0, m.w, m.h)
	content = &node{class: "android.widget.FrameLayout", id: "android:id/content", bounds: full, bg: bg, look: lookText}
	root = &node{class: "android.widget.FrameLayout", bounds: full}
	root.add(&node{class: "android.widget.LinearLayout", bounds: full, children: []*node{content}})
	return root, content
}

func (m *Model) appBar(pkg, title string, accent color.RGBA) *node {
	return &node{class: "android.widget.TextView", id: pkg + ":id/title", text: title,
		bounds: m.rc(0, 80, designW, 240), look: lookBar, bg: accent, fg: white, size: 56}
}

func (m *Model) label(id, s string, r image.Rectangle, size int, fg color.RGBA) *node {
	return &node{class: "android.widget.TextView", id: id, text: s, bounds: r, look: lookText, fg: fg, size: size}
}

func (m *Model) button(id, s string, r image.Rectangle, accent color.RGBA, tap func(m *Model, x, y int)) *node {
	return &node{class: "android.widget.Button", id: id, text: s, bounds: r, look: lookButton,
		bg: accent, fg: white, size: 48, center: true, clickable: true, focusable: true, onTap: tap}
}

func (m *Model) edit(id, hint string, r image.Rectangle, value func(m *Model) *string) *node {
	n := &node{class: "android.widget.EditText", id: id, bounds: r, look: lookEdit, fg: textDark,
		size: 46, hint: hint, clickable: true, focusable: true, longClickable: true, value: value}
	n.text = *value(m)
	n.focused = m.focus == id
	n.onTap = func(m *Model, _, _ int) { m.focus = id }
	return n
}

func (m *Model) launcherScreen() *node {
	root, content := m.root(PkgLauncher, wallpaper)
	grid := &node{class: "android.view.ViewGroup", id: PkgLauncher + ":id/workspace", bounds: m.rc(0, 120, designW, m.designH()-200)}
	content.add(grid)
	const cols, cellW, cellH = 4, 270, 300
	for i, a := range m.apps {
		l, t := (i%cols)*cellW, 200+(i/cols)*cellH
		pkg := a.Package
		grid.add(&node{class: "android.widget.TextView", text: a.Label, desc: a.Label,
			bounds: m.rc(l, t, l+cellW, t+cellH-20), look: lookIcon, fg: white, size: 38,
			accent: a.color, glyph: a.glyph, clickable: true, focusable: true, longClickable: true,
			onTap: func(m *Model, _, _ int) { m.Launch(pkg) }})
	}
	return root
}

func (m *Model) recentsScreen() *node {
	root, content := m.root(PkgLauncher, rgb(0x42, 0x42, 0x42))
	list := &node{class: "androidx.recyclerview.widget.RecyclerView", id: PkgLauncher + ":id/overview_panel", bounds: m.rc(0, 120, designW, m.designH()-300)}
	content.add(list)
	if len(m.recents) == 0 {
		list.add(m.label(PkgLauncher+":id/empty", "No recent items", m.rc(0, 900, designW, 1000), 48, white))
		list.children[0].center = true
	}
	for i, pkg := range m.recents {
		if i >= 5 {
			break
		}
		a, _ := m.App(pkg)
		t := 200 + i*300
		p := pkg
		list.add(&node{class: "android.widget.FrameLayout", desc: a.Label, text: "", id: PkgLauncher + ":id/snapshot",
			bounds: m.rc(90, t, designW-90, t+260), look: lookCard, bg: white, fg: textDark, size: 48,
			glyph: a.Label, accent: a.color, clickable: true, focusable: true,
			onTap: func(m *Model, _, _ int) { m.Launch(p) }})
	}
	content.add(m.button(PkgLauncher+":id/clear_all", "Clear all", m.rc(340, m.designH()-260, 740, m.designH()-140), rgb(0x61, 0x61, 0x61),
		func(m *Model, _, _ int) { m.recents = nil; m.Home() }))
	return root
}

func (m *Model) counterScreen() *node {
	a, _ := m.App(PkgCounter)
	root, content := m.root(PkgCounter, white)
	content.add(m.appBar(PkgCounter, "Counter", a.color))
	v := m.label(PkgCounter+":id/counter_value", fmt.Sprint(m.counter), m.rc(0, 600, designW, 900), m.digits, textDark)
	v.center = true
	content.add(v,
		m.button(PkgCounter+":id/minus", "-1", m.rc(140, 1100, 500, 1300), rgb(0x75, 0x75, 0x75), func(m *Model, _, _ int) { m.counter-- }),
		m.button(PkgCounter+":id/plus", "+1", m.rc(580, 1100, 940, 1300), a.color, func(m *Model, _, _ int) { m.counter++ }),
		m.button(PkgCounter+":id/reset", "Reset", m.rc(360, 1400, 720, 1560), rgb(0x9e, 0x9e, 0x9e), func(m *Model, _, _ int) { m.counter = 0 }),
	)
	return root
}

func (m *Model) notesScreen() *node {
	a, _ := m.App(PkgNotes)
	root, content := m.root(PkgNotes, rgb(0xff, 0xfd, 0xe7))
	content.add(m.appBar(PkgNotes, "Notes", a.color))
	e := m.edit(PkgNotes+":id/note_editor", "Write a note", m.rc(60, 300, designW-60, 1500), func(m *Model) *string { return &m.note })
	e.multi = true
	content.add(e)
	content.add(m.label(PkgNotes+":id/char_count", fmt.Sprintf("%d characters", utf8.RuneCountInString(m.note)), m.rc(60, 1540, designW-60, 1620), 36, textGrey))
	return root
}

const (
	listItems = 100
	listRowH  = 160
	listTop   = 260
)

func (m *Model) listViewport() (top, bottom int) { return listTop, m.designH() - 40 }

func (m *Model) listMaxScroll() int {
	top, bottom := m.listViewport()
	return max(0, listItems*listRowH-(bottom-top))
}

func (m *Model) listScreen() *node {
	a, _ := m.App(PkgList)
	root, content := m.root(PkgList, white)
	content.add(m.appBar(PkgList, "List", a.color))
	top, bottom := m.listViewport()
	list := &node{class: "androidx.recyclerview.widget.RecyclerView", id: PkgList + ":id/list",
		bounds: m.rc(0, top, designW, bottom), scrollable: true, focusable: true}
	content.add(list)
	first := m.listScroll / listRowH
	for i := first; i < listItems; i++ {
		t := top + i*listRowH - m.listScroll
		if t >= bottom {
			break
		}
		b := min(t+listRowH, bottom)
		vt := max(t, top)
		n := i + 1
		row := &node{class: "android.widget.TextView", id: PkgList + ":id/item", text: fmt.Sprintf("Item %d", n),
			bounds: m.rc(0, vt, designW, b), look: lookRow, fg: textDark, size: 48, clickable: true, focusable: true,
			selected: m.listSelected == n, onTap: func(m *Model, _, _ int) { m.listSelected = n }}
		row.paint = rowPaint(m.rc(0, t, designW, t+listRowH))
		list.add(row)
	}
	return root
}

func (m *Model) dialogScreen() *node {
	a, _ := m.App(PkgDialog)
	root, content := m.root(PkgDialog, white)
	content.add(m.appBar(PkgDialog, "Dialog demo", a.color),
		m.label(PkgDialog+":id/message", "Press the button to open the dialog again.", m.rc(60, 320, designW-60, 420), 42, textDark),
		m.button(PkgDialog+":id/show_dialog", "Show dialog", m.rc(290, 500, 790, 660), a.color, func(m *Model, _, _ int) { m.dialogOpen = true }))
	return root
}

// dialogRect is where the dialog window sits.
func (m *Model) dialogRect() image.Rectangle {
	mid := m.designH() / 2
	return m.rc(90, mid-300, designW-90, mid+300)
}

func (m *Model) dialogWindow() *node {
	r := m.dialogRect()
	d := m.dialogRect().Sub(image.Pt(0, 0))
	s := m.scale
	at := func(l, t, rr, b int) image.Rectangle {
		return image.Rect(d.Min.X+int(float64(l)*s), d.Min.Y+int(float64(t)*s), d.Min.X+int(float64(rr)*s), d.Min.Y+int(float64(b)*s))
	}
	win := &node{class: "android.widget.FrameLayout", bounds: r, look: lookCard, bg: white}
	win.add(
		m.label("android:id/alertTitle", "Rate Tandem?", at(60, 50, 840, 150), 52, textDark),
		m.label("android:id/message", "Do you enjoy this app?", at(60, 180, 840, 330), 40, textGrey),
		&node{class: "android.widget.Button", id: "android:id/button2", text: "LATER", bounds: at(360, 430, 580, 560),
			look: lookText, fg: rgb(0x8e, 0x24, 0xaa), size: 42, center: true, clickable: true, focusable: true,
			onTap: func(m *Model, _, _ int) { m.dialogOpen = false }},
		&node{class: "android.widget.Button", id: "android:id/button1", text: "OK", bounds: at(620, 430, 840, 560),
			look: lookText, fg: rgb(0x8e, 0x24, 0xaa), size: 42, center: true, clickable: true, focusable: true,
			onTap: func(m *Model, _, _ int) { m.dialogOpen = false }},
	)
	return win
}

func (m *Model) shopScreen() *node {
	a, _ := m.App(PkgShop)
	root, content := m.root(PkgShop, bgLight)
	content.add(m.appBar(PkgShop, "Checkout", a.color))
	content.add(m.label(PkgShop+":id/item_name", "Wireless Earbuds × 1", m.rc(60, 320, 760, 420), 46, textDark),
		m.label(PkgShop+":id/item_price", "¥99", m.rc(780, 320, 1020, 420), 46, textDark),
		m.label(PkgShop+":id/total", "Total: ¥99", m.rc(60, 480, 1020, 580), 52, textDark))
	if m.paid {
		content.add(m.label(PkgShop+":id/status", "Payment successful", m.rc(60, 700, 1020, 800), 56, rgb(0x2e, 0x7d, 0x32)))
		return root
	}
	content.add(m.button(PkgShop+":id/pay_button", "Pay ¥99", m.rc(60, m.designH()-300, designW-60, m.designH()-140), a.color,
		func(m *Model, _, _ int) { m.paid = true }))
	return root
}

func (m *Model) loginScreen() *node {
	a, _ := m.App(PkgLogin)
	root, content := m.root(PkgLogin, white)
	content.add(m.appBar(PkgLogin, "Sign in", a.color))
	if m.loggedIn {
		content.add(m.label(PkgLogin+":id/welcome", "Welcome, "+orDefault(m.username, "user")+"!", m.rc(60, 400, 1020, 520), 60, textDark))
		return root
	}
	content.add(m.edit(PkgLogin+":id/username", "Username", m.rc(60, 320, 1020, 460), func(m *Model) *string { return &m.username }))
	content.add(&node{class: "android.widget.ImageView", id: PkgLogin + ":id/captcha_image", bounds: m.rc(60, 520, 560, 720),
		look: lookCustom, paint: m.paintCaptcha, clickable: true, onTap: func(*Model, int, int) {}})
	content.add(m.label(PkgLogin+":id/captcha_hint", "Type the code", m.rc(600, 560, 1020, 700), 34, textGrey))
	code := m.edit(PkgLogin+":id/captcha_input", "Code", m.rc(60, 760, 1020, 900), func(m *Model) *string { return &m.captchaIn })
	code.onEnter = (*Model).submitLogin
	content.add(code)
	if m.loginError != "" {
		content.add(m.label(PkgLogin+":id/error", m.loginError, m.rc(60, 920, 1020, 1000), 38, rgb(0xd3, 0x2f, 0x2f)))
	}
	content.add(m.button(PkgLogin+":id/login_button", "Login", m.rc(60, 1040, 1020, 1200), a.color, func(m *Model, _, _ int) { m.submitLogin() }))
	return root
}

func (m *Model) submitLogin() {
	if strings.EqualFold(strings.TrimSpace(m.captchaIn), m.captcha) {
		m.loggedIn, m.loginError, m.focus = true, "", ""
		return
	}
	m.loginError = "Wrong code, try again"
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func (m *Model) animScreen() *node {
	a, _ := m.App(PkgAnim)
	root, content := m.root(PkgAnim, white)
	content.add(m.appBar(PkgAnim, "Animation", a.color))
	status := "Ready"
	if m.Animating(m.now()) {
		status = "Animating…"
	}
	content.add(m.label(PkgAnim+":id/status", status, m.rc(60, 320, 1020, 420), 52, textDark),
		m.label(PkgAnim+":id/taps", fmt.Sprintf("Taps: %d", m.animTaps), m.rc(60, 440, 1020, 520), 42, textGrey),
		&node{class: "android.view.View", id: PkgAnim + ":id/stage", bounds: m.rc(60, 600, 1020, 1400), look: lookCustom, paint: m.paintAnim},
		m.button(PkgAnim+":id/start", "Start", m.rc(290, 1500, 790, 1660), a.color, func(m *Model, _, _ int) {
			now := m.now()
			m.animTaps++
			m.animStart, m.animUntil = now, now.Add(m.animFor)
		}))
	return root
}

// gameTarget is where the game's target is for the current score.
func (m *Model) gameTarget() (cx, cy, r int) {
	spots := [][2]int{{540, 1200}, {260, 700}, {820, 1700}, {300, 1900}, {780, 600}, {540, 1500}}
	s := spots[m.gameScore%len(spots)]
	p := m.rc(s[0], s[1], s[0], s[1]).Min
	return p.X, p.Y, int(110 * m.scale)
}

func (m *Model) gameScreen() *node {
	// A canvas game: the accessibility tree is only the root frame.
	full := image.Rect(0, 0, m.w, m.h)
	return &node{class: "android.widget.FrameLayout", bounds: full, look: lookCustom, paint: m.paintGame,
		onTap: func(m *Model, x, y int) {
			cx, cy, r := m.gameTarget()
			if (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r {
				m.gameScore++
			}
		}}
}

func (m *Model) formScreen() *node {
	a, _ := m.App(PkgForm)
	root, content := m.root(PkgForm, white)
	content.add(m.appBar(PkgForm, "Form", a.color))
	if m.form.Submitted {
		content.add(m.label(PkgForm+":id/result", "Thanks, "+m.form.Name+"!", m.rc(60, 400, 1020, 520), 60, textDark))
		return root
	}
	fields := []struct {
		id, label string
		v         func(m *Model) *string
	}{
		{"name", "Name", func(m *Model) *string { return &m.form.Name }},
		{"phone", "Phone", func(m *Model) *string { return &m.form.Phone }},
		{"city", "City", func(m *Model) *string { return &m.form.City }},
	}
	for i, f := range fields {
		t := 300 + i*220
		content.add(m.label(PkgForm+":id/"+f.id+"_label", f.label, m.rc(60, t, 1020, t+60), 36, textGrey),
			m.edit(PkgForm+":id/"+f.id, f.label, m.rc(60, t+60, 1020, t+190), f.v))
	}
	if m.formError != "" {
		content.add(m.label(PkgForm+":id/error", m.formError, m.rc(60, 960, 1020, 1040), 38, rgb(0xd3, 0x2f, 0x2f)))
	}
	content.add(m.button(PkgForm+":id/submit", "Submit", m.rc(60, 1080, 1020, 1240), a.color, func(m *Model, _, _ int) {
		if m.form.Name == "" || m.form.Phone == "" || m.form.City == "" {
			m.formError = "Please fill in all fields"
			return
		}
		m.form.Submitted, m.formError, m.focus = true, "", ""
	}))
	return root
}

// chats of the WeChat-like screen.
func chats() [][3]string {
	return [][3]string{
		{"文件传输助手", "[图片]", "10:24"},
		{"张伟", "明天下午三点开会，别忘了", "09:58"},
		{"家人群", "妈妈: 晚饭回来吃吗？", "昨天"},
		{"李娜", "好的，谢谢！", "昨天"},
		{"工作群", "王经理: 请大家周五前提交报告", "星期三"},
		{"微信支付", "收款到账通知 ¥88.00", "星期二"},
	}
}

func (m *Model) chatListScreen() *node {
	a, _ := m.App(PkgChat)
	root, content := m.root(PkgChat, white)
	content.add(&node{class: "android.widget.TextView", id: PkgChat + ":id/title", text: "微信", bounds: m.rc(0, 80, designW, 240),
		look: lookBar, bg: rgb(0xed, 0xed, 0xed), fg: textDark, size: 52, center: true})
	list := &node{class: "android.widget.ListView", id: PkgChat + ":id/chat_list", bounds: m.rc(0, 240, designW, 1400)}
	content.add(list)
	for i, c := range chats() {
		t := 240 + i*190
		idx := i
		row := &node{class: "android.widget.LinearLayout", id: PkgChat + ":id/chat_row", bounds: m.rc(0, t, designW, t+190), look: lookRow,
			clickable: true, focusable: true, onTap: func(m *Model, _, _ int) { m.chatOpen, m.focus = idx, PkgChat+":id/chat_input" }}
		row.add(&node{class: "android.widget.ImageView", id: PkgChat + ":id/avatar", bounds: m.rc(40, t+30, 170, t+160), look: lookIcon,
			accent: a.color, glyph: string([]rune(c[0])[:1]), fg: white, size: 0},
			m.label(PkgChat+":id/nickname", c[0], m.rc(200, t+30, 800, t+95), 46, textDark),
			m.label(PkgChat+":id/last_msg", c[1], m.rc(200, t+105, 1000, t+165), 36, textGrey),
			m.label(PkgChat+":id/time", c[2], m.rc(820, t+30, 1040, t+90), 32, textGrey))
		list.add(row)
	}
	tabs := []string{"微信", "通讯录", "发现", "我"}
	bar := &node{class: "android.widget.LinearLayout", id: PkgChat + ":id/tabs", bounds: m.rc(0, m.designH()-170, designW, m.designH()), look: lookText, bg: rgb(0xf7, 0xf7, 0xf7)}
	for i, tab := range tabs {
		l := i * 270
		fg := textDark
		if i == 0 {
			fg = a.color
		}
		t := m.label(PkgChat+":id/tab", tab, m.rc(l, m.designH()-150, l+270, m.designH()-40), 38, fg)
		t.center, t.selected = true, i == 0
		bar.add(t)
	}
	content.add(bar)
	return root
}

func (m *Model) chatScreen() *node {
	a, _ := m.App(PkgChat)
	c := chats()[m.chatOpen]
	root, content := m.root(PkgChat, rgb(0xed, 0xed, 0xed))
	content.add(&node{class: "android.widget.TextView", id: PkgChat + ":id/title", text: c[0], bounds: m.rc(0, 80, designW, 240),
		look: lookBar, bg: rgb(0xed, 0xed, 0xed), fg: textDark, size: 52, center: true})
	msgs := append([]string{c[1]}, m.chatSent[m.chatOpen]...)
	for i, msg := range msgs {
		t := 300 + i*150
		l, r, bg := 60, 900, white
		if i > 0 {
			l, r, bg = 300, 1020, rgb(0x95, 0xec, 0x69)
		}
		n := m.label(PkgChat+":id/message", msg, m.rc(l, t, r, t+120), 42, textDark)
		n.bg, n.look = bg, lookCard
		content.add(n)
	}
	dh := m.designH()
	content.add(m.edit(PkgChat+":id/chat_input", "", m.rc(30, dh-180, 800, dh-50), func(m *Model) *string { return &m.chatDraft }),
		m.button(PkgChat+":id/send", "发送", m.rc(830, dh-170, 1050, dh-60), a.color, func(m *Model, _, _ int) {
			if m.chatDraft == "" {
				return
			}
			m.chatSent[m.chatOpen] = append(m.chatSent[m.chatOpen], m.chatDraft)
			m.chatDraft = ""
		}))
	return root
}
