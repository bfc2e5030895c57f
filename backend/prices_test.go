package backend

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadPrices(t *testing.T) {
	dir := t.TempDir()
	// First start: the built-in table, written out for the person to edit.
	p, warn := loadPrices(dir)
	if warn != "" || p.Models["gpt-4o"].Input == 0 {
		t.Fatalf("first start: %v %q", p, warn)
	}
	path := filepath.Join(dir, pricesFile)
	if b, err := os.ReadFile(path); err != nil || !strings.Contains(string(b), `"gpt-4o"`) {
		t.Fatalf("the table was not written: %v %s", err, b)
	}
	// The person's edit is used.
	os.WriteFile(path, []byte(`{"models":{"my-vlm":{"input":1,"output":2,"currency":"CNY"}}}`), 0o600)
	if p, warn = loadPrices(dir); warn != "" || p.Models["my-vlm"].Currency != "CNY" {
		t.Fatalf("edited: %v %q", p, warn)
	}
	// A damaged file is kept as it is; the built-in prices stand in, with a warning.
	damaged := []byte(`{"models":{"my-vlm":{"input":1,`)
	os.WriteFile(path, damaged, 0o600)
	p, warn = loadPrices(dir)
	if !strings.Contains(warn, pricesFile) || p.Models["gpt-4o"].Input == 0 {
		t.Fatalf("damaged: %v %q", p, warn)
	}
	if b, _ := os.ReadFile(path); string(b) != string(damaged) {
		t.Errorf("the damaged file was changed: %s", b)
	}
}

// TestCostLimitNeedsAPrice: a cost limit on a model without a price could
// never stop the task, so the task does not start.
func TestCostLimitNeedsAPrice(t *testing.T) {
	a := testApp(t)
	if _, err := a.SaveProfile(Profile{Name: "local", BaseURL: "http://127.0.0.1:9/v1", Model: "my-local-vlm", Dialect: "tools"}, ""); err != nil {
		t.Fatal(err)
	}
	set, _, _ := a.settings.Load()
	set.Budget.MaxCost = 1
	if _, err := a.SaveSettings(set); err != nil {
		t.Fatal(err)
	}
	_, err := a.StartRun(context.Background(), "no-such-device", "do something", RunChoice{})
	if err == nil || !strings.Contains(err.Error(), "no price is known for my-local-vlm") {
		t.Fatalf("StartRun: %v", err)
	}
}
