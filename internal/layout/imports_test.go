package layout

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rooms says, for each package of the module, which of the module's
// packages its production code may import. A key ending in "/" covers the
// subtree; the longest matching key wins. An allowed entry ending in "/"
// allows the subtree. Every package must match a key: a new room is placed
// on purpose, not by accident. docs/develop.md draws the same map.
var rooms = map[string][]string{
	// the entry point: the window or the command line
	"tandem": {"tandem/app", "tandem/cli", "tandem/popout", "tandem/internal/display"},
	// the engine knows no driver, no UI, no virtual phone
	"tandem/engine":               {"tandem/engine/action", "tandem/engine/device", "tandem/engine/model", "tandem/engine/observe", "tandem/internal/encoded", "tandem/internal/fastjpeg"},
	"tandem/engine/action":        {},
	"tandem/engine/observe":       {"tandem/internal/encoded", "tandem/internal/fastjpeg"},
	"tandem/engine/device":        {"tandem/engine/action"},
	"tandem/engine/model":         {"tandem/engine/action", "tandem/engine/observe"},
	"tandem/engine/model/dialect": {"tandem/engine/action", "tandem/engine/model", "tandem/engine/observe"},
	"tandem/engine/sim":           {"tandem/engine", "tandem/engine/action", "tandem/engine/device", "tandem/engine/model"},
	"tandem/engine/mutants":       {}, // plants faults in the engine's source, through go test
	// drivers: the engine's seam and each other, nothing of the UI
	"tandem/devices/": {"tandem/engine/action", "tandem/engine/device", "tandem/devices/", "tandem/internal/"},
	// the one list of devices and the one way to open them, over the drivers
	"tandem/devices": {"tandem/engine/action", "tandem/engine/device", "tandem/devices/", "tandem/internal/"},
	// the virtual phone is a phone: it speaks ADB and scrcpy, knows no Tandem code above
	"tandem/vphone":            {"tandem/internal/", "tandem/vphone/"},
	"tandem/vphone/vphonetest": {"tandem/vphone"},
	// the phone's parts know nothing of the phone they make up
	"tandem/vphone/encode":    {"tandem/internal/", "tandem/vphone/render"},
	"tandem/vphone/render":    {},
	"tandem/vphone/screens":   {"tandem/vphone/render"},
	"tandem/vphone/shell":     {},
	"tandem/vphone/transport": {},
	// the mirror: frames out, phone video in
	"tandem/mirror":        {"tandem/engine/action", "tandem/internal/"},
	"tandem/mirror/stream": {"tandem/devices/adb", "tandem/engine/action", "tandem/internal/"},
	// a run's video: a file format, knows no device, run or mirror
	"tandem/video": {},
	// shared tooling imports only shared tooling
	"tandem/internal/": {"tandem/internal/"},
	// the one application: every room below the doors
	"tandem/backend": {"tandem/backend/chore", "tandem/engine/", "tandem/engine", "tandem/devices", "tandem/devices/", "tandem/vphone", "tandem/mirror", "tandem/mirror/", "tandem/notify", "tandem/video", "tandem/internal/"},
	// the desktop's notifications: the operating system's, knows no Tandem code
	"tandem/notify": {},
	// the saved chores and their schedules: data and rules, no I/O but its file
	"tandem/backend/chore": {},
	// the doors reach settings, profiles, runs, history, devices, feeds and
	// the person's input only through the backend: they may name the
	// engine's and the mirror's types, never a driver, the registry, the
	// model client or the feed; a door may serve another (the window the
	// MCP door over HTTP and Evaluate, and starts the pop-out), never the
	// reverse
	"tandem/app": {"tandem/backend", "tandem/mcpserver", "tandem/eval", "tandem/popout", "tandem/engine", "tandem/engine/action", "tandem/mirror", "tandem/internal/"},
	// the pop-out window, a second process: it posts the person's presses
	// back to the window's backend over HTTP and holds no backend itself
	"tandem/popout": {"tandem/engine/action", "tandem/mirror"},
	// the MCP door: the backend and the types it reports
	"tandem/mcpserver": {"tandem/backend", "tandem/engine", "tandem/engine/action", "tandem/internal/"},
	// the command line's own tools (parse, compress, vphone) use their rooms
	"tandem/cli": {"tandem/backend", "tandem/mcpserver", "tandem/engine", "tandem/engine/action", "tandem/engine/device", "tandem/engine/model",
		"tandem/engine/model/dialect", "tandem/engine/observe", "tandem/vphone", "tandem/eval", "tandem/internal/"},
	// the world of chores: tasks on the virtual phone, run through the
	// backend as a door runs them, read back through adb
	"tandem/eval": {"tandem/backend", "tandem/engine", "tandem/devices/adb", "tandem/vphone/screens", "tandem/internal/"},
	// packaging helpers
	"tandem/scripts/": {"tandem/internal/"},
}

// libraries are outside packages only some rooms may import: the
// chat-completions library stays behind the model client (engine/model's
// own Message, Tool and ToolCall are what dialects, the app and the CLI
// use) and the test model server that speaks the same wire.
var libraries = map[string][]string{
	"github.com/sashabaranov/go-openai": {"tandem/engine/model", "tandem/internal/modeltest"},
	// the session bus: the desktop's notifications and the tests' private bus
	"github.com/godbus/dbus/v5": {"tandem/notify", "tandem/internal/sessionbus"},
	// the MP4 library stays behind the video room
	"github.com/Eyevinn/mp4ff/avc": {"tandem/video"},
	"github.com/Eyevinn/mp4ff/mp4": {"tandem/video"},
}

type pkg struct {
	ImportPath string
	Imports    []string
	Doc        string // the package doc's first sentence
}

// list runs `go list` over the module for one GOOS, so files that build only
// on Windows are checked too.
func list(t *testing.T, goos string) []pkg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "list", "-e", "-json=ImportPath,Imports,Doc", "tandem/...")
	cmd.Dir = moduleRoot(t)
	cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=1")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list (GOOS=%s): %v\n%s", goos, err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(&out)
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	return pkgs
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = up
	}
}

// room returns the rule for a package: the longest matching key.
func room(path string) (string, bool) {
	best := ""
	for k := range rooms {
		if (k == path || strings.HasSuffix(k, "/") && strings.HasPrefix(path, k)) && len(k) > len(best) {
			best = k
		}
	}
	return best, best != ""
}

func allowed(rule []string, imp string) bool {
	for _, a := range rule {
		if a == imp || strings.HasSuffix(a, "/") && strings.HasPrefix(imp, a) {
			return true
		}
	}
	return false
}

// arrows returns every import of a module package that its room does not
// allow, and the packages no room covers.
func arrows(pkgs []pkg) (bad, unplaced []string) {
	for _, p := range pkgs {
		key, ok := room(p.ImportPath)
		if !ok {
			unplaced = append(unplaced, p.ImportPath)
			continue
		}
		for _, imp := range p.Imports {
			if (imp == "tandem" || strings.HasPrefix(imp, "tandem/")) && !allowed(rooms[key], imp) {
				bad = append(bad, p.ImportPath+" → "+imp)
			}
			if only, ok := libraries[imp]; ok && !allowed(only, p.ImportPath) {
				bad = append(bad, p.ImportPath+" → "+imp)
			}
		}
	}
	return bad, unplaced
}

func TestNoArrowBackUp(t *testing.T) {
	for _, goos := range []string{"linux", "windows"} {
		pkgs := list(t, goos)
		for _, p := range pkgs {
			if p.Doc == "" {
				t.Errorf("GOOS=%s: package %s has no package doc: say what it is and why it is apart", goos, p.ImportPath)
			}
		}
		bad, unplaced := arrows(pkgs)
		for _, b := range bad {
			t.Errorf("GOOS=%s: %s is not allowed (internal/layout/imports_test.go, rooms)", goos, b)
		}
		for _, u := range unplaced {
			t.Errorf("GOOS=%s: package %s is in no room: add it to rooms and to docs/develop.md", goos, u)
		}
	}
}

// The checker itself: an engine that imports a driver, or the virtual phone
// that imports the engine, is caught; a new package outside every room is
// named.
func TestArrowsAreCaught(t *testing.T) {
	pkgs := []pkg{
		{ImportPath: "tandem/engine", Imports: []string{"context", "tandem/engine/action", "tandem/devices/adb"}},
		{ImportPath: "tandem/vphone", Imports: []string{"tandem/engine/device"}},
		{ImportPath: "tandem/devices/adb", Imports: []string{"tandem/engine/device", "tandem/internal/scrcpy"}},
		{ImportPath: "tandem/cli", Imports: []string{"tandem/app"}},
		{ImportPath: "tandem/engine/model/dialect", Imports: []string{"tandem/engine/model", "github.com/sashabaranov/go-openai"}},
		{ImportPath: "tandem/gadgets", Imports: nil},
	}
	bad, unplaced := arrows(pkgs)
	want := []string{"tandem/engine → tandem/devices/adb", "tandem/vphone → tandem/engine/device", "tandem/cli → tandem/app",
		"tandem/engine/model/dialect → github.com/sashabaranov/go-openai"}
	if strings.Join(bad, "|") != strings.Join(want, "|") {
		t.Errorf("arrows = %q, want %q", bad, want)
	}
	if len(unplaced) != 1 || unplaced[0] != "tandem/gadgets" {
		t.Errorf("unplaced = %q", unplaced)
	}
}
