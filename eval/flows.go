package eval

import (
	"strings"
	"time"
)

// The oracle's ways through the apps, each a function of the screen alone:
// it looks at where it is and answers the next actions, so a pop-up, a
// slow screen or a tap that missed only delays it.

// field is one value a form must end up with.
type field struct {
	label, value string
	kind         fieldKind
}

type fieldKind int

const (
	textField fieldKind = iota
	timeField
	dateField
	choiceField
	toggleField // value "1" or "0"
)

// fillForm is the next acts on a chore app's form ("New contact"), or
// Save when every field holds its value.
func fillForm(s *Screen, fields []field) []Act {
	for _, f := range fields {
		switch f.kind {
		case textField:
			acts, hidden := s.fill(f.label, f.value)
			if hidden {
				return []Act{key("back")} // under the keyboard
			}
			if acts != nil {
				return acts
			}
		case toggleField:
			sw := s.FindType("switch", "("+f.label+")")
			if sw == nil {
				return []Act{key("back")}
			}
			if strings.HasPrefix(sw.Text, "ON") != (f.value == "1") {
				return []Act{tap(sw)}
			}
		case timeField, dateField, choiceField:
			e := s.Under(f.label)
			if e == nil {
				return []Act{key("back")}
			}
			if e.Text != f.value {
				return []Act{tap(e)}
			}
		}
	}
	return []Act{tap(s.FindType("button", "Save"))}
}

// picker answers an open picker (time, date or choice) for the fields;
// nil when no picker is open.
func picker(s *Screen, fields []field) []Act {
	title := s.Title()
	for _, f := range fields {
		switch {
		case f.kind == timeField && title == "Set time":
			return pickTime(s, f.value)
		case f.kind == dateField && title == "Set date":
			return pickDate(s, f.value)
		case f.kind == choiceField && title == f.label:
			return []Act{tap(s.FindType("button", f.value))}
		}
	}
	return nil
}

func pickTime(s *Screen, want string) []Act {
	hh, mm, _ := strings.Cut(want, ":")
	if len(s.Els) > 1 && s.Els[1].Text == want {
		return []Act{tap(s.FindType("button", "OK"))}
	}
	hour, minute := s.Find("Hour"), s.Find("Minute")
	for i := range s.Els {
		e := &s.Els[i]
		if e.Type != "button" || hour == nil || minute == nil {
			continue
		}
		inHours := e.Bounds[1] > hour.Bounds[1] && e.Bounds[1] < minute.Bounds[1]
		if inHours && e.Text == hh && !strings.HasPrefix(s.Els[1].Text, hh+":") {
			return []Act{tap(e)}
		}
		if !inHours && e.Bounds[1] > minute.Bounds[1] && e.Text == mm && strings.HasPrefix(s.Els[1].Text, hh+":") {
			return []Act{tap(e)}
		}
	}
	return []Act{fail("the time picker has no " + want)}
}

func pickDate(s *Screen, want string) []Act {
	d, err := time.Parse(time.DateOnly, want)
	if err != nil {
		return []Act{fail("bad date " + want)}
	}
	if s.Has(d.Format("Mon, 2 Jan 2006")) {
		return []Act{tap(s.FindType("button", "OK"))}
	}
	month := d.Format("January 2006")
	if !s.Has(month) {
		for i := range s.Els {
			if t, err := time.Parse("January 2006", s.Els[i].Text); err == nil {
				if t.Before(d) {
					return []Act{tap(s.FindType("button", "›"))}
				}
				return []Act{tap(s.FindType("button", "‹"))}
			}
		}
		return []Act{fail("no month on the date picker")}
	}
	if e := s.Find(d.Format("2 January 2006")); e != nil { // a day says its whole date to a screen reader
		return []Act{tap(e)}
	}
	return []Act{fail("no day " + d.Format("2 January 2006"))}
}

// inApp answers the screens outside the app: launch it when its list
// (title) or one of its own screens is not in front.
func inApp(s *Screen, app string, titles ...string) []Act {
	t := s.Title()
	for _, want := range titles {
		if t == want {
			return nil
		}
	}
	return []Act{launch(app)}
}

// search puts q in a list's search field; nil when it holds q.
func search(s *Screen, placeholder, q string) []Act {
	f := s.FindType("input", q)
	if f != nil && f.Text == q {
		return nil
	}
	f = s.FindType("input", placeholder)
	if f == nil {
		for i := range s.Els {
			if s.Els[i].Type == "input" {
				f = &s.Els[i]
				break
			}
		}
	}
	if f == nil {
		return []Act{fail("no search field")}
	}
	if f.Text != placeholder {
		if c := s.FindType("button", "Clear search"); c != nil {
			return []Act{tap(c)}
		}
	}
	return []Act{tap(f), typeText(q)}
}

// row is the list row whose text starts with title.
func (s *Screen) row(title string) *El {
	for i := range s.Els {
		e := &s.Els[i]
		if e.Type != "switch" && e.Type != "input" && (e.Text == title || strings.HasPrefix(e.Text, title+" |") || strings.HasPrefix(e.Text, "★ "+title)) {
			return e
		}
	}
	return nil
}
