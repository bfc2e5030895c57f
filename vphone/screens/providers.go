package screens

import (
	"fmt"
	"slices"
	"strconv"
)

// The apps' content providers: what `content query --uri
// content://PKG/TABLE` reads and `content insert/update/delete` change, as
// a check or a task's set-up reads and sets a real phone's apps. The chore
// apps' tables are theirs in full; the fixture apps show what they hold
// (the note, the counter, the messages sent in 微信, the form) read-only.

// Row is one row of a provider: its columns in order, and their values.
type Row struct {
	Cols []string
	Vals map[string]string
}

// ErrNoProvider is a URI no app provides.
type ErrNoProvider struct{ URI string }

func (e ErrNoProvider) Error() string { return "Could not find provider: " + e.URI }

func (m *Model) table(pkg, table string) *recordsApp {
	if a := m.chores[pkg]; a != nil && a.def.table == table {
		return a
	}
	return nil
}

// Query is the rows of pkg's table, in _id order.
func (m *Model) Query(pkg, table string) ([]Row, error) {
	if a := m.table(pkg, table); a != nil {
		cols := []string{"_id"}
		for _, c := range a.def.cols {
			cols = append(cols, c.key)
		}
		rows := slices.Clone(a.rows)
		slices.SortFunc(rows, func(x, y record) int { return x.id() - y.id() })
		out := make([]Row, 0, len(rows))
		for _, r := range rows {
			out = append(out, Row{Cols: cols, Vals: map[string]string(r)})
		}
		return out, nil
	}
	switch pkg + "/" + table {
	case PkgNotes + "/notes":
		return []Row{{Cols: []string{"_id", "text"}, Vals: map[string]string{"_id": "1", "text": m.note}}}, nil
	case PkgCounter + "/counter":
		return []Row{{Cols: []string{"_id", "value"}, Vals: map[string]string{"_id": "1", "value": strconv.Itoa(m.counter)}}}, nil
	case PkgForm + "/form":
		f := m.form
		return []Row{{Cols: []string{"_id", "name", "phone", "city", "submitted"}, Vals: map[string]string{"_id": "1", "name": f.Name,
			"phone": f.Phone, "city": f.City, "submitted": fmt.Sprint(b2i(f.Submitted))}}}, nil
	case PkgShop + "/orders":
		if !m.paid {
			return nil, nil
		}
		return []Row{{Cols: []string{"_id", "item", "total"}, Vals: map[string]string{"_id": "1", "item": "Wireless Earbuds", "total": "99"}}}, nil
	case PkgChat + "/messages":
		var out []Row
		for i, c := range chats() {
			for _, s := range m.chatSent[i] {
				out = append(out, Row{Cols: []string{"_id", "chat", "text"}, Vals: map[string]string{"_id": strconv.Itoa(len(out) + 1), "chat": c[0], "text": s}})
			}
		}
		return out, nil
	}
	return nil, ErrNoProvider{URI: "content://" + pkg + "/" + table}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Insert adds a row to pkg's table and returns its _id.
func (m *Model) Insert(pkg, table string, vals map[string]string) (int, error) {
	a := m.table(pkg, table)
	if a == nil {
		return 0, ErrNoProvider{URI: "content://" + pkg + "/" + table}
	}
	id := a.insert(vals)
	m.Changed()
	return id, nil
}

// Update sets vals on the rows of pkg's table that where accepts; it
// returns how many.
func (m *Model) Update(pkg, table string, vals map[string]string, where func(map[string]string) bool) (int, error) {
	a := m.table(pkg, table)
	if a == nil {
		return 0, ErrNoProvider{URI: "content://" + pkg + "/" + table}
	}
	n := 0
	for _, r := range a.rows {
		if where(r) {
			for k, v := range vals {
				if k != "_id" {
					r[k] = v
				}
			}
			n++
		}
	}
	m.Changed()
	return n, nil
}

// Delete removes the rows of pkg's table that where accepts; it returns
// how many.
func (m *Model) Delete(pkg, table string, where func(map[string]string) bool) (int, error) {
	a := m.table(pkg, table)
	if a == nil {
		return m.reset(pkg, table)
	}
	n := len(a.rows)
	a.rows = slices.DeleteFunc(a.rows, func(r record) bool { return where(r) })
	if a.scr == scrForm && a.byID(a.editing) == nil && a.editing != 0 {
		a.scr, a.confirm = "", false
	}
	m.Changed()
	return n - len(a.rows), nil
}

// reset is a delete on a fixture app's provider: it puts the app back as
// a new phone has it (a task's set-up and tear-down).
func (m *Model) reset(pkg, table string) (int, error) {
	switch pkg + "/" + table {
	case PkgNotes + "/notes":
		m.note = ""
	case PkgCounter + "/counter":
		m.counter = 0
	case PkgForm + "/form":
		m.form, m.formError = FormState{}, ""
	case PkgShop + "/orders":
		m.paid = false
	case PkgChat + "/messages":
		m.chatSent, m.chatDraft = map[int][]string{}, ""
	default:
		return 0, ErrNoProvider{URI: "content://" + pkg + "/" + table}
	}
	m.Changed()
	return 1, nil
}
