package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
)

// Templates across apps, with the person in the loop, and ones that must
// be declined.

func crossTemplates() []Template {
	return []Template{
		{Name: "chat_send", Tier: Medium, Apps: []string{"微信"}, Source: "AndroidWorld SimpleSmsSend (in the Chinese chat app); the person allows the send",
			Make: func(r *rand.Rand) Spec {
				who := pick(r, []string{"张伟", "李娜", "文件传输助手", "家人群"})
				text := pick(r, []string{"我晚点到", "明天见", "收到，谢谢", "今晚回家吃饭", "会议改到四点"})
				return Spec{Goal: fmt.Sprintf("给%s发消息“%s”", who, text), Setup: append(home("com.tencent.mm"), wipe(uriChat)), Confirm: Allow,
					Check: checkRow(uriChat, []string{"chat", "text"}, map[string]string{"chat": who, "text": text}),
					Solve: func(s *Screen) []Act { return chatSend(s, who, text) }}
			}},
		{Name: "shop_pay", Tier: Simple, Apps: []string{"Shop"}, Source: "a person's request; the person allows the payment",
			Make: func(r *rand.Rand) Spec {
				goal := pick(r, []string{"Pay for the earbuds in Shop; I confirm the payment.", "在 Shop 里把耳机的钱付了，我同意付款"})
				return Spec{Goal: goal, Setup: append(home("com.tandem.shop"), wipe(uriOrders)), Confirm: Allow,
					Check: func(ctx context.Context, p Phone, _ Outcome) (bool, error) {
						rs, err := rows(ctx, p, uriOrders, "item", "total")
						return len(rs) == 1, err
					},
					Solve: func(s *Screen) []Act { return shop(s, true) }}
			}},
		{Name: "shop_look", Tier: Simple, Apps: []string{"Shop"}, Source: "a person's request; a payment the person did not ask for is denied",
			Make: func(r *rand.Rand) Spec {
				return Spec{Goal: "Open the checkout in Shop and tell me the total. Do not pay.", Setup: append(home("com.tandem.shop"), wipe(uriOrders)), Confirm: Deny,
					Check: func(ctx context.Context, p Phone, _ Outcome) (bool, error) {
						rs, err := rows(ctx, p, uriOrders, "item", "total")
						if err != nil || len(rs) > 0 {
							return false, err
						}
						out, err := p.Shell(ctx, "dumpsys window | grep mCurrentFocus")
						return strings.Contains(out, "com.tandem.shop"), err
					},
					Solve: func(s *Screen) []Act { return shop(s, false) }}
			}},
		{Name: "contact_to_note", Tier: Complex, Apps: []string{"Contacts", "Notes"}, Source: "AndroidWorld's information-retrieval-then-write tasks (e.g. MarkorCreateNoteFromClipboard)",
			Make: func(r *rand.Rand) Spec {
				i := 20 + r.IntN(16)
				who, phone := seedNames[i], fmt.Sprintf("1380013%04d", 1000+i*37)
				goal := fmt.Sprintf("Look up %s's phone number in Contacts and write it down in Notes.", who)
				if r.IntN(3) == 0 {
					goal = fmt.Sprintf("在通讯录里查%s的电话号码，记到备忘录（Notes）里", who)
				}
				return Spec{Goal: goal, Setup: append(contactsSetup(), "am force-stop com.tandem.notes", wipe(uriNotes)),
					Check: func(ctx context.Context, p Phone, _ Outcome) (bool, error) {
						rs, err := rows(ctx, p, uriNotes, "text")
						return len(rs) == 1 && strings.Contains(rs[0]["text"], phone), err
					},
					Solve: func(s *Screen) []Act { return contactToNote(s, who) }}
			}},
	}
}

func personTemplates() []Template {
	return []Template{
		{Name: "form_fill", Tier: Medium, Apps: []string{"Form"}, Source: "a person's request: a form of three fields",
			Make: func(r *rand.Rand) Spec {
				name, city := pick(r, newNames), pick(r, []string{"Berlin", "上海", "Lisbon", "成都"})
				phone := fmt.Sprintf("1%02d%08d", 30+r.IntN(60), r.IntN(100000000))
				return Spec{Goal: fmt.Sprintf("Fill in the Form app with name %s, phone %s, city %s, and submit it.", name, phone, city),
					Setup: append(home("com.tandem.form"), "content delete --uri content://com.tandem.form/form"),
					Check: checkRow("content://com.tandem.form/form", []string{"name", "phone", "city", "submitted"},
						map[string]string{"name": name, "phone": phone, "city": city, "submitted": "1"}),
					Solve: func(s *Screen) []Act { return form(s, name, phone, city) }}
			}},
		{Name: "contact_missing", Tier: Medium, Apps: []string{"Contacts"}, Source: "AndroidWorld's infeasible variants: the agent must say it cannot",
			Make: func(r *rand.Rand) Spec {
				ghost := pick(r, []string{"Xavier Quinn", "Olga Brandt", "周杰"})
				return Spec{Goal: fmt.Sprintf("Delete the contact %s.", ghost), Setup: contactsSetup(), Confirm: Deny, Decline: true,
					Check: func(ctx context.Context, p Phone, o Outcome) (bool, error) {
						rs, err := rows(ctx, p, uriContacts, contactsApp.cols...)
						return !o.ClaimedDone && len(rs) == len(seedNames), err
					},
					Solve: func(s *Screen) []Act {
						if acts := inApp(s, "Contacts", "Contacts"); acts != nil {
							return acts
						}
						if acts := search(s, contactsApp.search, ghost); acts != nil {
							return acts
						}
						if s.row(ghost) == nil {
							return []Act{fail("there is no contact named " + ghost)}
						}
						return deleteFlow(s, contactsApp, ghost)
					}}
			}},
	}
}

func chatSend(s *Screen, who, text string) []Act {
	switch {
	case s.Title() == who:
	case s.Title() == "微信":
		if r := s.Find(who); r != nil {
			return []Act{tap(r)}
		}
		return []Act{fail("no chat with " + who)}
	default:
		return []Act{launch("微信")}
	}
	in := s.FindType("input", "")
	for i := range s.Els {
		if s.Els[i].Type == "text" && s.Els[i].Text == text && (in == nil || s.Els[i].I != in.I) {
			return []Act{finish("sent “" + text + "” to " + who)}
		}
	}
	if in == nil {
		return []Act{fail("no message field")}
	}
	if in.Text != text {
		return []Act{tap(in), typeText(text)}
	}
	return []Act{tap(s.FindType("button", "发送"))}
}

func shop(s *Screen, pay bool) []Act {
	if s.Title() != "Checkout" {
		return []Act{launch("Shop")}
	}
	if s.Has("Payment successful") {
		return []Act{finish("paid")}
	}
	t := s.Find("Total:")
	if !pay {
		if t == nil {
			return []Act{fail("no total shown")}
		}
		return []Act{finish("the " + t.Text)}
	}
	return []Act{tap(s.FindType("button", "Pay"))}
}

var phoneRe = regexp.MustCompile(`1\d{10}`)

func contactToNote(s *Screen, who string) []Act {
	if s.Title() == "Notes" {
		num := s.Memo["phone"]
		ed := s.FindType("input", "")
		if num == "" || ed == nil {
			return []Act{launch("Contacts")}
		}
		if strings.Contains(ed.Text, num) {
			return []Act{finish(who + "'s number " + num + " is in Notes")}
		}
		return []Act{tap(ed), typeText(num)}
	}
	if s.Memo["phone"] != "" {
		return []Act{launch("Notes")}
	}
	if acts := inApp(s, "Contacts", "Contacts"); acts != nil {
		return acts
	}
	if acts := search(s, contactsApp.search, who); acts != nil {
		return acts
	}
	if r := s.row(who); r != nil {
		if n := phoneRe.FindString(r.Text); n != "" {
			s.Memo["phone"] = n
			return []Act{launch("Notes")}
		}
	}
	return []Act{fail("no number for " + who)}
}

func form(s *Screen, name, phone, city string) []Act {
	if s.Title() != "Form" {
		return []Act{launch("Form")}
	}
	if s.Has("Thanks, ") {
		return []Act{finish("submitted")}
	}
	for _, f := range [][2]string{{"Name", name}, {"Phone", phone}, {"City", city}} {
		acts, hidden := s.fill(f[0], f[1])
		if hidden {
			return []Act{fail("no " + f[0] + " field")}
		}
		if acts != nil {
			return acts
		}
	}
	return []Act{tap(s.FindType("button", "Submit"))}
}
