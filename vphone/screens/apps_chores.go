package screens

import (
	"cmp"
	"fmt"
	"strings"
)

// The chore apps' definitions and the records they start with: enough of
// them that the lists scroll, in English and Chinese.

// Packages of the chore apps.
const (
	PkgContacts = "com.tandem.contacts"
	PkgClock    = "com.tandem.clock"
	PkgCalendar = "com.tandem.calendar"
	PkgExpenses = "com.tandem.expenses"
	PkgTodo     = "com.tandem.todo"
	PkgFiles    = "com.tandem.files"
)

// ExpenseCategories are the Expenses app's categories.
func ExpenseCategories() []string {
	return []string{"Food", "Transport", "Shopping", "Bills", "Health", "Fun"}
}

// FileFolders are the Files app's folders.
func FileFolders() []string { return []string{"Download", "Documents", "Pictures", "Music"} }

func choreApps() []App {
	return []App{
		{PkgContacts, "Contacts", PkgContacts + ".PeopleActivity", rgb(0x19, 0x76, 0xd2), "Co"},
		{PkgClock, "Clock", PkgClock + ".AlarmActivity", rgb(0x5e, 0x35, 0xb1), "Al"},
		{PkgCalendar, "Calendar", PkgCalendar + ".MonthActivity", rgb(0x03, 0x9b, 0xe5), "31"},
		{PkgExpenses, "Expenses", PkgExpenses + ".MainActivity", rgb(0x2e, 0x7d, 0x32), "$"},
		{PkgTodo, "To-do", PkgTodo + ".MainActivity", rgb(0xef, 0x6c, 0x00), "Td"},
		{PkgFiles, "Files", PkgFiles + ".BrowserActivity", rgb(0x45, 0x5a, 0x64), "Fi"},
	}
}

func byKey(k string) func(a, b record) int {
	return func(a, b record) int { return cmp.Compare(strings.ToLower(a[k]), strings.ToLower(b[k])) }
}

func choreDefs() []recordsDef {
	return []recordsDef{
		{pkg: PkgContacts, table: "contacts", title: "Contacts", noun: "contact", search: true,
			cols: []column{{key: "name", label: "Name"}, {key: "phone", label: "Phone", kind: colNumber}, {key: "email", label: "Email"},
				{key: "starred", label: "Favourite", kind: colToggle}},
			line: func(r record) (string, string) { return starred(r) + r["name"], r["phone"] },
			less: byKey("name"), seed: seedContacts()},
		{pkg: PkgClock, table: "alarms", title: "Alarms", noun: "alarm", toggle: "enabled",
			cols: []column{{key: "time", label: "Time", kind: colTime}, {key: "label", label: "Label"}, {key: "enabled", label: "On", kind: colToggle, on: true}},
			line: func(r record) (string, string) { return r["time"], r["label"] },
			less: byKey("time"), seed: []record{{"time": "06:30", "label": "Gym", "enabled": "0"}, {"time": "07:15", "label": "Wake up", "enabled": "1"},
				{"time": "12:30", "label": "Lunch", "enabled": "0"}, {"time": "22:45", "label": "吃药", "enabled": "1"}}},
		{pkg: PkgCalendar, table: "events", title: "Calendar", noun: "event", search: true,
			cols: []column{{key: "title", label: "Title"}, {key: "date", label: "Date", kind: colDate}, {key: "time", label: "Time", kind: colTime},
				{key: "location", label: "Location"}},
			line: func(r record) (string, string) {
				return r["title"], strings.Trim(r["date"]+" "+r["time"]+" · "+r["location"], " ·")
			},
			less: func(a, b record) int { return cmp.Compare(a["date"]+a["time"], b["date"]+b["time"]) },
			seed: []record{{"title": "Dentist", "date": "2026-12-09", "time": "10:00", "location": "Main St"},
				{"title": "项目周会", "date": "2026-12-11", "time": "15:00", "location": "会议室 A"}}},
		{pkg: PkgExpenses, table: "expenses", title: "Expenses", noun: "expense",
			cols: []column{{key: "amount", label: "Amount", kind: colNumber}, {key: "category", label: "Category", kind: colChoice, choices: ExpenseCategories()},
				{key: "note", label: "Note"}},
			line: func(r record) (string, string) { return "¥" + r["amount"] + " · " + r["category"], r["note"] },
			less: func(a, b record) int { return cmp.Compare(b.id(), a.id()) },
			seed: []record{{"amount": "32", "category": "Food", "note": "午饭"}, {"amount": "6", "category": "Transport", "note": "Metro"}}},
		{pkg: PkgTodo, table: "tasks", title: "To-do", noun: "task", toggle: "done",
			cols: []column{{key: "title", label: "Title"}, {key: "done", label: "Done", kind: colToggle}},
			line: func(r record) (string, string) {
				return r["title"], map[bool]string{true: "Done", false: ""}[r["done"] == "1"]
			},
			seed: []record{{"title": "Buy milk", "done": "0"}, {"title": "Call the bank", "done": "0"}, {"title": "交水电费", "done": "0"}}},
		{pkg: PkgFiles, table: "files", title: "Files", noun: "file", search: true,
			cols: []column{{key: "name", label: "Name"}, {key: "folder", label: "Folder", kind: colChoice, choices: FileFolders()}},
			line: func(r record) (string, string) { return r["name"], r["folder"] },
			less: byKey("name"), seed: seedFiles()},
	}
}

func starred(r record) string {
	if r["starred"] == "1" {
		return "★ "
	}
	return ""
}

// SeedContactNames are the contacts a new phone holds, in its order.
func SeedContactNames() []string {
	return []string{"Aaron Hughes", "Alice Chen", "Amir Haddad", "Ben Carter", "Bianca Rossi", "Carlos Mendes", "Chloe Martin",
		"Daniel Kim", "Diana Park", "Elena Petrova", "Ethan Brooks", "Fatima Noor", "Felix Wagner", "Grace Liu", "Hannah Schmidt",
		"Hugo Laurent", "Isabel Torres", "Jack Wilson", "Julia Novak", "Kevin O'Brien", "Laura Bianchi", "Leo Tanaka", "Maya Singh",
		"Nina Jensen", "Oscar Lindqvist", "Priya Patel", "Quentin Dubois", "Rosa Alvarez", "Sam Taylor", "Sofia Costa",
		"Tom Becker", "Uma Rao", "Victor Hugo", "Wendy Zhao", "Yusuf Demir", "Zoe Adams", "王芳", "李娜", "张伟", "陈静"}
}

func seedContacts() []record {
	var out []record
	for i, n := range SeedContactNames() {
		out = append(out, record{"name": n, "phone": fmt.Sprintf("1380013%04d", 1000+i*37), "email": "", "starred": "0"})
	}
	return out
}

func seedFiles() []record {
	names := []string{"IMG_2041.jpg", "IMG_2042.jpg", "IMG_2043.jpg", "invoice_march.pdf", "invoice_april.pdf", "resume.docx",
		"notes.txt", "podcast_ep12.mp3", "holiday.mp4", "budget.xlsx", "会议纪要.docx", "合同扫描.pdf", "boarding_pass.pdf",
		"screenshot_0412.png", "song.flac", "tax_2025.pdf", "recipe_dumplings.txt", "map_offline.zip", "wallpaper.png", "report_q3.pdf"}
	folders := FileFolders()
	var out []record
	for i, n := range names {
		out = append(out, record{"name": n, "folder": folders[(i*3)%len(folders)]})
	}
	return out
}
