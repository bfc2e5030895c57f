package app

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"tandem/engine"
	"tandem/internal/tsgen"
)

var updateTS = flag.Bool("update-ts", false, "rewrite frontend/src/lib/gen/types.ts")

// The Go structs the UI receives (the engine's events and what the bound
// methods return), written as TypeScript. The UI's own types are checked
// against this file at compile time (frontend/src/lib/gen/check.ts); this
// test fails when the file no longer matches the Go structs.
func TestTypeScriptTypesMatchGo(t *testing.T) {
	got, err := tsgen.Generate("// Code generated from the Go structs the UI receives by\n"+
		"// `go test ./app -run TypeScriptTypes -update-ts`. DO NOT EDIT.\n",
		engine.Event{}, engine.Region{},
		Info{}, LoadedSettings{}, WelcomeStatus{}, DeviceEntry{}, PresetInfo{}, TestResult{}, RunDetail{}, PopoutConfig{})
	if err != nil {
		t.Fatal(err)
	}
	got += boundMethodsTS()
	path := filepath.Join("..", "frontend", "src", "lib", "gen", "types.ts")
	if *updateTS {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./app -run TypeScriptTypes -update-ts)", err)
	}
	if got != string(want) {
		t.Errorf("%s no longer matches the Go structs; run go test ./app -run TypeScriptTypes -update-ts, then fix the UI's types that frontend/src/lib/gen/check.ts names", path)
	}
}

// boundMethodsTS names every method Wails binds (each exported method of
// *App): the page's Bound interface (frontend/src/lib/backend.ts) must list
// exactly these (gen/check.ts).
func boundMethodsTS() string {
	var names []string
	t := reflect.TypeFor[*App]()
	for i := range t.NumMethod() {
		names = append(names, "'"+t.Method(i).Name+"'")
	}
	slices.Sort(names)
	return "\n/** The methods Wails binds: every exported method of app.App. */\nexport type BoundMethod =\n  | " +
		strings.Join(names, "\n  | ") + "\n"
}

// The page can call every exported method; the app's lifecycle (starting
// the mirror server, stopping every run) must not be among them.
func TestLifecycleIsNotBound(t *testing.T) {
	typ := reflect.TypeFor[*App]()
	for _, name := range []string{"Start", "Shutdown", "Startup", "Close", "Begin"} {
		if _, ok := typ.MethodByName(name); ok {
			t.Errorf("App.%s is exported, so the page could call it: make it unexported", name)
		}
	}
	if typ.NumMethod() < 20 {
		t.Fatalf("only %d bound methods: the reflection is looking at the wrong type", typ.NumMethod())
	}
}
