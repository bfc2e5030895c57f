package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"tandem/backend"
	"testing"
)

// Open shows the report with the system's program; Save as writes a copy
// where the person chose, and a cancelled dialog writes nothing.
func TestReportOpensAndSavesWhereThePersonSays(t *testing.T) {
	data := t.TempDir()
	// A short finished run (2 steps), as the engine recorded it.
	const id = "20261126-170445-ee60fb07"
	if err := os.CopyFS(filepath.Join(data, "runs", id), os.DirFS(filepath.Join("testdata", "runs", id))); err != nil {
		t.Fatal(err)
	}
	a := New(Config{ConfigDir: t.TempDir(), DataDir: data})
	var opened []string
	a.open = func(p string) error { opened = append(opened, p); return nil }

	if err := a.api.History.OpenReport(id); err != nil {
		t.Fatal(err)
	}
	if len(opened) != 1 || filepath.Base(opened[0]) != "report.html" {
		t.Fatalf("opened %q", opened)
	}
	if _, err := os.Stat(opened[0]); err != nil {
		t.Fatalf("the opened report is not there: %v", err)
	}

	if _, err := a.api.History.SaveReportAs(id); err == nil || !strings.Contains(err.Error(), `"text"`) {
		t.Fatalf("without the window Save as must say why, as a Said: %v", err)
	}
	keep := filepath.Join(t.TempDir(), "my report")
	var offered string
	a.askSave = func(name string) (string, error) { offered = name; return keep, nil }
	got, err := a.api.History.SaveReportAs(id)
	if err != nil || got != keep+".html" || offered != "tandem-"+id+".html" {
		t.Fatalf("saved to %q (offered %q): %v", got, offered, err)
	}
	b, err := os.ReadFile(got)
	if err != nil || !strings.Contains(string(b), "把计数器加一") {
		t.Fatalf("the copy does not hold the report: %v", err)
	}

	a.askSave = func(string) (string, error) { return "", nil } // cancelled
	if got, err := a.api.History.SaveReportAs(id); got != "" || err != nil {
		t.Fatalf("a cancelled dialog: %q %v", got, err)
	}

	err = a.api.History.OpenReport("../etc")
	var s backend.Said
	if err == nil || json.Unmarshal([]byte(err.Error()), &s) != nil || s.Text == "" {
		t.Fatalf("a bad id is refused with a Said: %v", err)
	}
	if len(opened) != 1 {
		t.Fatalf("a bad id opened %q", opened[1:])
	}
}
