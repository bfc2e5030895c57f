package engine

import (
	"errors"
	"sync"
)

// What could not be read, and why: when the judge cannot read what it
// judges by (the screen's labels, the app in front, a desktop's windows),
// the person is asked before the action, and the request says which
// reading failed and the device's own words for why, as a cause the UI
// words in the person's language (issue 49 item 16: every tap asked,
// saying nothing of the failed read).

// unreadCodes are the causes of the judge's "unread" verdicts, by Why.What.
var unreadCodes = map[string]string{"labels": CauseLabelsUnread, "app": CauseAppUnread, "windows": CauseWindowsUnread}

// errNamedNoApp is a reading of the app in front that answered and named none.
var errNamedNoApp = errors.New("the device named no app in front")

// unreadReasons keeps, for each kind of reading, why the device's last
// reading of it failed ("" once one succeeds).
type unreadReasons struct {
	mu  sync.Mutex
	why map[string]string
}

// note keeps err as why reading what failed; nil clears it.
func (u *unreadReasons) note(what string, err error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if err == nil {
		delete(u.why, what)
		return
	}
	if u.why == nil {
		u.why = map[string]string{}
	}
	u.why[what] = excerpt(err.Error(), 200)
}

// reason is why the last reading of what failed.
func (u *unreadReasons) reason(what string) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.why[what]
}

// excerpt is s cut to at most n bytes, on a rune's boundary.
func excerpt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// unreadCause is the cause behind an "unread" verdict on what: which
// reading failed, and why when the device said.
func (l *loopState) unreadCause(what string) *Cause {
	code, ok := unreadCodes[what]
	if !ok {
		return nil
	}
	c := Cause{Code: code}
	if l.unreadWhy != nil {
		c.Detail = l.unreadWhy(what)
	}
	return &c
}
