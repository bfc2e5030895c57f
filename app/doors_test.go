package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"tandem/backend"
	"tandem/cli"
	"tandem/engine"
	"tandem/engine/model"
	"tandem/internal/modeltest"
	"tandem/vphone"
)

// The window and `tandem run --profile P` are one Tandem: with the same
// saved profile and Settings they run with identical engine settings
// (the policy's words and apps, budgets, stability), price the calls from
// the same price table, and both ask before an action inside an app the
// person's Settings protect, whose label names no sensitive word.
func TestTheWindowAndTheCommandLineAreOneTandem(t *testing.T) {
	privateADBServer(t)
	a := testApp(t)
	if err := a.begin(context.Background(), nopNotifier); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.shutdown)
	dev, err := a.api.Devices.StartVirtualPhone()
	if err != nil {
		t.Fatal(err)
	}
	phone := virtualPhone(t, a, dev.ID)
	if err := phone.Launch(vphone.PkgShop); err != nil {
		t.Fatal(err)
	}
	srv := shopModel(t, phone)
	cfg := a.b.Config()
	t.Setenv("TANDEM_CONFIG_DIR", cfg.ConfigDir)
	t.Setenv("TANDEM_DATA_DIR", cfg.DataDir)
	t.Setenv("TANDEM_API_KEY", "")
	t.Setenv("TANDEM_BASE_URL", "")
	t.Setenv("TANDEM_MODEL", "")
	protectTheShop(t, a, srv.URL)
	goal := "Look at the earbuds"

	// Through the window.
	snap, err := a.api.Runs.StartRun(dev.ID, goal)
	if err != nil {
		t.Fatal(err)
	}
	run, err := a.b.Run(snap.ID, backend.ByWindow())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	waitState(ctx, t, run, engine.WaitingForUser)
	if req := run.Snapshot().Request; req == nil || req.Kind != engine.AskConfirm {
		t.Fatalf("the window's run did not ask before tapping inside the protected app: %+v", req)
	}
	if err := a.api.Runs.Deny(snap.ID, "not now"); err != nil {
		t.Fatal(err)
	}
	if _, err := run.Wait(ctx); err != nil {
		t.Fatal(err)
	}

	// Through the command line, with the same profile and Settings.
	if err := phone.Launch(vphone.PkgShop); err != nil {
		t.Fatal(err)
	}
	var out, errOut lockedBuffer
	code := cli.Run(ctx, cli.Env{Args: []string{"run", "--profile", "Shop model", "--device", dev.ID, "--goal", goal,
		"--adb-port", os.Getenv("TANDEM_ADB_PORT")}, Stdin: strings.NewReader("n\n"), Stdout: &out, Stderr: &errOut})
	if !strings.Contains(out.String(), "? confirm:") {
		t.Fatalf("tandem run did not ask before tapping inside the protected app (exit %d):\n%s\n%s", code, out.String(), errOut.String())
	}
	if phone.State().Counter != 0 || itemTaps(phone) != 0 {
		t.Fatal("the item was tapped without the person's yes")
	}

	window, line := recordOf(t, cfg.DataDir, snap.ID), newestOther(t, cfg.DataDir, snap.ID)
	if !reflect.DeepEqual(window.settings, line.settings) {
		t.Errorf("the doors ran with different settings:\nwindow: %+v\nline:   %+v", window.settings, line.settings)
	}
	if window.settings.Policy.Apps[0] != "shop" || window.settings.Budget.Steps != 7 || window.settings.Stability.Max != 1234*time.Millisecond {
		t.Errorf("the window's run did not take the person's Settings: %+v", window.settings)
	}
	if window.cost == 0 || window.cost != line.cost || window.currency != "CNY" || line.currency != "CNY" {
		t.Errorf("the calls were priced differently: window %v %s, line %v %s (want the person's price table in both)",
			window.cost, window.currency, line.cost, line.currency)
	}
}

// protectTheShop saves the person's set-up both doors use: the model
// profile, Settings that protect the shop app and ask before transfers
// only (no word of theirs names the item the model taps), budgets,
// stability, and a price table of their own.
func protectTheShop(t *testing.T, a *App, url string) {
	t.Helper()
	cfg := a.b.Config()
	if _, err := a.api.Settings.SaveProfile(backend.Profile{Name: "Shop model", BaseURL: url, Model: "shop-vlm", Dialect: "tools", Variant: "rel1000"}, "sk-shop-0000"); err != nil {
		t.Fatal(err)
	}
	loaded, err := a.api.Settings.GetSettings()
	if err != nil {
		t.Fatal(err)
	}
	s := loaded.Settings
	s.PolicyWords, s.PolicyApps = []string{"transfer", "转账"}, []string{"shop"}
	s.Budget = backend.Budget{MaxSteps: 7, MaxTokens: 90000, MaxCost: 5, MaxMinutes: 9}
	s.StabilityMs = 1234
	if _, err := a.api.Settings.SaveSettings(s); err != nil {
		t.Fatal(err)
	}
	prices := `{"models":{"shop-vlm":{"input":1000,"output":2000,"currency":"CNY"}}}`
	if err := os.WriteFile(filepath.Join(cfg.ConfigDir, "prices.json"), []byte(prices), 0o600); err != nil {
		t.Fatal(err)
	}
}

// shopModel taps the item's name while the shop is open, then gives up
// (the person said no), with usage to price.
func shopModel(t *testing.T, phone *vphone.Phone) *modeltest.Server {
	b, ok := phone.Bounds(vphone.PkgShop + ":id/item_name")
	if !ok {
		t.Fatal("no item on the shop's screen")
	}
	w, h := phone.Size()
	c := b.Min.Add(b.Max).Div(2)
	tap := fmt.Sprintf(`{"x":%d,"y":%d}`, c.X*1000/w, c.Y*1000/h)
	usage := &openai.Usage{PromptTokens: 1000, CompletionTokens: 100, TotalTokens: 1100}
	return modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		if strings.Contains(r.Text(), "not now") || strings.Contains(r.Text(), "denied") || strings.Contains(r.Text(), "refused") {
			return modeltest.Reply{Content: "The person said no.", Usage: usage,
				ToolCalls: []openai.ToolCall{call("finish", `{"summary":"Left it.","success":false}`)}}
		}
		return modeltest.Reply{Content: "Open the item.", Usage: usage, ToolCalls: []openai.ToolCall{call("tap", tap)}}
	})
}

// itemTaps counts the phone's taps (none may land without a yes).
func itemTaps(p *vphone.Phone) int {
	n := 0
	for _, e := range p.Events() {
		if e.Kind == "tap" {
			n++
		}
	}
	return n
}

type recorded struct {
	settings engine.Settings
	cost     float64
	currency string
}

// recordOf reads run id's start settings and the cost of its calls.
func recordOf(t *testing.T, dataDir, id string) recorded {
	t.Helper()
	entries, _, err := engine.ReadRecord(filepath.Join(dataDir, "runs", id))
	if err != nil || len(entries) == 0 || entries[0].Settings == nil {
		t.Fatalf("record %s: %v", id, err)
	}
	r := recorded{settings: *entries[0].Settings}
	var u model.Usage
	for _, e := range entries {
		if e.Usage != nil {
			u = u.Add(*e.Usage)
			r.currency = e.Usage.Currency
		}
	}
	r.cost = u.Cost
	return r
}

// newestOther is the record of the run that is not id.
func newestOther(t *testing.T, dataDir, id string) recorded {
	t.Helper()
	dirs, err := os.ReadDir(filepath.Join(dataDir, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if d.IsDir() && d.Name() != id {
			return recordOf(t, dataDir, d.Name())
		}
	}
	t.Fatalf("no second record beside %s", id)
	return recorded{}
}

// lockedBuffer is a buffer two goroutines may write.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
