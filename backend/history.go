package backend

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"tandem/engine"
	"tandem/engine/action"
	"tandem/engine/model"
)

// RunSummary is one past run in the history list.
type RunSummary struct {
	ID      string    `json:"id"`
	Device  string    `json:"device"`
	Goal    string    `json:"goal"`
	State   string    `json:"state"`
	Success bool      `json:"success"`
	Summary string    `json:"summary"`
	Started time.Time `json:"started"`
	Steps   int       `json:"steps"`
	// Damaged counts the record's lines that could not be read and were
	// skipped; the UI warns that the run is shown from what could be read.
	Damaged int `json:"damaged,omitempty"`
	// NoStart: the record's first line (the goal, the settings) is among
	// the damaged ones, so the goal is unknown and the run cannot resume.
	NoStart bool `json:"no_start,omitempty"`
	// StartedBy names who started the run when it was not the person at
	// a door of theirs (an MCP client: "mcp:<its name>").
	StartedBy string `json:"started_by,omitempty"`
	// DeviceName is the device's name at the start (Device is its id);
	// Door the door the run came in by ("window", "run": the command
	// line, "mcp"); "" in a record made before they were kept.
	DeviceName string `json:"device_name,omitempty"`
	Door       string `json:"door,omitempty"`
	// Usage is what the run's model calls cost, dropped calls included
	// (the end's totals; summed from the calls of a run with no end).
	Usage model.Usage `json:"usage"`
	// FirstGoal is the goal the run started with, when the person edited
	// it since (Goal is then the edited one).
	FirstGoal string `json:"first_goal,omitempty"`
	// Why is the engine's reason in parts when Summary is that reason
	// (no summary of the model's): the UI words it in the person's
	// language, as the run's own view does.
	Why *engine.Cause `json:"why,omitempty"`
}

// StateInterrupted marks a recorded run that has no end: not a state of the
// engine, the run can be resumed from its record.
const StateInterrupted = "Interrupted"

// StateElsewhere marks a recorded run with no end whose record another
// Tandem holds (the window, `tandem run`): it is going on there, and
// cannot be resumed here.
const StateElsewhere = "Elsewhere"

// PastRuns lists the runs recorded under dataDir, newest first. A damaged
// record is listed from what could be read, with its damage counted (see
// RunSummary.Damaged); a directory that holds no record, or one that
// cannot be read at all, is skipped: it must not hide the others.
func PastRuns(dataDir string) ([]RunSummary, error) {
	dirs, err := os.ReadDir(dataDir)
	if errors.Is(err, os.ErrNotExist) {
		return []RunSummary{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := []RunSummary{}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		rr, err := engine.ReadRecordAll(filepath.Join(dataDir, d.Name()))
		if err != nil || (len(rr.Entries) == 0 && len(rr.Damaged) == 0) {
			continue
		}
		s := summarizeRead(d.Name(), rr)
		if s.State == StateInterrupted {
			if err := engine.RecordInUse(filepath.Join(dataDir, d.Name())); err != nil {
				s.State, s.Summary = StateElsewhere, "Going on in another Tandem: follow or stop it there."
			}
		}
		if s.Started.IsZero() {
			if info, err := d.Info(); err == nil {
				s.Started = info.ModTime()
			}
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.After(out[j].Started) })
	return out, nil
}

// summarizeRead summarizes what could be read of a record, noting the
// damage; without its start line the run's time is that of its first
// readable line.
func summarizeRead(id string, rr engine.RecordRead) RunSummary {
	s := summarize(id, rr.Entries)
	s.Damaged, s.NoStart = len(rr.Damaged), !rr.Started()
	if s.NoStart && len(rr.Entries) > 0 {
		s.Started = rr.Entries[0].T
	}
	return s
}

func summarize(id string, entries []engine.Entry) RunSummary {
	// No end in the record: the run was cut off (Tandem closed or
	// crashed) and can be resumed; a live run is marked by the caller.
	s := RunSummary{ID: id, State: StateInterrupted, Summary: "The run was cut off before it ended (Tandem was closed or crashed); it can be resumed."}
	for _, e := range entries {
		switch e.Kind {
		case engine.EntryStart:
			s.Goal, s.Device, s.Started, s.StartedBy = e.Goal, e.Device, e.T, e.Via
			s.DeviceName, s.Door = e.DeviceName, e.Door
		case engine.EntryPerson:
			if e.Command == "edit_goal" && e.Text != "" && e.Text != s.Goal {
				if s.FirstGoal == "" {
					s.FirstGoal = s.Goal
				}
				s.Goal = e.Text
			}
		case engine.EntryPlan, engine.EntryDropped:
			if e.Usage != nil {
				s.Usage = s.Usage.Add(*e.Usage)
			}
		case engine.EntryAction, engine.EntryManual:
			if e.Action == nil {
				continue // as ReadRun: the count is the steps listed
			}
			s.Steps++
		case engine.EntryEnd:
			if e.End != nil {
				s.State = e.End.State.String()
				s.Success = e.End.Success
				if e.End.Usage != (model.Usage{}) {
					s.Usage = e.End.Usage
				}
				s.Summary = e.End.Summary
				if s.Summary == "" {
					s.Summary, s.Why = e.End.Reason, e.End.Why
				}
			}
		case engine.EntryState, engine.EntryObserve, engine.EntryRetry, engine.EntryStable,
			engine.EntryNote, engine.EntryRequest, engine.EntryHistory:
			// not in a summary
		default: // a kind of a newer Tandem's record: skipped
		}
	}
	return s
}

// reportStep is one row of the HTML report.
type reportStep struct {
	N        int
	ByPerson bool
	Replayed bool
	Thought  string
	Action   string
	Target   string // the words on what it pressed (PastStep.Target)
	Result   string
	Ms       int64
	Frame    template.URL // data: URL of the frame before the action
	Marker   *marker
	Alt      string // the picture's words for a reader that cannot see it
	At       time.Time
}

// marker places the action on the frame, in percent of its size.
type marker struct {
	X, Y, X2, Y2 float64
	Line         bool
}

type reportData struct {
	Run      RunSummary
	Settings *engine.Settings
	Steps    []reportStep
	Rows     []reportRow // the steps and the person's acts, in the order they happened
	Result   *engine.Result
	Made     time.Time
	W        reportWords // the report's own words, in its language
	// In W's language: the run's figures, the end's state and reason.
	Steps1, Totals, State, Reason string
	// DeviceName is the device's name with its id; Door the door the run
	// came in by, when not the window ("from the command line").
	DeviceName, Door string
	// Video is the run's video, played above the steps (nil: none).
	Video *reportVideo
	// Script is what seeks the video on a click (report_video.go).
	Script template.JS
}

// PastStep is one device action of a recorded run, for the step-by-step
// history view and the report.
type PastStep struct {
	N        int           `json:"n"`
	ByPerson bool          `json:"by_person"`
	Thought  string        `json:"thought,omitempty"`
	Action   action.Action `json:"action"`
	Result   string        `json:"result"`
	Ms       int64         `json:"ms"`
	// Target is what a person read on the element the agent's action hit
	// (engine.StepEvent.Target).
	Target string `json:"target,omitempty"`
	// Frame is the recorded screen before the action (a path inside the
	// run's directory, served by the frames server); Screen its device size.
	Frame  string      `json:"frame,omitempty"`
	Screen action.Size `json:"screen"`
	At     time.Time   `json:"at"`
	// Replayed says an earlier run's step was played again here (a
	// replay, issue 51) rather than chosen by the model.
	Replayed bool `json:"replayed,omitempty"`
}

// PastAct is one act of the person's in a recorded run: a command and what
// it carried (a denial's reason, a hand-back's note and region, an answer,
// the new goal).
type PastAct struct {
	At      time.Time      `json:"at"`
	Command string         `json:"command"`
	Text    string         `json:"text,omitempty"`
	Action  *action.Action `json:"action,omitempty"`
	Region  *engine.Region `json:"region,omitempty"`
	N       int            `json:"n,omitempty"`
	// Asked is what the run had asked when the person answered, allowed,
	// denied or let it keep going (engine.PersonAct.Asked); a confirmation's
	// holds the screen it was decided on (Asked.Frame), of Screen's size.
	Asked  *engine.Request `json:"asked,omitempty"`
	Screen action.Size     `json:"screen,omitzero"`
}

// stateActs are the person's commands recorded only as the state change
// they caused (the others have a person entry of their own).
var stateActs = map[string]bool{"pause": true, "take_over": true, "stop": true}

// RunDetail is a recorded run, step by step.
type RunDetail struct {
	Run      RunSummary       `json:"run"`
	Settings *engine.Settings `json:"settings,omitempty"`
	Steps    []PastStep       `json:"steps"`
	Acts     []PastAct        `json:"acts"`
	Result   *engine.Result   `json:"result,omitempty"`
	// Videos are the run's videos, oldest first (a resumed run has one
	// more), each starting at its own time.
	Videos []RunVideo `json:"videos"`
}

// ReadRun reads dataDir/<id>'s record into its steps.
func ReadRun(dataDir, id string) (RunDetail, error) {
	if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return RunDetail{}, fmt.Errorf("bad run id %q", id)
	}
	rr, err := engine.ReadRecordAll(filepath.Join(dataDir, id))
	if err != nil {
		return RunDetail{}, fmt.Errorf("read the run's record: %w", err)
	}
	entries := rr.Entries
	d := RunDetail{Run: summarizeRead(id, rr), Steps: []PastStep{}, Acts: []PastAct{}, Videos: runVideos(filepath.Join(dataDir, id))}
	var frame, thought string
	var replayed bool
	var screen action.Size
	for _, e := range entries {
		switch e.Kind {
		case engine.EntryStart:
			d.Settings = e.Settings
		case engine.EntryObserve:
			if e.Frame != "" {
				frame = e.Frame
			}
			if e.Screen.W > 0 {
				screen = e.Screen
			}
		case engine.EntryPlan:
			thought, replayed = e.Thought, e.Replayed
		case engine.EntryPerson:
			a := PastAct{At: e.T, Command: e.Command, Text: e.Text, Action: e.Action, Region: e.Region, N: e.N, Asked: e.Request}
			if e.Request != nil && e.Request.Frame != "" {
				a.Screen = screen
			}
			d.Acts = append(d.Acts, a)
		case engine.EntryState:
			if stateActs[e.By] {
				d.Acts = append(d.Acts, PastAct{At: e.T, Command: e.By})
			}
		case engine.EntryAction, engine.EntryManual:
			if e.Action == nil {
				continue
			}
			st := PastStep{N: len(d.Steps) + 1, ByPerson: e.Kind == engine.EntryManual, Action: *e.Action,
				Result: e.Result, Ms: e.Ms, Target: e.Target, Frame: frame, Screen: screen, At: e.T}
			if e.Kind == engine.EntryManual {
				st.Frame = e.Before
				if st.Result == "" {
					st.Result = "ok"
				}
			} else {
				st.Thought, st.Replayed = thought, replayed
				thought = ""
			}
			d.Steps = append(d.Steps, st)
		case engine.EntryEnd:
			d.Result = e.End
		case engine.EntryRetry, engine.EntryStable, engine.EntryNote, engine.EntryRequest, engine.EntryHistory,
			engine.EntryDropped:
			// not shown in History (a dropped call's cost is in the end's totals)
		default: // a kind of a newer Tandem's record: skipped
		}
	}
	return d, nil
}

// ExportReport writes dataDir/<id>/report.html: one self-contained file
// (frames inlined) with the goal, every step's screenshot with the action
// drawn on it, the thought, timings and the result. It returns the path.
func ExportReport(dataDir, id string) (string, error) { return ExportReportIn(dataDir, id, "en") }

// ExportReportIn is ExportReport with the report's own words in lang
// ("en" or "zh-CN"): a report for the person is in the language they read.
func ExportReportIn(dataDir, id, lang string) (string, error) {
	run, err := ReadRun(dataDir, id)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(dataDir, id)
	w := reportWordsFor(lang)
	data := reportData{Run: run.Run, Settings: run.Settings, Result: run.Result, Made: time.Now(), W: w, Steps1: w.steps(run.Run.Steps)}
	if r := run.Result; r != nil {
		data.State, data.Reason = w.states[r.State], r.Reason
		if data.State == "" {
			data.State = r.State.String()
		}
		if r.Why != nil {
			data.Reason = w.reasons(*r.Why)
		}
		data.Totals = data.Steps1 + " · " + w.calls(r.Calls) + " · " + w.tokens(r.Usage.PromptTokens+r.Usage.CompletionTokens)
	}
	data.Totals = joinDot(data.Totals, costWords(run.Run.Usage, w))
	data.DeviceName, data.Door = run.Run.Device, w.doors[run.Run.Door]
	if n := run.Run.DeviceName; n != "" {
		data.DeviceName = n + " (" + run.Run.Device + ")"
	}
	for _, st := range run.Steps {
		data.Steps = append(data.Steps, reportStep{N: st.N, ByPerson: st.ByPerson, Replayed: st.Replayed, Thought: st.Thought,
			Action: st.Action.String(), Target: st.Target, Result: st.Result, Ms: st.Ms, Frame: inlineFrame(dir, st.Frame),
			Marker: markerFor(st.Action, st.Screen), Alt: fmt.Sprintf("%s %d", w.ScreenBefore, st.N), At: st.At})
	}
	data.Rows = reportRows(data.Steps, run.Acts, w, dir)
	if data.Video = reportVideoOf(dir, run); data.Video != nil {
		data.Script = reportVideoScript
	}
	var buf bytes.Buffer
	if err := reportTemplate.Execute(&buf, data); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("write the report: %w", err)
	}
	return path, nil
}

func inlineFrame(dir, name string) template.URL {
	if name == "" || strings.Contains(name, "..") {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return ""
	}
	return template.URL("data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(b))
}

func markerFor(a action.Action, screen action.Size) *marker {
	if !a.Type.Pointed() || screen.W <= 0 || screen.H <= 0 {
		return nil
	}
	m := &marker{X: pct(a.X, screen.W), Y: pct(a.Y, screen.H)}
	if a.Type == action.Swipe || a.Type == action.Drag {
		m.Line, m.X2, m.Y2 = true, pct(a.X2, screen.W), pct(a.Y2, screen.H)
	}
	return m
}

func pct(v, of int) float64 { return float64(v) * 100 / float64(of) }

var reportTemplate = template.Must(template.New("report").Parse(`<!doctype html>
<html lang="{{.W.Lang}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>{{.W.Title}}: {{.Run.Goal}}</title>
<style>
body{font:15px/1.5 system-ui,'Noto Sans CJK SC',sans-serif;margin:0;background:#f4f5f8;color:#1c2030}
header{background:#fff;border-bottom:1px solid #e3e6ec;padding:20px 28px}
h1{font-size:20px;margin:0 0 4px}.meta{color:#687086;font-size:13px}
main{max-width:980px;margin:0 auto;padding:20px}
.result{border-radius:10px;padding:14px 18px;margin-bottom:18px;border:1px solid #e3e6ec;background:#fff}
.result.ok{border-color:#1f9d63;background:#e9f7f0}.result.bad{border-color:#d6454f;background:#fcecee}
.step{display:grid;grid-template-columns:220px 1fr;gap:16px;background:#fff;border:1px solid #e3e6ec;border-radius:10px;padding:12px;margin-bottom:12px}
.step.person{border-left:4px solid #c98a0b}
.shot{position:relative;width:220px}.shot img{width:100%;border-radius:6px;display:block;border:1px solid #e3e6ec}
.shot svg{position:absolute;inset:0;width:100%;height:100%}
.n{font-weight:700}.who{color:#687086;font-size:13px}.thought{white-space:pre-wrap;margin:6px 0}
code{font:13px ui-monospace,monospace;background:#f4f5f8;padding:2px 6px;border-radius:4px}
.fail{color:#d6454f}
.act{background:#fff8e8;border:1px solid #ecd9a8;border-left:4px solid #c98a0b;border-radius:10px;padding:8px 12px;margin-bottom:12px}
.act.shown{display:grid;grid-template-columns:220px 1fr;gap:16px;padding:12px}
.video{position:sticky;top:0;z-index:1;background:#f4f5f8;padding:8px 0;margin-bottom:12px;text-align:center}
.video video{max-height:40vh;max-width:100%;background:#000;border-radius:8px}
.marks{position:relative;height:14px;border-bottom:1px solid #c9cedb;margin-top:4px}
.marks a{position:absolute;top:0;width:4px;height:14px;margin-left:-2px;border-radius:2px;background:#4f6bff}
.marks a.person{background:#c98a0b}
section[data-t]{cursor:pointer}section.current{outline:2px solid #4f6bff}
</style></head><body>
<header><h1>{{.Run.Goal}}</h1>{{if .Run.FirstGoal}}<div class="meta">{{.W.FirstGoal}} {{.Run.FirstGoal}}</div>{{end}}
<div class="meta">{{.W.Device}} {{.DeviceName}} ·{{if .Door}} {{.Door}} ·{{end}} {{.W.Started}} {{.Run.Started.Format "2006-01-02 15:04:05"}} · {{.Steps1}}{{if .Settings}}{{if .Settings.Model}} · {{.W.Model}} {{.Settings.Model}}{{end}}{{end}} · {{.W.Made}} {{.Made.Format "2006-01-02 15:04"}} {{.W.ByTandem}}</div></header>
<main>
{{with .Result}}<div class="result {{if .Success}}ok{{else}}bad{{end}}"><strong>{{$.State}}</strong>{{if .Summary}}: {{.Summary}}{{else if $.Reason}}: {{$.Reason}}{{end}}
{{if .Pending}}<ul>{{range .Pending}}<li>{{.}}</li>{{end}}</ul>{{end}}
<div class="meta">{{$.Totals}}</div></div>{{end}}
{{with .Video}}<div class="video"><video id="run-video" src="{{.Src}}" controls preload="metadata"></video>
<div class="marks">{{range $.Rows}}{{with .Act}}{{with $.T .At}}<a href="#" class="person" data-t="{{.}}" title="{{$.W.ByPerson}}"></a>{{end}}{{end}}{{with .Step}}{{with $.T .At}}<a href="#" data-t="{{.}}"></a>{{end}}{{end}}{{end}}</div></div>{{end}}
{{range .Rows}}{{with .Act}}<section class="act{{if .Frame}} shown{{end}}"{{with $.T .At}} data-t="{{.}}"{{end}}>{{if .Frame}}{{template "shot" .}}{{end}}<div><div class="who">{{.At.Format "15:04:05"}} · {{$.W.ByPerson}}</div>{{if .Asked}}<div class="asked">{{.Asked}}</div>{{end}}<div><strong>{{.What}}</strong>{{if .Target}} {{.Target}}{{end}}{{if .Action}} <code>{{.Action}}</code>{{end}}{{if .Text}} — “{{.Text}}”{{end}}{{if .Region}} · region {{.Region}}{{end}}</div></div></section>{{end}}{{with .Step}}<section class="step{{if .ByPerson}} person{{end}}"{{with $.T .At}} data-t="{{.}}"{{end}}>
{{template "shot" .}}
<div><div class="who"><span class="n">{{.N}}</span> · {{if not .At.IsZero}}{{.At.Format "15:04:05"}} · {{end}}{{if .ByPerson}}{{$.W.ByPerson}}{{else if .Replayed}}{{$.W.Replayed}}{{else}}{{$.W.ByAgent}}{{end}} · {{.Ms}} ms</div>
{{if .Thought}}<p class="thought">{{.Thought}}</p>{{end}}
<code>{{.Action}}</code>{{if .Target}} “{{.Target}}”{{end}}{{if ne .Result "ok"}} <span class="fail">{{.Result}}</span>{{end}}</div></section>{{end}}
{{else}}<p>{{$.W.NoSteps}}</p>{{end}}
</main>{{with .Script}}<script>{{.}}</script>{{end}}</body></html>
{{define "shot"}}<div class="shot">{{if .Frame}}<img src="{{.Frame}}" alt="{{.Alt}}">{{with .Marker}}<svg viewBox="0 0 100 100" preserveAspectRatio="none">{{if .Line}}<line x1="{{.X}}" y1="{{.Y}}" x2="{{.X2}}" y2="{{.Y2}}" stroke="#4f6bff" stroke-width="1.2" vector-effect="non-scaling-stroke"/>{{end}}<ellipse cx="{{.X}}" cy="{{.Y}}" rx="3.5" ry="1.7" fill="rgba(79,107,255,.25)" stroke="#4f6bff" stroke-width="2" vector-effect="non-scaling-stroke"/></svg>{{end}}{{end}}</div>{{end}}`))
