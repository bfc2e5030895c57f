package app

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/pkg/browser"
	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"
)

// An exported report is useful when the person can see it and keep it:
// Open shows it in their browser, Save as puts a copy where they choose.

// opener opens a file with the system's default program. TANDEM_OPENER (a
// command given the path) replaces it, so the browser suite records what
// would open instead of starting a browser.
func opener(cmd string) func(path string) error {
	if cmd == "" {
		return browser.OpenFile
	}
	return func(path string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return exec.CommandContext(ctx, cmd, path).Run()
	}
}

// errNoWindow: the save dialog belongs to the window.
var errNoWindow = errors.New("saving a copy needs Tandem's window")

// wailsSaveDialog asks where to save with the system's save dialog.
func wailsSaveDialog(ctx context.Context) func(name string) (string, error) {
	return func(name string) (string, error) {
		return wruntime.SaveFileDialog(ctx, wruntime.SaveDialogOptions{
			DefaultFilename:      name,
			Title:                "Save the report",
			Filters:              []wruntime.FileFilter{{DisplayName: "HTML (*.html)", Pattern: "*.html"}},
			CanCreateDirectories: true,
		})
	}
}

// OpenReport writes the run's report and opens it in the person's browser.
func (a *HistoryAPI) OpenReport(id string) (err error) {
	defer toUI(&err)
	path, err := a.b.ExportPersonReport(id)
	if err != nil {
		return err
	}
	return a.open(path)
}

// SaveReportAs asks where to save the run's report and writes a copy there.
// It returns the copy's path, or "" when the person cancelled.
func (a *HistoryAPI) SaveReportAs(id string) (_ string, err error) {
	defer toUI(&err)
	path, err := a.b.ExportPersonReport(id)
	if err != nil {
		return "", err
	}
	a.mu.Lock()
	ask := a.askSave
	a.mu.Unlock()
	if ask == nil {
		return "", errNoWindow
	}
	target, err := ask("tandem-" + id + ".html")
	if err != nil || target == "" {
		return "", err
	}
	if filepath.Ext(target) == "" {
		target += ".html"
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return target, os.WriteFile(target, b, 0o644)
}
