package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
)

// The chore apps' templates: add, change and delete records, set
// switches on list rows, in forms under a keyboard with pickers.

// app names a chore app: its label, list title, noun, search hint, URI and
// columns.
type app struct {
	label, list, noun, search, uri, pkg string
	cols                                []string
}

var (
	contactsApp = app{"Contacts", "Contacts", "contact", "Search Contacts", uriContacts, "com.tandem.contacts", []string{"name", "phone", "email", "starred"}}
	clockApp    = app{"Clock", "Alarms", "alarm", "", uriAlarms, "com.tandem.clock", []string{"time", "label", "enabled"}}
	calendarApp = app{"Calendar", "Calendar", "event", "Search Calendar", uriEvents, "com.tandem.calendar", []string{"title", "date", "time", "location"}}
	expensesApp = app{"Expenses", "Expenses", "expense", "", uriExpenses, "com.tandem.expenses", []string{"amount", "category", "note"}}
	todoApp     = app{"To-do", "To-do", "task", "", uriTodo, "com.tandem.todo", []string{"title", "done"}}
	filesApp    = app{"Files", "Files", "file", "Search Files", uriFiles, "com.tandem.files", []string{"name", "folder"}}
)

// titles are the screens of a's own, with the pickers of fields.
func (a app) titles(fields []field) []string {
	t := []string{a.list, "New " + a.noun, "Edit " + a.noun, "Delete " + a.noun + "?", "Set time", "Set date"}
	for _, f := range fields {
		if f.kind == choiceField {
			t = append(t, f.label)
		}
	}
	return t
}

// toList is the way to a's list, filling fields on the way when the
// form titled form is open; nil when the list is in front.
func toList(s *Screen, a app, form string, fields []field) []Act {
	if acts := inApp(s, a.label, a.titles(fields)...); acts != nil {
		return acts
	}
	if acts := picker(s, fields); acts != nil {
		return acts
	}
	switch s.Title() {
	case form:
		return fillForm(s, fields)
	case a.list:
		return nil
	}
	return []Act{key("back")}
}

// addFlow adds a record whose list row starts with rowKey.
func addFlow(s *Screen, a app, rowKey string, fields []field) []Act {
	if acts := toList(s, a, "New "+a.noun, fields); acts != nil {
		return acts
	}
	if a.search != "" {
		if acts := search(s, a.search, rowKey); acts != nil {
			return acts
		}
	}
	if s.row(rowKey) != nil {
		return []Act{finish("added " + rowKey)}
	}
	if add := s.FindType("button", "Add "+a.noun); add != nil {
		return []Act{tap(add)}
	}
	return []Act{key("back")} // the keyboard hides the add button
}

// editFlow opens the record whose row starts with rowKey and fills fields.
func editFlow(s *Screen, a app, rowKey string, fields []field, done func(*Screen) bool) []Act {
	if acts := toList(s, a, "Edit "+a.noun, fields); acts != nil {
		return acts
	}
	if done(s) {
		return []Act{finish("changed " + rowKey)}
	}
	if a.search != "" {
		if acts := search(s, a.search, rowKey); acts != nil {
			return acts
		}
	}
	if r := s.row(rowKey); r != nil {
		return []Act{tap(r)}
	}
	return []Act{fail("no " + rowKey + " in " + a.label)}
}

// deleteFlow deletes the record whose row starts with rowKey.
func deleteFlow(s *Screen, a app, rowKey string) []Act {
	if acts := inApp(s, a.label, a.titles(nil)...); acts != nil {
		return acts
	}
	switch s.Title() {
	case "Delete " + a.noun + "?":
		return []Act{tap(s.FindType("button", "Delete"))}
	case "Edit " + a.noun:
		if !strings.Contains(s.Text, rowKey) {
			return []Act{key("back")}
		}
		return []Act{tap(s.FindType("button", "Delete"))}
	case a.list:
	default:
		return []Act{key("back")}
	}
	if a.search != "" {
		if acts := search(s, a.search, rowKey); acts != nil {
			return acts
		}
	}
	if r := s.row(rowKey); r != nil {
		return []Act{tap(r)}
	}
	return []Act{finish("deleted " + rowKey)}
}

// switchFlow sets the switch of the row named rowKey; more says whether
// rows may be below the screen's foot.
func switchFlow(s *Screen, a app, rowKey string, on bool) []Act {
	if acts := inApp(s, a.label, a.list); acts != nil {
		return acts
	}
	sw := s.FindType("switch", "("+rowKey+")")
	if sw == nil || s.underAdd(sw) {
		return []Act{swipeUp(s)}
	}
	if strings.HasPrefix(sw.Text, "ON") == on {
		return []Act{finish(rowKey + " is " + map[bool]string{true: "on", false: "off"}[on])}
	}
	return []Act{tap(sw)}
}

// seedRows is the set-up of a's table: emptied, then these rows.
func seedRows(a app, rs [][]string) []string {
	out := append(home(a.pkg), wipe(a.uri))
	for _, r := range rs {
		out = append(out, insert(a.uri, r...))
	}
	return out
}

func recordTemplates() []Template {
	return []Template{
		{Name: "contact_add", Tier: Medium, Apps: []string{"Contacts"}, Source: "AndroidWorld ContactsAddContact",
			Make: func(r *rand.Rand) Spec {
				name, phone := pick(r, newNames), fmt.Sprintf("1%02d%08d", 30+r.IntN(60), r.IntN(100000000))
				goal := fmt.Sprintf("Add a contact named %s with the phone number %s.", name, phone)
				if r.IntN(3) == 0 {
					goal = fmt.Sprintf("新建联系人 %s，电话 %s", name, phone)
				}
				return Spec{Goal: goal, Setup: contactsSetup(),
					Check: checkRow(uriContacts, contactsApp.cols, map[string]string{"name": name, "phone": phone}),
					Solve: func(s *Screen) []Act {
						return addFlow(s, contactsApp, name, []field{{"Name", name, textField}, {"Phone", phone, textField}})
					}}
			}},
		{Name: "contact_delete", Tier: Medium, Apps: []string{"Contacts"}, Source: "AndroidWorld (contacts); a confirmation the person gives",
			Make: func(r *rand.Rand) Spec {
				victim := pick(r, seedNames[8:36])
				return Spec{Goal: fmt.Sprintf("Delete the contact %s; yes, I really want it deleted.", victim), Setup: contactsSetup(), Confirm: Allow,
					Check: func(ctx context.Context, p Phone, _ Outcome) (bool, error) {
						rs, err := rows(ctx, p, uriContacts, contactsApp.cols...)
						return !has(rs, map[string]string{"name": victim}) && len(rs) == len(seedNames)-1, err
					},
					Solve: func(s *Screen) []Act { return deleteFlow(s, contactsApp, victim) }}
			}},
		{Name: "contact_favourite", Tier: Medium, Apps: []string{"Contacts"}, Source: "a person's request: find a contact deep in a long list",
			Make: func(r *rand.Rand) Spec {
				who := pick(r, seedNames[20:])
				return Spec{Goal: fmt.Sprintf("Make %s a favourite contact.", who), Setup: contactsSetup(),
					Check: checkRow(uriContacts, contactsApp.cols, map[string]string{"name": who, "starred": "1"}),
					Solve: func(s *Screen) []Act {
						return editFlow(s, contactsApp, who, []field{{"Favourite", "1", toggleField}}, func(s *Screen) bool { return s.row("★ "+who) != nil })
					}}
			}},
		{Name: "alarm_add", Tier: Medium, Apps: []string{"Clock"}, Source: "AndroidWorld ClockTimerEntry (single/clock.py: a time set in the clock app; an alarm here)",
			Make: func(r *rand.Rand) Spec {
				t := fmt.Sprintf("%02d:%02d", 5+r.IntN(17), 5*r.IntN(12))
				label := pick(r, []string{"Medicine", "Walk the dog", "Team call", "取快递", "Pick up Leo"})
				goal := fmt.Sprintf("Set an alarm for %s labelled %q.", t, label)
				if r.IntN(3) == 0 {
					goal = fmt.Sprintf("定一个 %s 的闹钟，标签写“%s”", t, label)
				}
				return Spec{Goal: goal, Setup: seedRows(clockApp, alarmSeed),
					Check: checkRow(uriAlarms, clockApp.cols, map[string]string{"time": t, "label": label, "enabled": "1"}),
					Solve: func(s *Screen) []Act {
						return addFlow(s, clockApp, t, []field{{"Time", t, timeField}, {"Label", label, textField}})
					}}
			}},
		{Name: "alarm_switch", Tier: Simple, Apps: []string{"Clock"}, Source: "a person's request",
			Make: func(r *rand.Rand) Spec {
				a := pick(r, alarmSeed)
				on := a[5] == "0"
				return Spec{Goal: fmt.Sprintf("Turn %s the %s alarm.", map[bool]string{true: "on", false: "off"}[on], a[1]), Setup: seedRows(clockApp, alarmSeed),
					Check: checkRow(uriAlarms, clockApp.cols, map[string]string{"time": a[1], "enabled": onOff(on)}),
					Solve: func(s *Screen) []Act { return switchFlow(s, clockApp, a[1], on) }}
			}},
	}
}

func listTemplates() []Template {
	return []Template{
		{Name: "todo_add", Tier: Medium, Apps: []string{"To-do"}, Source: "AndroidWorld MarkorCreateNote (a list item instead of a note)",
			Make: func(r *rand.Rand) Spec {
				title := pick(r, []string{"Renew passport", "Book dentist", "Return library books", "给妈妈买生日礼物", "交房租", "Water the plants"})
				goal := fmt.Sprintf("Add %q to my to-do list.", title)
				if r.IntN(2) == 0 {
					goal = fmt.Sprintf("在待办清单里加上“%s”", title)
				}
				return Spec{Goal: goal, Setup: seedRows(todoApp, todoSeed),
					Check: checkRow(uriTodo, todoApp.cols, map[string]string{"title": title, "done": "0"}),
					Solve: func(s *Screen) []Act { return addFlow(s, todoApp, title, []field{{"Title", title, textField}}) }}
			}},
		{Name: "todo_done", Tier: Simple, Apps: []string{"To-do"}, Source: "a person's request",
			Make: func(r *rand.Rand) Spec {
				t := pick(r, todoSeed)[1]
				return Spec{Goal: fmt.Sprintf("Tick off %q in my to-do list.", t), Setup: seedRows(todoApp, todoSeed),
					Check: checkRow(uriTodo, todoApp.cols, map[string]string{"title": t, "done": "1"}),
					Solve: func(s *Screen) []Act { return switchFlow(s, todoApp, t, true) }}
			}},
	}
}

func formTemplates() []Template {
	return []Template{
		{Name: "expense_add", Tier: Medium, Apps: []string{"Expenses"}, Source: "AndroidWorld ExpenseAddSingle",
			Make: func(r *rand.Rand) Spec {
				amt, cat := fmt.Sprint(5+r.IntN(300)), pick(r, []string{"Food", "Transport", "Shopping", "Bills", "Health", "Fun"})
				note := pick(r, []string{"Dinner with Sam", "Taxi home", "电费", "Cinema", "Pharmacy"})
				goal := fmt.Sprintf("Record an expense of ¥%s in %s with the note %q.", amt, cat, note)
				if r.IntN(3) == 0 {
					goal = fmt.Sprintf("记一笔支出：%s 元，分类 %s，备注“%s”", amt, cat, note)
				}
				return Spec{Goal: goal, Setup: seedRows(expensesApp, expenseSeed),
					Check: checkRow(uriExpenses, expensesApp.cols, map[string]string{"amount": amt, "category": cat, "note": note}),
					Solve: func(s *Screen) []Act {
						return addFlow(s, expensesApp, "¥"+amt+" · "+cat, []field{{"Amount", amt, textField}, {"Category", cat, choiceField}, {"Note", note, textField}})
					}}
			}},
		{Name: "file_delete", Tier: Medium, Apps: []string{"Files"}, Source: "AndroidWorld FilesDeleteFile",
			Make: func(r *rand.Rand) Spec {
				f := pick(r, fileSeed)
				return Spec{Goal: fmt.Sprintf("Delete the file %s from my phone.", f[1]), Setup: seedRows(filesApp, fileSeed), Confirm: Allow,
					Check: func(ctx context.Context, p Phone, _ Outcome) (bool, error) {
						rs, err := rows(ctx, p, uriFiles, filesApp.cols...)
						return !has(rs, map[string]string{"name": f[1]}) && len(rs) == len(fileSeed)-1, err
					},
					Solve: func(s *Screen) []Act { return deleteFlow(s, filesApp, f[1]) }}
			}},
		{Name: "file_move", Tier: Medium, Apps: []string{"Files"}, Source: "AndroidWorld FilesMoveFile",
			Make: func(r *rand.Rand) Spec {
				f := pick(r, fileSeed)
				to := pick(r, []string{"Download", "Documents", "Pictures", "Music"})
				for to == f[3] {
					to = pick(r, []string{"Download", "Documents", "Pictures", "Music"})
				}
				return Spec{Goal: fmt.Sprintf("Move %s to the %s folder.", f[1], to), Setup: seedRows(filesApp, fileSeed),
					Check: checkRow(uriFiles, filesApp.cols, map[string]string{"name": f[1], "folder": to}),
					Solve: func(s *Screen) []Act {
						return editFlow(s, filesApp, f[1], []field{{"Folder", to, choiceField}}, func(s *Screen) bool {
							r := s.row(f[1])
							return r != nil && strings.HasSuffix(r.Text, "| "+to)
						})
					}}
			}},
		{Name: "event_add", Tier: Complex, Apps: []string{"Calendar"}, Source: "AndroidWorld SimpleCalendarAddOneEvent",
			Make: func(r *rand.Rand) Spec {
				title := pick(r, []string{"Piano lesson", "Lunch with Grace", "家长会", "Car service", "Yoga"})
				date := fmt.Sprintf("2027-%02d-%02d", 1+r.IntN(2), 1+r.IntN(28))
				t := fmt.Sprintf("%02d:%02d", 8+r.IntN(12), 5*r.IntN(12))
				place := pick(r, []string{"Music school", "Cafe Rio", "学校礼堂", "Garage on 5th"})
				goal := fmt.Sprintf("Put %q in my calendar on %s at %s, at %s.", title, date, t, place)
				if r.IntN(3) == 0 {
					goal = fmt.Sprintf("在日历里添加日程“%s”，%s %s，地点：%s", title, date, t, place)
				}
				return Spec{Goal: goal, Setup: seedRows(calendarApp, eventSeed),
					Check: checkRow(uriEvents, calendarApp.cols, map[string]string{"title": title, "date": date, "time": t, "location": place}),
					Solve: func(s *Screen) []Act {
						return addFlow(s, calendarApp, title, []field{{"Title", title, textField}, {"Date", date, dateField}, {"Time", t, timeField}, {"Location", place, textField}})
					}}
			}},
		{Name: "alarms_all_off", Tier: Complex, Apps: []string{"Clock"}, Source: "a person's request: every row of a list that scrolls",
			Make: func(r *rand.Rand) Spec {
				var seed [][]string
				for i := range 9 + r.IntN(3) {
					seed = append(seed, []string{"time", fmt.Sprintf("%02d:%02d", 1+i*2, 5*r.IntN(12)), "label", pick(r, []string{"Wake", "Run", "Pills", "Bus", "起床"}), "enabled", onOff(r.IntN(3) > 0)})
				}
				seed[len(seed)-1][5] = "1"
				last := seed[len(seed)-1][1]
				return Spec{Goal: "Turn off all my alarms.", Setup: seedRows(clockApp, seed),
					Check: func(ctx context.Context, p Phone, _ Outcome) (bool, error) {
						rs, err := rows(ctx, p, uriAlarms, clockApp.cols...)
						return len(rs) == len(seed) && !has(rs, map[string]string{"enabled": "1"}), err
					},
					Solve: func(s *Screen) []Act { return allOff(s, last) }}
			}},
	}
}

// allOff turns off the switches on screen, scrolling down to the last.
func allOff(s *Screen, last string) []Act {
	if acts := inApp(s, clockApp.label, clockApp.list); acts != nil {
		return acts
	}
	for i := range s.Els {
		if sw := &s.Els[i]; sw.Type == "switch" && strings.HasPrefix(sw.Text, "ON (") && !s.underAdd(sw) {
			return []Act{tap(sw)}
		}
	}
	if sw := s.FindType("switch", "ON ("); sw != nil {
		return []Act{swipeUp(s)}
	}
	if s.FindType("switch", "("+last+")") != nil {
		return []Act{finish("every alarm is off")}
	}
	return []Act{swipeUp(s)}
}

var (
	seedNames = []string{"Aaron Hughes", "Alice Chen", "Amir Haddad", "Ben Carter", "Bianca Rossi", "Carlos Mendes", "Chloe Martin",
		"Daniel Kim", "Diana Park", "Elena Petrova", "Ethan Brooks", "Fatima Noor", "Felix Wagner", "Grace Liu", "Hannah Schmidt",
		"Hugo Laurent", "Isabel Torres", "Jack Wilson", "Julia Novak", "Kevin Obi", "Laura Bianchi", "Leo Tanaka", "Maya Singh",
		"Nina Jensen", "Oscar Lindqvist", "Priya Patel", "Quentin Dubois", "Rosa Alvarez", "Sam Taylor", "Sofia Costa",
		"Tom Becker", "Uma Rao", "Victor Hugo", "Wendy Zhao", "Yusuf Demir", "Zoe Adams", "王芳", "李娜", "张伟", "陈静"}
	newNames    = []string{"Marta Silva", "Ivan Petrov", "刘洋", "Noah Fischer", "赵敏", "Lucas Moreau"}
	alarmSeed   = [][]string{{"time", "06:30", "label", "Gym", "enabled", "0"}, {"time", "07:15", "label", "Wake up", "enabled", "1"}, {"time", "12:30", "label", "Lunch", "enabled", "0"}, {"time", "22:45", "label", "吃药", "enabled", "1"}}
	todoSeed    = [][]string{{"title", "Buy milk", "done", "0"}, {"title", "Call the bank", "done", "0"}, {"title", "交水电费", "done", "0"}, {"title", "Fix the bike", "done", "0"}}
	expenseSeed = [][]string{{"amount", "32", "category", "Food", "note", "午饭"}, {"amount", "6", "category", "Transport", "note", "Metro"}}
	eventSeed   = [][]string{{"title", "Dentist", "date", "2026-12-09", "time", "10:00", "location", "Main St"}}
	fileSeed    = [][]string{{"name", "IMG_2041.jpg", "folder", "Pictures"}, {"name", "invoice_march.pdf", "folder", "Documents"}, {"name", "resume.docx", "folder", "Documents"},
		{"name", "podcast_ep12.mp3", "folder", "Music"}, {"name", "holiday.mp4", "folder", "Pictures"}, {"name", "budget.xlsx", "folder", "Documents"}, {"name", "会议纪要.docx", "folder", "Documents"},
		{"name", "boarding_pass.pdf", "folder", "Download"}, {"name", "screenshot_0412.png", "folder", "Pictures"}, {"name", "tax_2025.pdf", "folder", "Download"},
		{"name", "map_offline.zip", "folder", "Download"}, {"name", "report_q3.pdf", "folder", "Documents"}, {"name", "song.flac", "folder", "Music"}, {"name", "wallpaper.png", "folder", "Pictures"}}
)

func contactsSetup() []string {
	var rs [][]string
	for i, n := range seedNames {
		rs = append(rs, []string{"name", n, "phone", fmt.Sprintf("1380013%04d", 1000+i*37), "email", "", "starred", "0"})
	}
	return seedRows(contactsApp, rs)
}

// underAdd reports whether e lies under the list's floating add button,
// where a tap would add instead.
func (s *Screen) underAdd(e *El) bool {
	for i := range s.Els {
		b := s.Els[i]
		if b.Type == "button" && strings.HasPrefix(b.Text, "Add ") &&
			e.Bounds[0] < b.Bounds[2] && b.Bounds[0] < e.Bounds[2] && e.Bounds[1] < b.Bounds[3] && b.Bounds[1] < e.Bounds[3] {
			return true
		}
	}
	return false
}
