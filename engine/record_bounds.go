package engine

import "tandem/engine/action"

// maxFieldBytes bounds each text of a record line. A model's words reach
// the record in many lines: a finish's summary is in the plan, the history
// step (each time it is updated), the final state and the end; a question
// in the plan, the request and the history. A 3 MB reply must not grow the
// record by several times its size, nor make a line too long to read back
// (maxRecordLine): each text is cut to this, marked "…", as it is written.
// What the run did is unchanged; the record keeps the start of what was
// said, which is what a person reads there.
const maxFieldBytes = 16 << 10

// boundEntry returns e with every text cut to maxFieldBytes. The parts it
// cuts are copies: the loop may still hold e's pointers.
func boundEntry(e *Entry) *Entry {
	if !entryOversized(e) {
		return e
	}
	b := *e
	for _, s := range []*string{&b.Goal, &b.Reason, &b.Raw, &b.Thought, &b.Error, &b.Result, &b.Text, &b.Target} {
		*s = cut(*s, maxFieldBytes)
	}
	if b.Element != nil {
		el := *b.Element
		for _, s := range []*string{&el.Label, &el.Shown, &el.ID, &el.Class} {
			*s = cut(*s, maxFieldBytes)
		}
		b.Element = &el
	}
	b.Actions = boundActions(b.Actions)
	if b.Action != nil {
		a := boundAction(*b.Action)
		b.Action = &a
	}
	if b.Step != nil {
		s := *b.Step
		s.Thought, s.Reply, s.Note, s.Result = cut(s.Thought, maxFieldBytes), cut(s.Reply, maxFieldBytes), cut(s.Note, maxFieldBytes), cut(s.Result, maxFieldBytes)
		s.Actions = boundActions(s.Actions)
		b.Step = &s
	}
	if b.Request != nil {
		q := *b.Request
		q.Message = cut(q.Message, maxFieldBytes)
		if q.Action != nil {
			a := boundAction(*q.Action)
			q.Action = &a
		}
		if q.Cause != nil {
			c := *q.Cause
			c.Detail = cut(c.Detail, maxFieldBytes)
			q.Cause = &c
		}
		b.Request = &q
	}
	if b.End != nil {
		r := *b.End
		r.Summary, r.Reason = cut(r.Summary, maxFieldBytes), cut(r.Reason, maxFieldBytes)
		r.Pending = boundTexts(r.Pending)
		b.End = &r
	}
	return &b
}

// entryOversized reports whether any text of e is past maxFieldBytes.
func entryOversized(e *Entry) bool {
	n := max(len(e.Goal), len(e.Reason), len(e.Raw), len(e.Thought), len(e.Error), len(e.Result), len(e.Text), len(e.Target), actionsLen(e.Actions))
	if el := e.Element; el != nil {
		n = max(n, len(el.Label), len(el.Shown), len(el.ID), len(el.Class))
	}
	if e.Action != nil {
		n = max(n, actionLen(*e.Action))
	}
	if s := e.Step; s != nil {
		n = max(n, len(s.Thought), len(s.Reply), len(s.Note), len(s.Result), actionsLen(s.Actions))
	}
	if q := e.Request; q != nil {
		n = max(n, len(q.Message))
		if q.Action != nil {
			n = max(n, actionLen(*q.Action))
		}
		if q.Cause != nil {
			n = max(n, len(q.Cause.Detail))
		}
	}
	if r := e.End; r != nil {
		n = max(n, len(r.Summary), len(r.Reason))
		for _, p := range r.Pending {
			n = max(n, len(p))
		}
	}
	return n > maxFieldBytes
}

func boundAction(a action.Action) action.Action {
	for _, s := range []*string{&a.Text, &a.Summary, &a.Reason, &a.Question, &a.App, &a.Sensitive, &a.Key, &a.Direction} {
		*s = cut(*s, maxFieldBytes)
	}
	return a
}

func actionLen(a action.Action) int {
	return max(len(a.Text), len(a.Summary), len(a.Reason), len(a.Question), len(a.App), len(a.Sensitive), len(a.Key), len(a.Direction))
}

func actionsLen(as []action.Action) int {
	n := 0
	for _, a := range as {
		n = max(n, actionLen(a))
	}
	return n
}

func boundActions(as []action.Action) []action.Action {
	if actionsLen(as) <= maxFieldBytes {
		return as
	}
	out := make([]action.Action, len(as))
	for i, a := range as {
		out[i] = boundAction(a)
	}
	return out
}

func boundTexts(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = cut(s, maxFieldBytes)
	}
	return out
}
