package eval

import (
	"bytes"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
)

// Report writes an evaluation as one self-contained HTML file beside its
// record and returns the file's path.
func (e *Evaluations) Report(id string) (string, error) {
	ev, err := e.Load(id)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := reportPage.Execute(&b, reportData(ev)); err != nil {
		return "", err
	}
	path := filepath.Join(e.dir, ev.ID+".html")
	if err := os.MkdirAll(e.dir, 0o755); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, b.Bytes(), 0o644)
}

type reportRow struct {
	Label string
	Cells []string
}

type reportTask struct {
	Task
	Cells []TaskRun
}

func reportData(ev Evaluation) map[string]any {
	pct := func(k, n int) string {
		if n == 0 {
			return "–"
		}
		return fmt.Sprintf("%.0f%% (%d/%d)", 100*float64(k)/float64(n), k, n)
	}
	var rows []reportRow
	add := func(label string, f func(m ModelResult) string) {
		r := reportRow{Label: label}
		for _, m := range ev.Models {
			r.Cells = append(r.Cells, f(m))
		}
		rows = append(rows, r)
	}
	add("Success", func(m ModelResult) string { return pct(m.Summary.Success, m.Summary.Tasks) })
	for _, t := range Tiers {
		add("  "+string(t), func(m ModelResult) string { s := m.Summary.ByTier[t]; return pct(s.Success, s.Tasks) })
	}
	add("False “done”", func(m ModelResult) string { return fmt.Sprint(m.Summary.FalseDone) })
	add("Missed “done”", func(m ModelResult) string { return fmt.Sprint(m.Summary.MissedDone) })
	add("Steps per task", func(m ModelResult) string { return per(m, func(r TaskRun) float64 { return float64(r.Steps) }, "%.1f") })
	add("Seconds per task", func(m ModelResult) string { return per(m, func(r TaskRun) float64 { return r.Seconds }, "%.1f") })
	add("Tokens per task", func(m ModelResult) string {
		return per(m, func(r TaskRun) float64 { return float64(r.Tokens) }, "%.0f")
	})
	add("Cost per task", func(m ModelResult) string { return per(m, func(r TaskRun) float64 { return r.Cost }, "%.4f") })
	var tasks []reportTask
	for _, t := range ev.Tasks {
		rt := reportTask{Task: t}
		for _, m := range ev.Models {
			var r TaskRun
			for _, x := range m.Results {
				if x.Task == t.ID {
					r = x
				}
			}
			rt.Cells = append(rt.Cells, r)
		}
		tasks = append(tasks, rt)
	}
	return map[string]any{"E": ev, "Rows": rows, "Tasks": tasks}
}

// per is the mean of f over a model's task runs.
func per(m ModelResult, f func(TaskRun) float64, format string) string {
	if len(m.Results) == 0 {
		return "–"
	}
	sum := 0.0
	for _, r := range m.Results {
		sum += f(r)
	}
	return fmt.Sprintf(format, sum/float64(len(m.Results)))
}

var reportPage = template.Must(template.New("report").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Tandem evaluation {{.E.ID}}</title>
<style>
body{font:14px/1.45 system-ui,"Noto Sans CJK SC",sans-serif;margin:24px;color:#1d2330;background:#fafbfc}
h1{font-size:20px;margin:0 0 4px}.sub{color:#667085;margin-bottom:18px}
table{border-collapse:collapse;margin:10px 0 24px;background:#fff;box-shadow:0 0 0 1px #e4e7ec}
th,td{padding:6px 10px;border-bottom:1px solid #eef0f3;text-align:left;vertical-align:top}
th{background:#f3f5f8;font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums}
.ok{color:#137333;font-weight:600}.no{color:#b42318;font-weight:600}.goal{max-width:520px}.muted{color:#667085}
</style></head><body>
<h1>Tandem evaluation</h1>
<div class="sub">{{.E.Started.Format "2006-01-02 15:04"}} · seed {{.E.Request.Seed}} · {{len .E.Tasks}} tasks{{if .E.Request.Tier}} ({{.E.Request.Tier}}){{end}} · {{.E.Request.Phones}} virtual phones · {{.E.State}}</div>
<table><tr><th></th>{{range .E.Models}}<th>{{.Name}}</th>{{end}}</tr>
{{range .Rows}}<tr><td>{{.Label}}</td>{{range .Cells}}<td class="num">{{.}}</td>{{end}}</tr>{{end}}</table>
<table><tr><th>Task</th><th>Tier</th><th class="goal">Goal</th>{{range .E.Models}}<th>{{.Name}}</th>{{end}}</tr>
{{range .Tasks}}<tr><td>{{.ID}}</td><td>{{.Tier}}</td><td class="goal">{{.Goal}}</td>{{range .Cells}}<td>{{if not .Task}}<span class="muted">not run</span>{{else if .Success}}<span class="ok">✓</span>{{else}}<span class="no">✗</span>{{end}}{{if .Task}} <span class="muted">{{.Steps}} steps · {{.Ended}}{{if and .ClaimedDone (not .Success)}} · false done{{end}}{{if .Run}} · run {{.Run}}{{end}}</span>{{end}}</td>{{end}}</tr>{{end}}
</table></body></html>
`))
