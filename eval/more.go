package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Templates of several records at once and across apps: the complex tier.

func moreTemplates() []Template {
	return []Template{
		{Name: "alarm_edit", Tier: Medium, Apps: []string{"Clock"}, Source: "a person's request: change a record through its form",
			Make: func(r *rand.Rand) Spec {
				a := pick(r, alarmSeed)
				to := fmt.Sprintf("%02d:%02d", 5+r.IntN(4), 5*r.IntN(12))
				for slices.ContainsFunc(alarmSeed, func(x []string) bool { return x[1] == to }) {
					to = fmt.Sprintf("%02d:%02d", 5+r.IntN(4), 5*r.IntN(12))
				}
				return Spec{Goal: fmt.Sprintf("Move my %s alarm to %s.", a[1], to), Setup: seedRows(clockApp, alarmSeed),
					Check: func(ctx context.Context, p Phone, _ Outcome) (bool, error) {
						rs, err := rows(ctx, p, uriAlarms, clockApp.cols...)
						return has(rs, map[string]string{"time": to, "label": a[3]}) && !has(rs, map[string]string{"time": a[1]}), err
					},
					Solve: func(s *Screen) []Act {
						return editFlow(s, clockApp, a[1], []field{{"Time", to, timeField}}, func(s *Screen) bool { return s.row(to) != nil })
					}}
			}},
		{Name: "contacts_add_two", Tier: Complex, Apps: []string{"Contacts"}, Source: "AndroidWorld ContactsAddContact, twice in one goal",
			Make: func(r *rand.Rand) Spec {
				i := r.IntN(len(newNames))
				a, b := newNames[i], newNames[(i+1+r.IntN(len(newNames)-1))%len(newNames)]
				pa, pb := fmt.Sprintf("139%08d", r.IntN(100000000)), fmt.Sprintf("137%08d", r.IntN(100000000))
				return Spec{Goal: fmt.Sprintf("Add two contacts: %s (%s) and %s (%s).", a, pa, b, pb), Setup: contactsSetup(),
					Check: func(ctx context.Context, p Phone, _ Outcome) (bool, error) {
						rs, err := rows(ctx, p, uriContacts, contactsApp.cols...)
						return has(rs, map[string]string{"name": a, "phone": pa}) && has(rs, map[string]string{"name": b, "phone": pb}) && len(rs) == len(seedNames)+2, err
					},
					Solve: func(s *Screen) []Act {
						if s.Memo["first"] == "" {
							acts := addFlow(s, contactsApp, a, []field{{"Name", a, textField}, {"Phone", pa, textField}})
							if len(acts) != 1 || acts[0].Tool != "finish" {
								return acts
							}
							s.Memo["first"] = "added"
						}
						return addFlow(s, contactsApp, b, []field{{"Name", b, textField}, {"Phone", pb, textField}})
					}}
			}},
		{Name: "files_cleanup", Tier: Complex, Apps: []string{"Files"}, Source: "AndroidWorld FilesDeleteFile, every file of a folder",
			Make: func(r *rand.Rand) Spec {
				folder := pick(r, []string{"Download", "Music", "Pictures"})
				var keep []string
				n := 0
				for _, f := range fileSeed {
					if f[3] == folder {
						n++
					} else {
						keep = append(keep, f[1])
					}
				}
				last := slices.Max(keep)
				return Spec{Goal: fmt.Sprintf("Delete every file in my %s folder; I confirm each deletion.", folder), Setup: seedRows(filesApp, fileSeed), Confirm: Allow,
					Check: func(ctx context.Context, p Phone, _ Outcome) (bool, error) {
						rs, err := rows(ctx, p, uriFiles, filesApp.cols...)
						return !has(rs, map[string]string{"folder": folder}) && len(rs) == len(fileSeed)-n, err
					},
					Solve: func(s *Screen) []Act { return cleanup(s, folder, last) }}
			}},
		{Name: "event_to_alarm", Tier: Complex, Apps: []string{"Calendar", "Clock"}, Source: "a person's request: read in one app, act in another",
			Make: func(r *rand.Rand) Spec {
				title := pick(r, []string{"Flight to Lisbon", "面试", "Marathon", "Parents' evening"})
				at := fmt.Sprintf("%02d:%02d", 7+r.IntN(12), 5*r.IntN(12))
				day := fmt.Sprintf("2026-12-%02d", 10+r.IntN(18))
				t, _ := time.Parse("15:04", at)
				want := t.Add(-time.Hour).Format("15:04")
				goal := fmt.Sprintf("Set an alarm one hour before my %q event in Calendar.", title)
				if r.IntN(3) == 0 {
					goal = fmt.Sprintf("在日历里找到“%s”，在它开始前一小时定一个闹钟", title)
				}
				setup := append(seedRows(calendarApp, append(slices.Clone(eventSeed), []string{"title", title, "date", day, "time", at, "location", ""})), seedRows(clockApp, alarmSeed)...)
				return Spec{Goal: goal, Setup: setup,
					Check: checkRow(uriAlarms, clockApp.cols, map[string]string{"time": want, "enabled": "1"}),
					Solve: func(s *Screen) []Act { return eventToAlarm(s, title) }}
			}},
	}
}

// askTemplates are chores that need the person's answer.
func askTemplates() []Template {
	return []Template{
		{Name: "alarm_ask", Tier: Medium, Apps: []string{"Clock"}, Source: "a person's request that needs their answer: the agent must ask",
			Make: func(r *rand.Rand) Spec {
				at := fmt.Sprintf("%02d:%02d", 5+r.IntN(4), 5*r.IntN(12))
				for slices.ContainsFunc(alarmSeed, func(x []string) bool { return x[1] == at }) { // never set already
					at = fmt.Sprintf("%02d:%02d", 5+r.IntN(4), 5*r.IntN(12))
				}
				goal := pick(r, []string{"Set an alarm for tomorrow morning, but ask me for the time first.", "帮我定一个明天早上的闹钟，几点先问我"})
				return Spec{Goal: goal, Setup: seedRows(clockApp, alarmSeed), Reply: at,
					Check: checkRow(uriAlarms, clockApp.cols, map[string]string{"time": at, "enabled": "1"}),
					Solve: func(s *Screen) []Act { return askedAlarm(s) }}
			}},
	}
}

var timeRe = regexp.MustCompile(`\b(\d{2}):(\d{2})\b`)

// answeredRe finds the person's answer in a request (the engine's note:
// "You asked the person: …. They answered: \"…\".").
var answeredRe = regexp.MustCompile(`They answered: "([^"]*)"`)

// askedAlarm asks the person for the time, then sets the alarm they said.
func askedAlarm(s *Screen) []Act {
	if s.Memo["at"] == "" {
		m := answeredRe.FindStringSubmatch(s.Text)
		if m == nil {
			return []Act{askUser("What time should the alarm ring tomorrow morning?")}
		}
		t, err := time.Parse("15:04", timeRe.FindString(m[1]))
		if err != nil {
			return []Act{askUser("Which time, as HH:MM?")}
		}
		s.Memo["at"] = t.Format("15:04")
	}
	at := s.Memo["at"]
	return addFlow(s, clockApp, at, []field{{"Time", at, timeField}})
}

func eventToAlarm(s *Screen, title string) []Act {
	if at := s.Memo["at"]; at != "" {
		return addFlow(s, clockApp, at, []field{{"Time", at, timeField}})
	}
	if acts := inApp(s, "Calendar", calendarApp.list); acts != nil {
		return acts
	}
	if acts := search(s, calendarApp.search, title); acts != nil {
		return acts
	}
	r := s.row(title)
	if r == nil {
		return []Act{fail("no " + title + " in Calendar")}
	}
	m := timeRe.FindString(strings.TrimPrefix(r.Text, title))
	t, err := time.Parse("15:04", m)
	if err != nil {
		return []Act{fail("no time on " + title)}
	}
	s.Memo["at"] = t.Add(-time.Hour).Format("15:04")
	return []Act{launch("Clock")}
}

// cleanup deletes the files of folder one by one, scrolling down to the
// last file of the others.
func cleanup(s *Screen, folder, last string) []Act {
	switch s.Title() {
	case "Delete file?", "Edit file":
		return []Act{tap(s.FindType("button", "Delete"))}
	case filesApp.list:
	default:
		return []Act{launch("Files")}
	}
	for i := range s.Els {
		if e := &s.Els[i]; e.Type == "item" && strings.HasSuffix(e.Text, "| "+folder) && !s.underAdd(e) {
			return []Act{tap(e)}
		}
	}
	if s.row(last) != nil {
		return []Act{finish("the " + folder + " folder is empty")}
	}
	return []Act{swipeUp(s)}
}
