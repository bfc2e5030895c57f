package backend

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"tandem/devices"
	"tandem/engine"
)

// Settings are the person's preferences. Secrets (API keys) are never kept
// here: they live in the OS keyring or a separate 0600 file.
type Settings struct {
	Language    string   `json:"language"` // "system", "en" or "zh-CN"
	Theme       string   `json:"theme"`    // "system", "light" or "dark"
	RecentGoals []string `json:"recent_goals"`
	// ActiveProfile is the id of the model profile new runs use.
	ActiveProfile string    `json:"active_profile"`
	Profiles      []Profile `json:"profiles"`
	Budget        Budget    `json:"budget"`
	// PolicyWords and PolicyApps make an action sensitive (it waits for the
	// person) when the tapped element's label or the foreground app matches.
	PolicyWords []string `json:"policy_words"`
	PolicyApps  []string `json:"policy_apps"`
	// StabilityMs caps the wait for the screen to settle after an action.
	StabilityMs int `json:"stability_ms"`
	// WaitToAsk asks the model only once the screen is known to have
	// settled after an action; by default the call starts on the first
	// picture and is cancelled if the screen was still moving
	// (engine/speculate.go).
	WaitToAsk bool `json:"wait_to_ask"`
	// StopAfterSteps is how many more steps "Stop after this step" allows.
	StopAfterSteps int `json:"stop_after_steps"`
	// WelcomeDone is set once the first-start welcome was dismissed.
	WelcomeDone bool `json:"welcome_done"`
	// MCPHTTP serves Tandem to MCP clients over HTTP on 127.0.0.1:MCPPort
	// while the app runs (off by default; the bearer token is in Secrets).
	MCPHTTP bool `json:"mcp_http"`
	MCPPort int  `json:"mcp_port"`
	// ConfirmInWindowOnly keeps every confirmation of a run another agent
	// started (over MCP) for Tandem's window: the client's own form
	// (elicitation) is not offered it, since a client that answers its own
	// form could allow a payment with no one there. Off: the client's form
	// may ask its human too (what it answered, and through which client,
	// is in the record).
	ConfirmInWindowOnly bool `json:"confirm_in_window_only"`
	// ADBServers are other computers' adb servers (host:port) whose phones
	// the device list shows beside this computer's, each labelled with
	// its host.
	ADBServers []string `json:"adb_servers"`
	// ScrcpyServer is the scrcpy-server file for the phone mirror ("" =
	// the usual install paths; TANDEM_SCRCPY_SERVER wins over it; see
	// backend/scrcpy.go). Checked when saved.
	ScrcpyServer string `json:"scrcpy_server"`
	// VideoOff keeps no video of runs; VideoKeepGB is how many GB of the
	// newest videos are kept (older ones are deleted, their records kept).
	VideoOff    bool    `json:"video_off"`
	VideoKeepGB float64 `json:"video_keep_gb"`
	// StopHotkey is the chord that stops a run on this computer's desktop
	// from any window ("" = ctrl+shift+escape); checked when saved
	// (desktop.CheckStopHotkey), used by the next desktop run.
	StopHotkey string `json:"stop_hotkey"`
}

// Budget limits a run; 0 means no limit. Reaching one asks the person.
type Budget struct {
	MaxSteps   int     `json:"max_steps"`
	MaxTokens  int     `json:"max_tokens"`
	MaxCost    float64 `json:"max_cost"`
	MaxMinutes int     `json:"max_minutes"`
}

// Profile is one model set-up. The API key is not here: it is in Secrets
// under the profile's id, and the UI only sees KeyMasked.
type Profile struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Preset    string `json:"preset"`
	BaseURL   string `json:"base_url"`
	Model     string `json:"model"`
	Dialect   string `json:"dialect"`
	Variant   string `json:"variant"`
	KeyMasked string `json:"key_masked"`
	// Temperature, TopP and MaxTokens override the model family's
	// reference sampling (model.DefaultSampling); nil / 0 keep it.
	Temperature *float32 `json:"temperature,omitempty"`
	TopP        *float32 `json:"top_p,omitempty"`
	MaxTokens   int      `json:"max_tokens,omitempty"`
	// ContextTokens is the model's context length: the history sent is
	// trimmed to fit it (0: 32768).
	ContextTokens int `json:"context_tokens,omitempty"`
	// VisionOnDemand lets a step go without a screenshot when the UI tree
	// says enough (tools and json); UITree sends the compact UI tree to a
	// tools model that reads text; ActionCache reuses a decision for an
	// identical screen at the same step of the same goal (marked as such).
	VisionOnDemand bool `json:"vision_on_demand,omitempty"`
	UITree         bool `json:"ui_tree,omitempty"`
	ActionCache    bool `json:"action_cache,omitempty"`
	// MaxInFlight is how many requests this Tandem sends the profile's
	// server and model at once, over all its runs (0: no limit); the
	// others wait their turn in order, and their runs say so. Local
	// servers' presets start at 1 (model.Preset.MaxInFlight).
	MaxInFlight int `json:"max_in_flight,omitempty"`
}

// DefaultSettings follow the OS for language and theme.
func DefaultSettings() Settings {
	return Settings{
		Language: "system", Theme: "system", RecentGoals: []string{}, Profiles: []Profile{},
		Budget:      Budget{MaxSteps: 50, MaxMinutes: 30},
		PolicyWords: engine.DefaultPolicy().Words,
		PolicyApps:  []string{"com.eg.android.AlipayGphone", "com.tencent.mm"},
		StabilityMs: 3000, StopAfterSteps: 1, MCPPort: DefaultMCPPort, ADBServers: []string{},
		VideoKeepGB: DefaultVideoKeepGB,
	}
}

// DefaultVideoKeepGB is the videos kept unless the person says otherwise.
const DefaultVideoKeepGB = 5

// DefaultMCPPort is where the app serves MCP over HTTP unless the person
// chooses another port.
const DefaultMCPPort = 39517

const maxRecentGoals = 20

// normalize fixes values a hand-edited or older file may hold, so the UI only
// ever sees values it knows.
func (s Settings) normalize() Settings {
	switch s.Language {
	case "system", "en", "zh-CN":
	default:
		s.Language = "system"
	}
	switch s.Theme {
	case "system", "light", "dark":
	default:
		s.Theme = "system"
	}
	goals := make([]string, 0, len(s.RecentGoals))
	seen := map[string]bool{}
	for _, g := range s.RecentGoals {
		g = strings.TrimSpace(g)
		if g == "" || seen[g] {
			continue
		}
		seen[g] = true
		goals = append(goals, g)
		if len(goals) == maxRecentGoals {
			break
		}
	}
	s.RecentGoals = goals
	if s.Profiles == nil {
		s.Profiles = []Profile{}
	}
	if s.PolicyWords == nil {
		s.PolicyWords = engine.DefaultPolicy().Words
	}
	if s.PolicyApps == nil {
		s.PolicyApps = []string{}
	}
	if s.Budget.MaxSteps < 0 || s.Budget.MaxTokens < 0 || s.Budget.MaxCost < 0 || s.Budget.MaxMinutes < 0 {
		s.Budget = DefaultSettings().Budget
	}
	if s.StabilityMs <= 0 || s.StabilityMs > 30000 {
		s.StabilityMs = 3000
	}
	if s.StopAfterSteps < 0 || s.StopAfterSteps > 100 {
		s.StopAfterSteps = 1
	}
	if s.MCPPort < 1024 || s.MCPPort > 65535 {
		s.MCPPort = DefaultMCPPort
	}
	s.ADBServers = adbServers(s.ADBServers)
	if s.VideoKeepGB <= 0 || s.VideoKeepGB > 100_000 {
		s.VideoKeepGB = DefaultVideoKeepGB
	}
	return s
}

// SettingsStore reads and writes settings.json in the config directory.
// Writes are atomic (temp file + rename) so a crash never leaves half a file;
// a corrupt file is moved aside, not overwritten, and reported once.
type SettingsStore struct {
	path string
	mu   sync.Mutex
}

// NewSettingsStore keeps settings in dir/settings.json.
func NewSettingsStore(dir string) *SettingsStore {
	return &SettingsStore{path: filepath.Join(dir, "settings.json")}
}

// Load returns the settings. A missing file gives the defaults. A corrupt
// file gives the defaults and a warning naming where the old file was kept.
func (s *SettingsStore) Load() (Settings, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.load()
}

// Update changes the stored settings with f, all under the store's lock: a
// change is made on top of the settings as stored, never on a copy another
// writer has since replaced (two windows, the page and a profile saved).
// Nothing is written when f fails.
func (s *SettingsStore) Update(f func(*Settings) error) (Settings, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	set, _, err := s.load()
	if err != nil {
		return set, err
	}
	if err := f(&set); err != nil {
		return set, err
	}
	return s.save(set)
}

func (s *SettingsStore) load() (Settings, string, error) {
	b, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return DefaultSettings(), "", nil
	}
	if err != nil {
		return DefaultSettings(), "", fmt.Errorf("read settings: %w", err)
	}
	set := DefaultSettings()
	if err := json.Unmarshal(b, &set); err != nil {
		kept := s.path + ".corrupt-" + time.Now().Format("20060102-150405")
		if rerr := os.Rename(s.path, kept); rerr != nil {
			return DefaultSettings(), "", fmt.Errorf("settings file is corrupt (%v) and could not be moved aside: %w", err, rerr)
		}
		return DefaultSettings(), fmt.Sprintf("Your settings file was damaged and has been kept as %s; Tandem started with default settings.", kept), nil
	}
	return set.normalize(), "", nil
}

// Save writes the settings atomically with mode 0600.
func (s *SettingsStore) Save(set Settings) (Settings, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.save(set)
}

func (s *SettingsStore) save(set Settings) (Settings, error) {
	set = set.normalize()
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return set, fmt.Errorf("create settings folder: %w", err)
	}
	b, err := json.MarshalIndent(set, "", "  ")
	if err != nil {
		return set, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".settings-*.json")
	if err != nil {
		return set, fmt.Errorf("save settings: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return set, err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return set, fmt.Errorf("save settings: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return set, err
	}
	if err := tmp.Close(); err != nil {
		return set, err
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return set, fmt.Errorf("save settings: %w", err)
	}
	return set, nil
}

// adbServers keeps each address once, as host:port when it is one (one
// that is not stays as typed, and the device list says what is wrong).
func adbServers(list []string) []string {
	out := make([]string, 0, len(list))
	for _, a := range list {
		if n, err := devices.NormalizeServer(a); err == nil {
			a = n
		}
		if a = strings.TrimSpace(a); a != "" && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}
