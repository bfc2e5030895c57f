package app

import (
	"os"
	"path/filepath"
	"strings"
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
