package backend

import (
	"fmt"
	"html/template"
	"sort"
	"time"

	"tandem/engine"
)

// reportRow is one row of the HTML report: a step or an act of the person's.
type reportRow struct {
	Step *reportStep
	Act  *reportAct
}

// reportAct is an act of the person's as the report words it.
type reportAct struct {
	At     time.Time
	What   string
	Action string
	// Target is what a confirmation named, in words ("Press “Pay ¥99”").
	Target string
	Text   string
	Region string
	// Asked is what the run had asked, when the act answered it (the
	// question, the error the person let it go on after).
	Asked string
	// Frame is the screen a confirmation was decided on, with the action
	// drawn on it (Marker), as the dialog showed it.
	Frame  template.URL
	Marker *marker
	Alt    string
}

// reportRows interleaves steps and acts by time; at the same time, the act
// comes first (it caused what followed). dir is the run's, for the frames.
func reportRows(steps []reportStep, acts []PastAct, w reportWords, dir string) []reportRow {
	rows := make([]reportRow, 0, len(steps)+len(acts))
	for i := range acts {
		a := acts[i]
		what, ok := w.acts[a.Command]
		switch {
		case a.Command == "stop_gracefully":
			what = w.stopAfter(a.N)
		case !ok:
			what = a.Command
		}
		ra := &reportAct{At: a.At, What: what, Text: a.Text, Region: regionText(a.Region), Asked: askedText(a.Asked, w)}
		if a.Action != nil {
			ra.Action = a.Action.String()
		}
		// An answer to a confirmation names the element, as the dialog did.
		if a.Asked != nil && a.Asked.Kind == engine.AskConfirm && a.Asked.Label != "" {
			ra.Target = w.target(a.Asked.Label)
		}
		if a.Asked != nil && a.Asked.Frame != "" {
			ra.Frame, ra.Alt = inlineFrame(dir, a.Asked.Frame), ra.What+" "+ra.Target
			if a.Asked.Action != nil && a.Screen.W > 0 {
				ra.Marker = markerFor(*a.Asked.Action, a.Screen)
			}
		}
		rows = append(rows, reportRow{Act: ra})
	}
	for i := range steps {
		rows = append(rows, reportRow{Step: &steps[i]})
	}
	at := func(r reportRow) time.Time {
		if r.Act != nil {
			return r.Act.At
		}
		return r.Step.At
	}
	sort.SliceStable(rows, func(i, j int) bool {
		ti, tj := at(rows[i]), at(rows[j])
		if ti.Equal(tj) {
			return rows[i].Act != nil && rows[j].Act == nil
		}
		return ti.Before(tj)
	})
	return rows
}

func regionText(r *engine.Region) string {
	if r == nil {
		return ""
	}
	return fmt.Sprintf("(%d, %d) – (%d, %d)", r.X1, r.Y1, r.X2, r.Y2)
}

// askedText is what the run had asked, in the report's words.
func askedText(r *engine.Request, w reportWords) string {
	switch {
	case r == nil:
		return ""
	case r.Kind == engine.AskQuestion:
		return w.asked(r.Message)
	case r.Kind == engine.AskConfirm:
		return "" // the run had not stopped, it asked: the act names what (reportAct.Target)
	}
	return w.stoppedFor(r)
}
