package app

import (
	"encoding/json"
	"time"

	"tandem/backend"
)

// Info returns the version, the OS locale and where files are kept.
func (a *SettingsAPI) Info() backend.Info { return a.b.Info() }

// GetSettings loads the settings, with the start-up warning (a damaged
// file) until DismissSettingsWarning is called.
func (a *SettingsAPI) GetSettings() (_ backend.LoadedSettings, err error) {
	defer toUI(&err)
	return a.b.GetSettings()
}

// DismissSettingsWarning forgets the start-up warning once the person has seen it.
func (a *SettingsAPI) DismissSettingsWarning() { a.b.DismissSettingsWarning() }

// SaveSettings stores the person's preferences and returns them as stored.
func (a *SettingsAPI) SaveSettings(s backend.Settings) (_ backend.Settings, err error) {
	defer toUI(&err)
	defer a.mcp.Sync()
	return a.b.SaveSettings(s)
}

// UpdateSettings changes only the settings patch names (by their JSON names).
func (a *SettingsAPI) UpdateSettings(patch map[string]json.RawMessage) (_ backend.Settings, err error) {
	defer toUI(&err)
	defer a.mcp.Sync()
	return a.b.UpdateSettings(patch)
}

// Profiles lists the model profiles (keys masked).
func (a *SettingsAPI) Profiles() (_ []backend.Profile, err error) {
	defer toUI(&err)
	return a.b.Profiles()
}

// SaveProfile stores a profile; apiKey replaces the stored key when not empty.
func (a *SettingsAPI) SaveProfile(p backend.Profile, apiKey string) (_ backend.Profile, err error) {
	defer toUI(&err)
	return a.b.SaveProfile(p, apiKey)
}

// DeleteProfile removes a profile and its stored key.
func (a *SettingsAPI) DeleteProfile(id string) (err error) {
	defer toUI(&err)
	return a.b.DeleteProfile(id)
}

// Presets lists the providers Tandem knows.
func (a *SettingsAPI) Presets() []backend.PresetInfo { return a.b.Presets() }

// TestProfile makes one tiny real call with a saved profile.
func (a *SettingsAPI) TestProfile(id string) (_ backend.TestResult, err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(35 * time.Second)
	defer cancel()
	return a.b.TestProfile(ctx, id)
}

// TestForm tests what is in the Settings form, saved or not.
func (a *SettingsAPI) TestForm(p backend.Profile, key string) (_ backend.TestResult, err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(100 * time.Second)
	defer cancel()
	return a.b.TestForm(ctx, p, key)
}

// WelcomeCheck looks at adb and the local model servers.
func (a *SettingsAPI) WelcomeCheck() (_ backend.WelcomeStatus, err error) {
	defer toUI(&err)
	return a.b.WelcomeCheck()
}

// DismissWelcome records that the welcome was seen.
func (a *SettingsAPI) DismissWelcome() (_ backend.Settings, err error) {
	defer toUI(&err)
	return a.b.DismissWelcome()
}

// UseLocalModel saves a profile for a found local server's model and makes it active.
func (a *SettingsAPI) UseLocalModel(server backend.ModelServer, modelName string) (_ backend.Profile, err error) {
	defer toUI(&err)
	return a.b.UseLocalModel(server, modelName)
}

// ScrcpyServer says whether the scrcpy-server file at path can be used by
// the mirror (its release, read from the file) and whether
// TANDEM_SCRCPY_SERVER overrides the setting.
func (a *SettingsAPI) ScrcpyServer(path string) backend.ScrcpyServer {
	return a.b.CheckScrcpyServer(path)
}
