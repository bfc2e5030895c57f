package backend

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"tandem/devices/adb"
	"tandem/devices/desktop"
)

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
func (b *Backend) GetSettings() (LoadedSettings, error) {
	s, warn, err := b.settings.Load()
	if err != nil {
		return LoadedSettings{Settings: s}, err
	}
	b.mu.Lock()
	if b.loadWarning == "" {
		b.loadWarning = warn
	}
	warn = b.loadWarning
	restored := b.restored
	b.mu.Unlock()
	return LoadedSettings{Settings: s, Warning: warn, KeyboardsRestored: restored}, nil
}

// DismissSettingsWarning forgets the start-up warning once the person has seen it.
func (b *Backend) DismissSettingsWarning() {
	b.mu.Lock()
	b.loadWarning = ""
	b.restored = nil
	b.mu.Unlock()
}

// SaveSettings stores the person's preferences and returns them as stored
// (normalized). Model profiles are kept as they are: they change only through
// SaveProfile and DeleteProfile, so a stale copy can never drop one.
func (b *Backend) SaveSettings(s Settings) (Settings, error) {
	return b.settings.Update(func(cur *Settings) error {
		s.Profiles = cur.Profiles
		// The page's copy may predate a model saved meanwhile (SaveProfile
		// makes the first one active): a save built on it must not unset
		// that model, or the next Start says "no model is set up". The page
		// can pick another model, never none.
		if !hasProfile(cur.Profiles, s.ActiveProfile) {
			s.ActiveProfile = cur.ActiveProfile
		}
		if err := b.checkScrcpySetting(cur.ScrcpyServer, s.ScrcpyServer); err != nil {
			return err
		}
		if err := checkStopHotkey(&s); err != nil {
			return err
		}
		*cur = s
		return nil
	})
}

// UpdateSettings changes only the settings patch names (by their JSON
// names: {"recent_goals": [...]}) on top of the settings as stored, and
// returns them as stored. A door sends what the person changed, never its
// whole copy: two pages (the dev build's window and a browser), or the page
// and a profile saved meanwhile, cannot undo each other's changes. Model
// profiles change only through SaveProfile and DeleteProfile; the active
// one must name a profile that exists.
func (b *Backend) UpdateSettings(patch map[string]json.RawMessage) (Settings, error) {
	return b.settings.Update(func(cur *Settings) error {
		raw, err := json.Marshal(cur)
		if err != nil {
			return err
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			return err
		}
		for k, v := range patch {
			if _, ok := fields[k]; !ok || k == "profiles" {
				return fmt.Errorf("%q is not a setting the page can change", k)
			}
			fields[k] = v
		}
		if raw, err = json.Marshal(fields); err != nil {
			return err
		}
		next := *cur
		if err := json.Unmarshal(raw, &next); err != nil {
			return fmt.Errorf("settings: %w", err)
		}
		next.Profiles = cur.Profiles
		if !hasProfile(cur.Profiles, next.ActiveProfile) {
			next.ActiveProfile = cur.ActiveProfile
		}
		if err := b.checkScrcpySetting(cur.ScrcpyServer, next.ScrcpyServer); err != nil {
			return err
		}
		if err := checkStopHotkey(&next); err != nil {
			return err
		}
		*cur = next
		return nil
	})
}

// checkStopHotkey normalizes the chosen stop hotkey, or refuses it saying
// why, in the field's words.
func checkStopHotkey(s *Settings) error {
	if strings.TrimSpace(s.StopHotkey) == "" {
		s.StopHotkey = ""
		return nil
	}
	norm, err := desktop.CheckStopHotkey(s.StopHotkey)
	if err != nil {
		return fieldErr("stop_hotkey", "stop_hotkey", s.StopHotkey, "%v", err)
	}
	s.StopHotkey = norm
	return nil
}

func hasProfile(ps []Profile, id string) bool {
	for _, p := range ps {
		if p.ID == id {
			return true
		}
	}
	return false
}

// mcpTokenName is the MCP server's bearer token's name in Secrets.
const mcpTokenName = "mcp-http-token"

// MCPToken is the bearer token MCP clients give the app's HTTP server,
// made once and kept with the API keys (renew: a new one, the old one
// refused from then on).
func (b *Backend) MCPToken(renew bool, newToken func() (string, error)) (string, error) {
	if !renew {
		tok, err := b.secrets.Get(mcpTokenName)
		if err == nil && tok != "" {
			return tok, nil
		}
		if err != nil && !errors.Is(err, ErrNoSecret) {
			return "", err
		}
	}
	tok, err := newToken()
	if err != nil {
		return "", err
	}
	if err := b.secrets.Set(mcpTokenName, tok); err != nil {
		return "", fmt.Errorf("keep the MCP token: %w", err)
	}
	return tok, nil
}

// GetSettingsOnly is the settings as stored, with a damaged file's warning.
func (b *Backend) GetSettingsOnly() (Settings, string, error) { return b.settings.Load() }

// stopHotkey is the desktop's stop hotkey for the next display driver: the
// door's, else the Settings', else the default ("").
func (b *Backend) stopHotkey() string {
	if b.cfg.StopHotkey != "" {
		return b.cfg.StopHotkey
	}
	s, _, _ := b.settings.Load()
	return s.StopHotkey
}

// CheckStopHotkey normalizes a stop hotkey a door was given, or says why
// it cannot be one.
func CheckStopHotkey(chord string) (string, error) { return desktop.CheckStopHotkey(chord) }
