// Package app is Tandem's window: it binds the one application
// (tandem/backend) to Wails — the methods the page can call (five thin
// bound services, api.go), the events it receives, the window's own
// controls (its size as a bar, dialogs, the pop-out's process). It decides
// nothing about runs, devices or the person's input: each bound method
// bounds its time, asks the backend and words the error for the page.
//
// Bound methods return plain structs and Go errors (Wails turns an error into
// a rejected promise with its text), never {Success, Msg} pairs.
package app

import (
	"context"
	_ "embed"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"tandem/backend"
	"tandem/eval"
	"tandem/mcpserver"
	"tandem/popout"
)

// Config is where the app keeps its files (the backend's).
type Config = backend.Config

// ConfigFromEnv reads the environment (backend.ConfigFromEnv).
func ConfigFromEnv() Config { return backend.ConfigFromEnv() }

// App is the window over one backend. The bound services (api.go) are
// views of it.
type App struct {
	b    *backend.Backend
	mcp  *mcpserver.Served       // the MCP server over HTTP, when on (mcp.go)
	open func(path string) error // opens a file with the system's program
	// onStartup, when set, hears Wails' context as the window starts,
	// before the app's own start: the development build's gate finds
	// Wails' server in it (main_dev.go).
	onStartup func(context.Context)

	mu      sync.Mutex
	askSave func(name string) (string, error) // the save dialog; nil without the window
	window  windowControl                     // nil without the window
	compact compactState                      // the window as a bar (compact.go)
	popouts popout.Windows                    // the mirror's own windows (tandem/popout)
	events  *pageEvents                       // the page's events (events.go); nil without the window
	evals   *eval.Evaluations                 // the Evaluate view's (api_eval.go); nil until used
	// api is what the page can call (api.go).
	api Services
}

// mainViewer is the window's mirror as a viewer of the backend's desks: it
// watches the selected device (pop-outs watch their own).
const mainViewer = "window"

// wailsNotifier is the page's events, batched (events.go).
func wailsNotifier(ctx context.Context) *pageEvents {
	return newPageEvents(func(name string, data any) { wruntime.EventsEmit(ctx, name, data) })
}

// New makes the window's App over a new backend for cfg.
func New(cfg Config) *App {
	if cfg.Door == "" {
		cfg.Door = "window"
	}
	b := backend.New(cfg)
	a := &App{b: b, mcp: mcpserver.NewServed(b, true), open: opener(cfg.Opener)}
	a.api = newServices(a)
	return a
}

// begin starts the backend's background work, telling n what changes. The
// window calls it on start-up; tests call it directly. Not exported: Wails
// binds every exported method, and the page must not be able to call the
// app's lifecycle.
func (a *App) begin(ctx context.Context, n backend.Notifier) error {
	if err := a.b.Begin(ctx, n); err != nil {
		return err
	}
	a.mcp.Sync()
	// The chores' schedules run while the window's Tandem does; Shutdown
	// ends them with the rest of the backend's work.
	a.b.RunSchedules()
	return nil
}

// shutdown closes the pop-outs and the backend (every run stopped, the
// phones' keyboards restored). Not exported, like begin.
func (a *App) shutdown() {
	a.stopEvaluation()
	a.b.WindowOpen(false, nil)
	a.mcp.Close()
	a.popouts.CloseAll()
	a.b.Shutdown()
	a.mu.Lock()
	events := a.events
	a.mu.Unlock()
	if events != nil {
		events.close()
	}
}

func (a *App) startup(ctx context.Context) {
	if a.onStartup != nil {
		a.onStartup(ctx)
	}
	a.mu.Lock()
	a.askSave = wailsSaveDialog(ctx)
	a.window = wailsWindow{ctx}
	a.events = wailsNotifier(ctx)
	events := a.events
	a.mu.Unlock()
	if err := a.begin(ctx, events); err != nil {
		wruntime.LogErrorf(ctx, "tandem: %v", err)
	}
	a.b.WindowOpen(true, raiser(ctx))
}

// callCtx is the context for one bound call: bounded, so nothing the UI
// asks for can hang it.
func (a *App) callCtx(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}

// gpuPolicy is how the windows' webviews (the main window's and each
// pop-out's) composite: never through GL. The zero value (Always)
// composited every frame through GL, software GL where
// there is no GPU (a VM, Xvfb), and the window showed a click 0.46 s late
// at load 12 (0.13 s without) and its first paint after a median 12.7 s
// under 12 CPU burners (5.9 s without; BenchmarkWindowPause,
// TestWindowFirstPaintUnderLoad, README). Wails' own default is Never
// (wailsapp/wails#2977).
const gpuPolicy = linux.WebviewGpuPolicyNever

// windowIcon is the GTK window and task-bar icon (256 px), made by
// scripts/package/icongen with the rest of the icon set.
//
//go:embed icon.png
var windowIcon []byte

// Run opens the window. assets holds the built frontend (frontend/dist);
// onStartup (nil: none) hears Wails' context first as the window starts.
func Run(assets fs.FS, cfg Config, onStartup func(context.Context)) error {
	a := New(cfg)
	a.onStartup = onStartup
	// The terminal that started the window (make run) ends on a line that
	// says so, not on WebKit's own warnings (issue 49 item 17).
	var said sync.Once
	ready := func(context.Context) {
		said.Do(func() {
			fmt.Fprintln(os.Stderr, "Tandem is running: its window is open (close it, or press Ctrl+C here, to quit).")
		})
	}
	err := wails.Run(&options.App{
		Title:            "Tandem",
		Width:            1280,
		Height:           820,
		MinWidth:         minW,
		MinHeight:        minH,
		BackgroundColour: &options.RGBA{R: 24, G: 26, B: 31, A: 255},
		AssetServer:      &assetserver.Options{Assets: assets},
		OnStartup:        a.startup,
		OnDomReady:       ready,
		OnShutdown:       func(context.Context) { a.shutdown() },
		Bind:             a.api.bound(),
		Linux:            LinuxOptions(),
	})
	if err != nil {
		return fmt.Errorf("start the window: %w", err)
	}
	return nil
}

// LinuxOptions are the windows' own on Linux (the program's name, its
// icon, the GPU policy), for the pop-out's window too (popout.Run).
func LinuxOptions() *linux.Options {
	return &linux.Options{ProgramName: "tandem", Icon: windowIcon, WebviewGpuPolicy: gpuPolicy}
}
