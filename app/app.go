// Package app is Tandem's only Wails adapter: the methods the UI calls (five
// thin bound services, api.go), the events it receives, and the window's
// options. Nothing below app/ imports Wails; the engine is handed small
// interfaces instead.
//
// Bound methods return plain structs and Go errors (Wails turns an error into
// a rejected promise with its text), never {Success, Msg} pairs.
package app

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"tandem/devices"
	"tandem/devices/adb"
	"tandem/engine"
	"tandem/engine/model"
	"tandem/engine/observe"
	"tandem/internal/datadir"
	"tandem/internal/version"
	"tandem/mirror"
)

// Config is where the app keeps its files. Empty fields mean the OS default.
type Config struct {
	ConfigDir string // settings; default os.UserConfigDir()/tandem
	DataDir   string // run records; default os.UserCacheDir()/../share style, see dataDir()
	// ScrcpyServer is a scrcpy-server jar for the phone mirror; "" searches
	// the usual install paths (stream.JarPaths).
	ScrcpyServer string
	// Opener is a command that opens a file ("" the system's default
	// program); TANDEM_OPENER.
	Opener string
	// OnStartup, when set, hears Wails' context as the window starts,
	// before the app's own start: the development build's gate finds
	// Wails' server in it (main_dev.go).
	OnStartup func(context.Context)
}

// ConfigFromEnv reads TANDEM_CONFIG_DIR and TANDEM_DATA_DIR (tests and
// portable installs use them) and fills the rest with OS defaults.
func ConfigFromEnv() Config {
	c := Config{ConfigDir: os.Getenv("TANDEM_CONFIG_DIR"), DataDir: os.Getenv("TANDEM_DATA_DIR"), ScrcpyServer: os.Getenv("TANDEM_SCRCPY_SERVER"),
		Opener: os.Getenv("TANDEM_OPENER")}
	if c.ConfigDir == "" {
		if d, err := os.UserConfigDir(); err == nil {
			c.ConfigDir = filepath.Join(d, "tandem")
		} else {
			c.ConfigDir = filepath.Join(os.TempDir(), "tandem-config")
		}
	}
	if c.DataDir == "" {
		c.DataDir = defaultDataDir()
	}
	return c
}

// defaultDataDir is the data dir the command line uses too (internal/datadir).
func defaultDataDir() string {
	return datadir.Dir(func(k string) string {
		if k == datadir.Env {
			return "" // ConfigFromEnv read it already
		}
		return os.Getenv(k)
	})
}

// App holds what the bound services (api.go) share. One App per window.
type App struct {
	cfg      Config
	settings *SettingsStore
	secrets  *Secrets
	devices  *Devices
	hub      *mirror.Hub
	feed     *feed
	runs     *Runs
	virtual  *virtualPhones
	notify   Notifier
	open     func(path string) error // opens a file with the system's program

	mu          sync.Mutex
	askSave     func(name string) (string, error) // the save dialog; nil without the window
	window      windowControl                     // nil without the window
	compact     compactState                      // the window as a bar (compact.go)
	ctx         context.Context                   // Wails' context, set on startup
	stop        context.CancelFunc
	loadWarning string
	restored    []adb.Restored // phones whose keyboard the start-up gave back
	mirrorSrv   *mirror.Server
	gestures    liveGestures // live touches, put back together for the run
	popouts     popouts      // the mirror's own windows (popout.go)
	// cache is the action cache runs share when their profile enables it.
	cache *observe.ActionCache[model.Plan]
	// api is what the page can call (api.go).
	api Services
}

// Notifier sends events to the UI (Wails' event bus in the window).
type Notifier interface {
	Notify(name string, data any)
}

type wailsNotifier struct{ ctx context.Context }

func (w wailsNotifier) Notify(name string, data any) { wruntime.EventsEmit(w.ctx, name, data) }

type nopNotifier struct{}

func (nopNotifier) Notify(string, any) {}

// New makes the App for cfg and reads the settings once, so a damaged file
// is moved aside at start and its warning kept until the person dismisses it.
func New(cfg Config) *App {
	a := &App{cfg: cfg, settings: NewSettingsStore(cfg.ConfigDir), secrets: NewSecrets(cfg.ConfigDir),
		hub: mirror.NewHub(), notify: nopNotifier{}, open: opener(cfg.Opener)}
	a.api = newServices(a)
	_, a.loadWarning, _ = a.settings.Load()
	if _, warn := loadPrices(cfg.ConfigDir); warn != "" {
		a.loadWarning = strings.TrimSpace(a.loadWarning + "\n" + warn)
	}
	a.devices = NewDevices("", datadir.KeyboardNotes(cfg.DataDir), devices.NewDesktop())
	a.virtual = newVirtualPhones(func() int { return adbPort(a.devices) })
	a.devices.AddSource(a.virtual)
	a.runs = newRuns(a.devices, a.hub, filepath.Join(cfg.DataDir, "runs"), func(e engine.Event) {
		a.notify.Notify("run", e)
	})
	a.feed = newFeed(a.devices, a.hub, a.runs.AgentBusy)
	a.feed.scrcpyJar = cfg.ScrcpyServer
	a.runs.personDo = a.feed.personDo
	return a
}

// begin starts the background work: the mirror server and the device
// watch. The window calls it on start-up; tests call it directly. Not
// exported: Wails binds every exported method, and the page must not be
// able to call the app's lifecycle.
func (a *App) begin(ctx context.Context, n Notifier) error {
	srv, err := mirror.Start(a.hub)
	if err != nil {
		return err
	}
	srv.ServeRecords(a.runs.dataDir)
	srv.ServeInput(a.popoutInput)
	a.restoreKeyboards(ctx)
	// The device watch lives as long as the app: shutdown ends it.
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	a.mu.Lock()
	a.ctx, a.stop, a.mirrorSrv, a.notify = ctx, cancel, srv, n
	a.mu.Unlock()
	go a.devices.Watch(bg, func(list []DeviceEntry) { n.Notify("devices", list) })
	return nil
}

// shutdown stops every run (restoring the phones' keyboards), the mirror
// feed and server. Not exported, like begin.
func (a *App) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	a.popouts.closeAll()
	a.runs.StopAll(ctx)
	a.feed.Stop()
	a.virtual.Close()
	a.mu.Lock()
	if a.stop != nil {
		a.stop()
	}
	srv := a.mirrorSrv
	a.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
}

func (a *App) startup(ctx context.Context) {
	if a.cfg.OnStartup != nil {
		a.cfg.OnStartup(ctx)
	}
	a.mu.Lock()
	a.askSave = wailsSaveDialog(ctx)
	a.window = wailsWindow{ctx}
	a.mu.Unlock()
	if err := a.begin(ctx, wailsNotifier{ctx: ctx}); err != nil {
		wruntime.LogErrorf(ctx, "tandem: %v", err)
	}
}

// callCtx is the context for one bound call: bounded, so nothing the UI
// asks for can hang it.
func (a *App) callCtx(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}

// Info is what the About box and the first render need.
type Info struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`
	OS       string `json:"os"`
	Locale   string `json:"locale"` // "en" or "zh-CN", from the OS environment
	DataDir  string `json:"dataDir"`
	Settings string `json:"settingsPath"`
	Prices   string `json:"pricesPath"` // the price table the cost figures come from
}

// Info returns the version, the OS locale and where files are kept.
func (a *SettingsAPI) Info() Info {
	v := version.Get()
	return Info{
		Version:  v.Version,
		Commit:   v.Commit,
		OS:       runtime.GOOS + "/" + runtime.GOARCH,
		Locale:   LocaleFromEnv(os.Getenv),
		DataDir:  a.cfg.DataDir,
		Settings: a.settings.path,
		Prices:   filepath.Join(a.cfg.ConfigDir, pricesFile),
	}
}

// LoadedSettings is the settings plus a one-time warning (a damaged file).
type LoadedSettings struct {
	Settings Settings `json:"settings"`
	Warning  string   `json:"warning"`
	// KeyboardsRestored are the phones whose keyboard this start gave
	// back after an earlier Tandem (app or command line) died while typing;
	// the UI tells the person once.
	KeyboardsRestored []adb.Restored `json:"keyboards_restored,omitempty"`
}

// GetSettings loads the settings, with the start-up warning (a damaged
// file) until DismissSettingsWarning is called.
func (a *SettingsAPI) GetSettings() (_ LoadedSettings, err error) {
	defer toUI(&err)
	s, warn, err := a.settings.Load()
	if err != nil {
		return LoadedSettings{Settings: s}, err
	}
	a.mu.Lock()
	if a.loadWarning == "" {
		a.loadWarning = warn
	}
	warn = a.loadWarning
	restored := a.restored
	a.mu.Unlock()
	return LoadedSettings{Settings: s, Warning: warn, KeyboardsRestored: restored}, nil
}

// DismissSettingsWarning forgets the start-up warning once the person has seen it.
func (a *SettingsAPI) DismissSettingsWarning() {
	a.mu.Lock()
	a.loadWarning = ""
	a.restored = nil
	a.mu.Unlock()
}

// SaveSettings stores the person's preferences and returns them as stored
// (normalized). Model profiles are kept as they are: they change only through
// SaveProfile and DeleteProfile, so a stale UI copy can never drop one.
func (a *SettingsAPI) SaveSettings(s Settings) (_ Settings, err error) {
	defer toUI(&err)
	return a.settings.Update(func(cur *Settings) error {
		s.Profiles = cur.Profiles
		// The page's copy may predate a model saved meanwhile (SaveProfile
		// makes the first one active): a save built on it must not unset
		// that model, or the next Start says "no model is set up". The page
		// can pick another model, never none.
		if !hasProfile(cur.Profiles, s.ActiveProfile) {
			s.ActiveProfile = cur.ActiveProfile
		}
		*cur = s
		return nil
	})
}

// UpdateSettings changes only the settings patch names (by their JSON
// names: {"recent_goals": [...]}) on top of the settings as stored, and
// returns them as stored. The page sends what the person changed, never its
// whole copy: two pages (the dev build's window and a browser), or the page
// and a profile saved meanwhile, cannot undo each other's changes. Model
// profiles change only through SaveProfile and DeleteProfile; the active
// one must name a profile that exists.
func (a *SettingsAPI) UpdateSettings(patch map[string]json.RawMessage) (_ Settings, err error) {
	defer toUI(&err)
	return a.settings.Update(func(cur *Settings) error {
		b, err := json.Marshal(cur)
		if err != nil {
			return err
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(b, &fields); err != nil {
			return err
		}
		for k, v := range patch {
			if _, ok := fields[k]; !ok || k == "profiles" {
				return fmt.Errorf("%q is not a setting the page can change", k)
			}
			fields[k] = v
		}
		if b, err = json.Marshal(fields); err != nil {
			return err
		}
		next := *cur
		if err := json.Unmarshal(b, &next); err != nil {
			return fmt.Errorf("settings: %w", err)
		}
		next.Profiles = cur.Profiles
		if !hasProfile(cur.Profiles, next.ActiveProfile) {
			next.ActiveProfile = cur.ActiveProfile
		}
		*cur = next
		return nil
	})
}

func hasProfile(ps []Profile, id string) bool {
	for _, p := range ps {
		if p.ID == id {
			return true
		}
	}
	return false
}

// LocaleFromEnv maps the POSIX locale variables to a UI language: any
// Chinese locale gives "zh-CN", everything else "en".
func LocaleFromEnv(getenv func(string) string) string {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANGUAGE", "LANG"} {
		v := getenv(k)
		if v == "" || v == "C" || v == "POSIX" {
			continue
		}
		if strings.HasPrefix(strings.ToLower(v), "zh") {
			return "zh-CN"
		}
		return "en"
	}
	return "en"
}

// windowIcon is the GTK window and task-bar icon (256 px), made by
// scripts/package/icongen with the rest of the icon set.
//
//go:embed icon.png
var windowIcon []byte

// Run opens the window. assets holds the built frontend (frontend/dist).
func Run(assets fs.FS, cfg Config) error {
	a := New(cfg)
	err := wails.Run(&options.App{
		Title:            "Tandem",
		Width:            1280,
		Height:           820,
		MinWidth:         minW,
		MinHeight:        minH,
		BackgroundColour: &options.RGBA{R: 24, G: 26, B: 31, A: 255},
		AssetServer:      &assetserver.Options{Assets: assets},
		OnStartup:        a.startup,
		OnShutdown:       func(context.Context) { a.shutdown() },
		Bind:             a.api.bound(),
		Linux: &linux.Options{
			ProgramName:         "tandem",
			Icon:                windowIcon,
			WindowIsTranslucent: false,
		},
	})
	if err != nil {
		return fmt.Errorf("start the window: %w", err)
	}
	return nil
}
