// Package backend is Tandem's application, once, behind every door: the
// settings, model profiles, secrets and prices; the planner factory; the
// live runs and their history; the device registry; and one desk per
// device (its frame feed, watched by any number of viewers, and its input
// manager, the one place that decides where each of the person's inputs
// goes). The window (app/), the command line (cli/) and the MCP server are
// thin doors over one Backend: they translate their protocol into its
// calls and show its answers, and decide nothing themselves, so the same
// profile, policy and person's hands hold whichever door a run came in by.
// The model is Tailscale's LocalBackend (ipn/ipnlocal): one backend, every
// front end a thin client of it.
//
// Nothing here imports Wails: the window's runtime aborts on a foreign
// context, and the command line must never touch GTK.
package backend

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"tandem/backend/chore"
	"tandem/devices"
	"tandem/devices/adb"
	"tandem/devices/desktop/host"
	"tandem/engine"
	"tandem/engine/model"
	"tandem/engine/observe"
	"tandem/internal/datadir"
	"tandem/internal/version"
	"tandem/mirror"
)

// Config is where Tandem keeps its files. Empty fields mean the OS default.
type Config struct {
	ConfigDir string // settings; default os.UserConfigDir()/tandem
	DataDir   string // run records; default internal/datadir
	// ScrcpyServer is a scrcpy-server jar for the phone mirror
	// (TANDEM_SCRCPY_SERVER); it wins over the file chosen in Settings; ""
	// uses that, else searches the usual install paths (stream.JarPaths).
	ScrcpyServer string
	// Opener is a command that opens a file ("" the system's default
	// program); TANDEM_OPENER.
	Opener string
	// ADB is the adb server's address ("" = TANDEM_ADB_PORT or 5037).
	ADB string
	// ADBServers are other computers' adb servers (host:port) this door
	// adds to the ones in the settings (the command line's --adb).
	ADBServers []string
	// KeyFile keeps API keys in the 0600 file beside the settings, never
	// the OS keyring (a portable install; a test whose other process
	// cannot reach the keyring).
	KeyFile bool
	// RunsDir is where run records go ("" = DataDir/runs, where History
	// looks).
	RunsDir string
	// Interrupted, when set, reports a stop of every run already asked
	// for and on its way (a command line's Ctrl+C the process has
	// received, before the code that stops the runs has woken): no device
	// action starts while it reports true (engine.Config.Interrupted).
	Interrupted func() bool
	// Door names this process for the device leases another Tandem
	// reads ("window", "run", "mcp"; devices.Holder).
	Door string
	// WaitForDevice makes a run on a device another Tandem drives wait
	// for it to let go (tandem run --wait) instead of being refused.
	WaitForDevice bool
	// StopHotkey, when set, is the desktop's stop hotkey for this door's
	// runs (tandem run --stop-key), over the Settings' (checked by the
	// door: desktop.CheckStopHotkey through CheckStopHotkey).
	StopHotkey string
}

// Runs is the folder of run records.
func (c Config) Runs() string {
	if c.RunsDir != "" {
		return c.RunsDir
	}
	return datadir.Runs(c.DataDir)
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

// defaultDataDir is the data dir every door uses (internal/datadir).
func defaultDataDir() string {
	return datadir.Dir(func(k string) string {
		if k == datadir.Env {
			return "" // ConfigFromEnv read it already
		}
		return os.Getenv(k)
	})
}

// Backend is the one application. One per process: the window makes one,
// `tandem run` and `tandem mcp` make one each.
type Backend struct {
	cfg      Config
	settings *SettingsStore
	secrets  *Secrets
	devices  *Devices
	hub      *mirror.Hub
	desks    *desks
	runs     *Runs
	virtual  *virtualPhones

	mu          sync.Mutex
	notify      Notifier
	ctx         context.Context // the doors' context, set by Begin
	bg          context.Context // the background work's, ended by Shutdown
	stop        context.CancelFunc
	loadWarning string
	restored    []adb.Restored // phones whose keyboard the start-up gave back
	mirrorSrv   *mirror.Server
	gestures    liveGestures // live touches, put back together for the run
	agents      agentDevices // devices opened for another agent's calls (agent.go)
	attention   *attention   // desktop notifications when the window is behind (attention.go)
	// cache is the action cache runs share when their profile enables it.
	cache *observe.ActionCache[model.Plan]
	// limits bound the requests in flight to each model server (limits.go).
	limits modelLimits
	chores *chore.Store // the saved chores (chores.go), made on first use
	sched  *scheduler   // the chores' schedules, in the window's Tandem (schedule.go)
	// videos are the runs' recordings being made (video.go).
	videos recordings
	// away are the devices another Tandem drives, read from their runs'
	// records (elsewhere.go).
	away *elsewhere
}

// Notifier tells the doors what changed: "run" (an engine.Event) and
// "devices" (the device list).
type Notifier interface {
	Notify(name string, data any)
}

// NotifierFunc is a function as a Notifier.
type NotifierFunc func(name string, data any)

// Notify calls f.
func (f NotifierFunc) Notify(name string, data any) { f(name, data) }

type nopNotifier struct{}

func (nopNotifier) Notify(string, any) {}

// New makes the Backend for cfg and reads the settings once, so a damaged
// file is moved aside at start and its warning kept until the person
// dismisses it.
func New(cfg Config) *Backend {
	b := &Backend{cfg: cfg, settings: NewSettingsStore(cfg.ConfigDir), secrets: NewSecrets(cfg.ConfigDir),
		hub: mirror.NewHub(), notify: nopNotifier{}}
	if cfg.KeyFile {
		b.secrets = newFileSecrets(cfg.ConfigDir)
	}
	_, b.loadWarning, _ = b.settings.Load()
	if _, warn := loadPrices(cfg.ConfigDir); warn != "" {
		b.loadWarning = strings.TrimSpace(b.loadWarning + "\n" + warn)
	}
	desk := devices.NewDesktop()
	desk.SetStopHotkey(b.stopHotkey)
	b.devices = NewDevices(cfg.ADB, datadir.KeyboardNotes(cfg.DataDir), desk)
	b.devices.SetRemote(b.adbServers)
	b.virtual = newVirtualPhones(func() int { return adbPort(b.devices) })
	b.devices.AddSource(b.virtual)
	b.attention = newAttention(b.UILang, b.DeviceName)
	b.runs = newRuns(b.devices, b.hub, cfg.Runs(), func(device string, e engine.Event) {
		b.notifier().Notify("run", e)
		b.attention.see(device, e)
	})
	b.away = newElsewhere(cfg.Runs())
	b.desks = newDesks(b.devices, b.hub, b.runs.AgentBusy)
	b.desks.scrcpyJar = cfg.ScrcpyServer
	b.desks.settingJar = func() string {
		s, _, _ := b.settings.Load()
		return s.ScrcpyServer
	}
	b.runs.personDo = b.desks.personDo
	b.runs.hand = b.Hand
	b.runs.interrupted = cfg.Interrupted
	b.runs.lease = func(ctx context.Context, id, by string) (func(), error) {
		return b.lease(ctx, id, by, cfg.WaitForDevice)
	}
	b.runs.door = func(by string) string {
		if h := b.holder(by); h.Client == "" {
			return h.Door
		}
		return "mcp" // another agent's run, in whichever process
	}
	b.runs.name = b.DeviceName
	return b
}

func (b *Backend) notifier() Notifier {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.notify
}

// Begin starts the background work the doors share: the mirror server (its
// frames, records and the pop-out's input) and the device watch; n hears
// what changes. ctx is the door's: Shutdown, not ctx, ends the work.
func (b *Backend) Begin(ctx context.Context, n Notifier) error {
	srv, err := mirror.Start(b.hub)
	if err != nil {
		return err
	}
	srv.ServeRecords(b.runs.dataDir)
	srv.ServeInput(b.postedInput)
	b.restoreKeyboards(ctx)
	// The device watch lives as long as the backend: Shutdown ends it.
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	b.mu.Lock()
	b.ctx, b.bg, b.stop, b.mirrorSrv, b.notify = ctx, bg, cancel, srv, n
	b.mu.Unlock()
	b.attention.begin(bg)
	go b.away.loop(bg, n)
	go b.devices.Watch(bg, func(list []DeviceEntry) {
		n.Notify("devices", list)
		b.away.see(list)
	})
	return nil
}

// Shutdown stops every run (restoring the phones' keyboards), every desk's
// feed and the mirror server.
func (b *Backend) Shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	b.runs.StopAll(ctx)
	b.waitVideos() // their runs ended: each closes its file
	b.desks.stopAll()
	b.closeAgentDevices()
	b.virtual.Close()
	b.attention.close()
	b.mu.Lock()
	if b.stop != nil {
		b.stop()
	}
	srv := b.mirrorSrv
	b.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
}

// Listen makes n hear what changes, for a door that needs no mirror or
// device watch (the command line); Begin does it for the others.
func (b *Backend) Listen(n Notifier) {
	b.mu.Lock()
	b.notify = n
	b.mu.Unlock()
}

// context is the doors' context (Begin's), or Background before it.
func (b *Backend) context() context.Context {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ctx == nil {
		return context.Background()
	}
	return b.ctx
}

// Config is where this backend keeps its files.
func (b *Backend) Config() Config { return b.cfg }

// Info is what the About box and the first render need.
type Info struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`
	OS       string `json:"os"`
	Locale   string `json:"locale"` // "en" or "zh-CN", from the OS environment
	DataDir  string `json:"dataDir"`
	Settings string `json:"settingsPath"`
	Prices   string `json:"pricesPath"` // the price table the cost figures come from
	// StopKeyDefault is the desktop's stop hotkey on this system when
	// Settings name none (Settings.StopHotkey).
	StopKeyDefault string `json:"stopKeyDefault"`
}

// Info returns the version, the OS locale and where files are kept.
func (b *Backend) Info() Info {
	v := version.Get()
	return Info{
		Version:  v.Version,
		Commit:   v.Commit,
		OS:       runtime.GOOS + "/" + runtime.GOARCH,
		Locale:   LocaleFromEnv(os.Getenv),
		DataDir:  b.cfg.DataDir,
		Settings: b.settings.path,
		Prices:   filepath.Join(b.cfg.ConfigDir, pricesFile),
		// The door's own (tandem run --stop-key) is this process's default.
		StopKeyDefault: cmp.Or(b.cfg.StopHotkey, host.DefaultStopHotkey()),
	}
}

// UILang is the language the person reads: their setting, else the OS's.
func (b *Backend) UILang() string {
	if s, _, err := b.settings.Load(); err == nil && s.Language != "" && s.Language != "system" {
		return s.Language
	}
	return LocaleFromEnv(os.Getenv)
}

// UITheme is the theme the person picked for the windows: "light", "dark",
// or "" to follow the system.
func (b *Backend) UITheme() string {
	if s, _, err := b.settings.Load(); err == nil && s.Theme != "system" {
		return s.Theme
	}
	return ""
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
