package backend

import (
	"context"
	"os"

	"path/filepath"
	"strings"
	"tandem/internal/modeltest"
	"testing"
)

func testApp(t *testing.T) *Backend {
	t.Helper()
	a := New(Config{ConfigDir: t.TempDir(), DataDir: t.TempDir()})
	a.secrets.ring = brokenRing{} // no keyring in tests: the 0600 file
	return a
}

func TestProfileKeyIsStoredApartAndNeverReturned(t *testing.T) {
	a := testApp(t)
	const key = "sk-proj-SECRET-0123456789-abcd"
	p, err := a.SaveProfile(Profile{Name: "Local vLLM", BaseURL: "http://127.0.0.1:8000/v1", Model: "ui-tars-1.5-7b", Dialect: "uitars", Variant: "1.5"}, key)
	if err != nil {
		t.Fatal(err)
	}
	if p.ID == "" || p.KeyMasked != "sk-…abcd" {
		t.Fatalf("profile %+v", p)
	}
	list, err := a.Profiles()
	if err != nil || len(list) != 1 {
		t.Fatalf("%v %v", list, err)
	}
	settings, _ := os.ReadFile(filepath.Join(a.cfg.ConfigDir, "settings.json"))
	if strings.Contains(string(settings), "SECRET") {
		t.Fatal("the key reached settings.json")
	}
	got, k, err := a.profile(p.ID)
	if err != nil || k != key || got.Model != "ui-tars-1.5-7b" {
		t.Fatalf("%+v %q %v", got, k, err)
	}
	// Saving again without a key keeps the stored one.
	p.Name = "vLLM"
	if p, err = a.SaveProfile(p, ""); err != nil || p.KeyMasked != "sk-…abcd" {
		t.Fatalf("%+v %v", p, err)
	}
	if _, k, _ := a.profile(p.ID); k != key {
		t.Fatal("key lost on save")
	}
	s, _, _ := a.settings.Load()
	if s.ActiveProfile != p.ID {
		t.Fatalf("first profile not active: %q", s.ActiveProfile)
	}
	if err := a.DeleteProfile(p.ID); err != nil {
		t.Fatal(err)
	}
	if _, k, err := a.profile(p.ID); err == nil || k != "" {
		t.Fatal("deleted profile still there")
	}
	s, _, _ = a.settings.Load()
	if s.ActiveProfile != "" {
		t.Fatal("deleted profile still active")
	}
}

func TestProfileValidation(t *testing.T) {
	a := testApp(t)
	good := Profile{Name: "x", BaseURL: "https://api.openai.com/v1", Model: "gpt-4o", Dialect: "tools"}
	tests := []struct {
		name string
		edit func(*Profile)
		want string
	}{
		{"no name", func(p *Profile) { p.Name = " " }, "name"},
		{"bad url", func(p *Profile) { p.BaseURL = "api.openai.com" }, "base URL"},
		{"key in url", func(p *Profile) { p.BaseURL = "https://user:sk@host/v1" }, "key field"},
		{"no model", func(p *Profile) { p.Model = "" }, "model"},
		{"bad dialect", func(p *Profile) { p.Dialect = "xml" }, "format"},
		{"bad variant", func(p *Profile) { p.Dialect, p.Variant = "uitars", "2.0" }, "variant"},
	}
	for _, tt := range tests {
		p := good
		tt.edit(&p)
		if _, err := a.SaveProfile(p, ""); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	p, err := a.SaveProfile(good, "")
	if err != nil || p.Variant != "rel1000" {
		t.Fatalf("%+v %v", p, err)
	}
}

func TestTestProfileAgainstARealServer(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply{Content: "OK"}, modeltest.Reply{Status: 401, Message: "invalid api key"})
	a := testApp(t)
	p, err := a.SaveProfile(Profile{Name: "local", BaseURL: srv.URL, Model: "m", Dialect: "tools"}, "sk-local-key-0000")
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.TestProfile(context.Background(), p.ID)
	if err != nil || !res.OK {
		t.Fatalf("%+v %v", res, err)
	}
	res, err = a.TestProfile(context.Background(), p.ID)
	if err != nil || res.OK || !strings.Contains(res.Message, "refused the API key") || strings.Contains(res.Message, "sk-local-key-0000") {
		t.Fatalf("%+v %v", res, err)
	}
}

// TestProfileSamplingReachesTheServer: a profile's requests carry its model
// family's reference sampling, zeros included, and a custom profile's own
// temperature, top_p and max tokens replace them.
func TestProfileSamplingReachesTheServer(t *testing.T) {
	t3, p9 := float32(0.3), float32(0.9)
	cases := []struct {
		name string
		p    Profile
		want string
	}{
		{"autoglm reference", Profile{Dialect: "autoglm"},
			`"max_tokens":3000,"frequency_penalty":0.2}`},
		{"custom values", Profile{Dialect: "tools", Temperature: &t3, TopP: &p9, MaxTokens: 512},
			`"max_tokens":512}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.New(t, modeltest.Reply{Content: "OK"})
			a := testApp(t)
			p := tc.p
			p.Name, p.BaseURL, p.Model = "m", srv.URL, "m"
			p, err := a.SaveProfile(p, "")
			if err != nil {
				t.Fatal(err)
			}
			if res, err := a.TestProfile(context.Background(), p.ID); err != nil || !res.OK {
				t.Fatalf("%+v %v", res, err)
			}
			body := string(srv.Requests()[0].Body)
			if !strings.Contains(body, tc.want) {
				t.Errorf("body %s lacks %s", body, tc.want)
			}
			want := map[string]string{"autoglm reference": `"temperature":0,"top_p":0.85`, "custom values": `"temperature":0.3,"top_p":0.9`}[tc.name]
			if !strings.Contains(body, want) {
				t.Errorf("body %s lacks %s", body, want)
			}
		})
	}
	bad := float32(3)
	if _, err := testApp(t).SaveProfile(Profile{Name: "x", BaseURL: "http://h/v1", Model: "m", Dialect: "tools", Temperature: &bad}, ""); err == nil {
		t.Error("temperature 3 accepted")
	}
}

// TestProfilePlannerSettings: the model settings that live in the library
// (context length and history budget, vision on demand, the UI tree as
// text, the action cache) are a profile's settings, validated and handed to
// the planner; the action cache is shared by the app's runs.
func TestProfilePlannerSettings(t *testing.T) {
	a := testApp(t)
	p, err := a.SaveProfile(Profile{Name: "q", BaseURL: "http://127.0.0.1:11434/v1", Model: "qwen2.5vl:7b", Dialect: "tools",
		ContextTokens: 8192, VisionOnDemand: true, UITree: true, ActionCache: true}, "")
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := a.Profiles()
	if len(stored) != 1 || stored[0].ContextTokens != 8192 || !stored[0].VisionOnDemand || !stored[0].UITree || !stored[0].ActionCache {
		t.Fatalf("stored %+v", stored)
	}
	o := a.plannerOptions(p)
	if o.ContextTokens != 8192 || !o.SmallModel || !o.UITree || o.Cache == nil || a.plannerOptions(p).Cache != o.Cache {
		t.Fatalf("planner options %+v", o)
	}
	p.ActionCache = false
	if a.plannerOptions(p).Cache != nil {
		t.Fatal("cache on for a profile without it")
	}
	if _, err := a.SaveProfile(Profile{Name: "x", BaseURL: "http://h/v1", Model: "m", Dialect: "tools", ContextTokens: 100}, ""); err == nil {
		t.Error("a 100-token context accepted")
	}
}

// Every door finds a profile saved through the window, with its key.
func TestFindProfile(t *testing.T) {
	cfg := Config{ConfigDir: t.TempDir(), DataDir: t.TempDir()}
	a := New(cfg)
	a.secrets.ring = brokenRing{}
	p, err := a.SaveProfile(Profile{Name: "Office GPU", BaseURL: "http://10.0.0.2:8000/v1", Model: "qwen-vl", Dialect: "json", Variant: "abs"}, "sk-office-1234")
	if err != nil {
		t.Fatal(err)
	}
	set, _, _ := a.settings.Load()
	for _, name := range []string{"Office GPU", p.ID, ""} {
		got, key, err := a.findProfile(set, name)
		if err != nil || got.BaseURL != p.BaseURL || got.Model != "qwen-vl" || got.Dialect != "json" || got.Variant != "abs" || key != "sk-office-1234" {
			t.Fatalf("findProfile(%q) = %+v, %q, %v", name, got, key, err)
		}
	}
	if _, _, err := a.findProfile(set, "Nope"); err == nil || !strings.Contains(err.Error(), "Office GPU") {
		t.Fatalf("unknown name: %v", err)
	}
}
