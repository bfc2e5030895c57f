package backend

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestSettingsRoundTrip(t *testing.T) {
	st := NewSettingsStore(t.TempDir())
	got, warn, err := st.Load()
	if err != nil || warn != "" || got.Language != "system" {
		t.Fatalf("defaults: %+v %q %v", got, warn, err)
	}
	want := Settings{Language: "zh-CN", Theme: "dark", RecentGoals: []string{"打开微信", "打开微信", " ", "open notes"}}
	if _, err := st.Save(want); err != nil {
		t.Fatal(err)
	}
	got, _, err = st.Load()
	if err != nil {
		t.Fatal(err)
	}
	if got.Language != "zh-CN" || got.Theme != "dark" || strings.Join(got.RecentGoals, "|") != "打开微信|open notes" {
		t.Fatalf("got %+v", got)
	}
	fi, err := os.Stat(st.path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", fi.Mode(), err)
	}
}

func TestCorruptSettingsAreKeptAsideNotLost(t *testing.T) {
	dir := t.TempDir()
	st := NewSettingsStore(dir)
	broken := []byte(`{"language": "zh-CN", "theme": `)
	if err := os.WriteFile(st.path, broken, 0o600); err != nil {
		t.Fatal(err)
	}
	got, warn, err := st.Load()
	if err != nil {
		t.Fatal(err)
	}
	if got.Language != "system" || !strings.Contains(warn, "damaged") {
		t.Fatalf("got %+v warn %q", got, warn)
	}
	kept, _ := filepath.Glob(filepath.Join(dir, "settings.json.corrupt-*"))
	if len(kept) != 1 {
		t.Fatalf("corrupt file not kept: %v", kept)
	}
	if b, _ := os.ReadFile(kept[0]); string(b) != string(broken) {
		t.Fatalf("kept file changed: %q", b)
	}
}

func TestUnknownValuesNormalize(t *testing.T) {
	st := NewSettingsStore(t.TempDir())
	if err := os.WriteFile(st.path, []byte(`{"language":"klingon","theme":"neon"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	got, _, err := st.Load()
	if err != nil || got.Language != "system" || got.Theme != "system" {
		t.Fatalf("got %+v %v", got, err)
	}
}

func TestAppKeepsTheStartupWarningUntilDismissed(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := New(Config{ConfigDir: dir, DataDir: t.TempDir()})
	for i := 0; i < 2; i++ { // two windows asking both see it
		got, err := a.GetSettings()
		if err != nil || !strings.Contains(got.Warning, "damaged") {
			t.Fatalf("call %d: %+v %v", i, got, err)
		}
	}
	a.DismissSettingsWarning()
	if got, _ := a.GetSettings(); got.Warning != "" {
		t.Fatalf("warning after dismiss: %q", got.Warning)
	}
}

func TestSaveSettingsKeepsProfiles(t *testing.T) {
	dir := t.TempDir()
	a := New(Config{ConfigDir: dir, DataDir: t.TempDir()})
	cur := DefaultSettings()
	cur.Profiles = []Profile{{ID: "p1", Name: "Local vLLM"}}
	if _, err := a.settings.Save(cur); err != nil {
		t.Fatal(err)
	}
	fromUI := DefaultSettings() // the UI's copy has no profiles
	fromUI.Theme = "dark"
	got, err := a.SaveSettings(fromUI)
	if err != nil {
		t.Fatal(err)
	}
	if got.Theme != "dark" || len(got.Profiles) != 1 || got.Profiles[0].ID != "p1" {
		t.Fatalf("got %+v", got)
	}
}

// A model saved while the page still held settings from before it (a
// recent goal, the welcome put away) stays the one in use: a save built on
// the old copy does not unset it, so Start never says "no model is set up"
// right after the person added one. The page can still pick another.
func TestSaveSettingsFromAStaleCopyKeepsTheNewModel(t *testing.T) {
	a := New(Config{ConfigDir: t.TempDir(), DataDir: t.TempDir()})
	stale, err := a.GetSettings() // the page's copy: no model yet
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.SaveProfile(Profile{Name: "Local", BaseURL: "http://127.0.0.1:9/v1", Model: "m", Dialect: "tools"}, "")
	if err != nil {
		t.Fatal(err)
	}
	s := stale.Settings
	s.RecentGoals = []string{"open settings"}
	got, err := a.SaveSettings(s)
	if err != nil {
		t.Fatal(err)
	}
	if got.ActiveProfile != p.ID || len(got.RecentGoals) != 1 {
		t.Fatalf("after a save from the stale copy: active %q (want %q), recent %v", got.ActiveProfile, p.ID, got.RecentGoals)
	}
	q, err := a.SaveProfile(Profile{Name: "Cloud", BaseURL: "https://api.example.com/v1", Model: "x", Dialect: "tools"}, "")
	if err != nil {
		t.Fatal(err)
	}
	got.ActiveProfile = q.ID
	if got, err = a.SaveSettings(got); err != nil || got.ActiveProfile != q.ID {
		t.Fatalf("picking another model: %q %v", got.ActiveProfile, err)
	}
}

// Two pages change different settings at the same moment (the dev build's
// window and a browser both put the welcome away and store a recent goal):
// each change is kept. Saving whole copies, the later page's stale copy
// undid the other's recent goal (the browser suite's "a task runs to the
// green summary", under load).
func TestUpdateSettingsKeepsConcurrentChanges(t *testing.T) {
	a := New(Config{ConfigDir: t.TempDir(), DataDir: t.TempDir()})
	a.secrets.ring = brokenRing{}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			goals, _ := json.Marshal([]string{fmt.Sprintf("goal %d", i)})
			if _, err := a.UpdateSettings(map[string]json.RawMessage{"recent_goals": goals}); err != nil {
				t.Error(err)
			}
		}()
		go func() {
			defer wg.Done()
			if _, err := a.UpdateSettings(map[string]json.RawMessage{"welcome_done": json.RawMessage("true")}); err != nil {
				t.Error(err)
			}
		}()
	}
	p, err := a.SaveProfile(Profile{Name: "Local", BaseURL: "http://127.0.0.1:9/v1", Model: "m", Dialect: "tools"}, "")
	if err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	got, _, err := a.settings.Load()
	if err != nil {
		t.Fatal(err)
	}
	if !got.WelcomeDone || len(got.RecentGoals) != 1 || len(got.Profiles) != 1 || got.ActiveProfile != p.ID {
		t.Fatalf("settings after the two pages and a profile: %+v", got)
	}
	// A change of the theme leaves the rest as stored.
	got, err = a.UpdateSettings(map[string]json.RawMessage{"theme": json.RawMessage(`"dark"`)})
	if err != nil || got.Theme != "dark" || !got.WelcomeDone || len(got.Profiles) != 1 {
		t.Fatalf("after the theme: %+v, %v", got, err)
	}
	// What a page may not change is refused, and nothing is written.
	for _, bad := range []map[string]json.RawMessage{
		{"profiles": json.RawMessage(`[]`)},
		{"no_such_setting": json.RawMessage(`1`)},
		{"theme": json.RawMessage(`42`)},
	} {
		if _, err := a.UpdateSettings(bad); err == nil {
			t.Errorf("%s was taken", bad)
		}
	}
	if after, _, _ := a.settings.Load(); after.Theme != "dark" || len(after.Profiles) != 1 {
		t.Fatalf("a refused change was written: %+v", after)
	}
}

// "Ask the model only once the screen has settled" reaches the run, off
// unless the person turns it on, and survives a save.
func TestWaitToAskReachesTheRun(t *testing.T) {
	st := NewSettingsStore(t.TempDir())
	s, _, err := st.Load()
	if err != nil || s.WaitToAsk || EngineSettings(s, Profile{}).Stability.WaitToAsk {
		t.Fatalf("default: %v %v", s.WaitToAsk, err)
	}
	s.WaitToAsk = true
	if _, err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	if s, _, err = st.Load(); err != nil || !EngineSettings(s, Profile{}).Stability.WaitToAsk {
		t.Fatalf("saved: %v %v", s.WaitToAsk, err)
	}
}
